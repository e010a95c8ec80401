"""Replays: the document round-trips through JSON byte for byte, the one verifier
(`core/verify.py`) accepts it and re-derives the results, and refuses it tampered."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from cogleague.core.errors import ReplayError
from cogleague.core.verify import verify_replay
from cogleague.testing.subject import ConformanceError, Played, Subject

IMPLAUSIBLE_ATTEMPTS = 1000
Tamper = Callable[[dict[str, Any]], bool]
"""Change a document in place; False when this document has nothing to change."""


def _bump_score(doc: dict[str, Any]) -> bool:
    scores = doc.get("results", {}).get("scores")
    if not isinstance(scores, list) or not scores:
        return False
    scores[0] = scores[0] + 1
    return True


def _drop_last_op(doc: dict[str, Any]) -> bool:
    doc["log"].pop()
    return True


def _retry_count(doc: dict[str, Any]) -> bool:
    """More attempts than any game's retries allow: metadata the rules may never read."""
    for entry in doc["log"]:
        for decision in (entry.get("decisions") or {}).values():
            if decision["source"] == "seat":
                decision["attempts"] = IMPLAUSIBLE_ATTEMPTS
                return True
    return False


def _scripted_action(doc: dict[str, Any]) -> bool:
    """Swap the actions of two scripted decisions that differ (a baseline re-derives them)."""
    for entry in doc["log"]:
        scripted = [d for d in (entry.get("decisions") or {}).values()
                    if d["source"] == "scripted"]
        for a in scripted:
            for b in scripted:
                if a["action"] != b["action"]:
                    a["action"], b["action"] = b["action"], a["action"]
                    return True
    return False


TAMPERS: dict[str, Tamper] = {
    "a score": _bump_score,
    "the last operation dropped": _drop_last_op,
    "a seat's attempts": _retry_count,
    "two scripted actions swapped": _scripted_action,
}


def check_replays(subject: Subject) -> str:
    desc = subject.desc
    if desc.game_from_replay is None:
        raise ConformanceError(f"{desc.name}: the descriptor declares no game_from_replay, so "
                               "no replay can be verified")
    tampered = 0
    for played in subject.played:
        _round_trip(subject, played)
        for name, tamper in TAMPERS.items():
            doc = copy.deepcopy(played.doc)
            if not tamper(doc):
                continue
            try:
                verify_replay(doc, desc)
            except ReplayError:
                tampered += 1
                continue
            raise ConformanceError(f"{played.episode.label()}: a replay with {name} tampered "
                                   "still verifies")
    return f"{len(subject.played)} replays verify; {tampered} tampered copies are refused"


def _round_trip(subject: Subject, played: Played) -> None:
    desc, label = subject.desc, played.episode.label()
    if played.doc.get("format") != desc.replay_format:
        raise ConformanceError(f"{label}: the replay's format is {played.doc.get('format')!r}, "
                               f"the descriptor says {desc.replay_format!r}")
    if not isinstance(played.doc.get("log"), list):
        raise ConformanceError(f"{label}: the replay carries no runner log ('log')")
    if subject.dumps(json.loads(played.text)) != played.text:
        raise ConformanceError(f"{label}: the replay does not survive a JSON round trip")
    try:
        results = verify_replay(json.loads(played.text), desc)
    except ReplayError as exc:
        raise ConformanceError(f"{label}: its own replay does not verify: {exc}") from None
    if subject.dumps(results) != subject.dumps(played.outcome.results):
        raise ConformanceError(f"{label}: the verifier re-derives other results than the game")
