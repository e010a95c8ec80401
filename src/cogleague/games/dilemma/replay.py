"""The dilemma's replay document (``dilemma.replay.v1``) and its verifier.

A replay holds the full config (seed included), aliases, policy names, the runner's log (every
decision with its source), every event with its audience (promises included: the replay shows
everything after the end) and the results. `verify` rebuilds the match from the config and the
log, re-derives every scripted seat's choices from its baseline, and raises `ReplayError` at the
first difference. Written with `core.jsonio.dumps`, a scripted-only replay is byte-identical
for the same seed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError, ReplayError
from cogleague.core.game import Decision, Event
from cogleague.core.replay import EpisodeLog, apply_entry
from cogleague.games.dilemma.baselines import BASELINES
from cogleague.games.dilemma.config import CONFIG_KEYS, DilemmaConfig, make_config

if TYPE_CHECKING:
    from cogleague.games.dilemma.game import DilemmaGame

FORMAT = "dilemma.replay.v1"


def event_json(e: Event) -> dict[str, Any]:
    return {"audience": None if e.audience is None else list(e.audience), "event": e.to_json()}


def replay_document(game: DilemmaGame, log: EpisodeLog) -> dict[str, Any]:
    return {
        "format": FORMAT, "game": game.name, "rules_version": game.rules_version,
        "config": game.config.to_json(), "aliases": list(game.aliases),
        "policies": list(game.policy_names), "log": log.to_json(),
        "events": [event_json(e) for e in log.events], "results": game.results(),
    }


def config_from_json(doc: Mapping[str, Any]) -> DilemmaConfig:
    overrides = {k: v for k, v in doc.items() if k in CONFIG_KEYS and k != "seed"}
    return make_config(doc.get("variant"), overrides, doc.get("seed", 0))


def _plain(doc: Any) -> Any:
    """The JSON form (tuples become lists) so documents compare as they are stored."""
    return json.loads(jsonio.dumps(doc))


def _require(doc: Any, key: str) -> Any:
    if not isinstance(doc, dict) or key not in doc:
        raise ReplayError(f"replay is missing {key!r}")
    return doc[key]


def _check_scripted(game: DilemmaGame, policies: dict[int, Any], index: int,
                    decisions: dict[str, Decision]) -> None:
    """Scripted decisions must be what the named baseline plays at that turn."""
    turns = game.pending()
    ids = {t.turn_id for t in turns}
    if set(decisions) != ids:
        raise ReplayError(f"log entry {index}: decisions for {sorted(decisions)} but the game "
                          f"expects turns {sorted(ids)}")
    for t in turns:
        d = decisions[t.turn_id]
        policy = policies.get(t.seat)
        if d.source != "scripted" or policy is None:
            continue
        expected = policy.act(t)
        if expected != d.action:
            raise ReplayError(f"log entry {index}, turn {t.turn_id}: baseline "
                              f"{game.policy_names[t.seat]} plays {expected}, the log says "
                              f"{d.action}")


def verify(doc: Any) -> None:
    """Re-derive `doc` from its config and log; raise `ReplayError` at the first mismatch."""
    from cogleague.games.dilemma.game import DilemmaGame

    if _require(doc, "format") != FORMAT:
        raise ReplayError(f"format must be {FORMAT!r} (got {doc['format']!r})")
    try:
        config = config_from_json(_require(doc, "config"))
        game = DilemmaGame(config, _require(doc, "policies"))
    except ConfigError as exc:
        raise ReplayError(f"config: {exc}") from exc
    if doc.get("rules_version") != game.rules_version:
        raise ReplayError(f"rules_version must be {game.rules_version!r} "
                          f"(got {doc.get('rules_version')!r})")
    if doc.get("aliases") != game.aliases:
        raise ReplayError(f"aliases {doc.get('aliases')} are not the seed's {game.aliases}")
    policies = {s: BASELINES[name](config, s) for s, name in enumerate(game.policy_names)
                if name in BASELINES}
    recorded = _require(doc, "events")
    derived: list[dict[str, Any]] = []
    for index, entry in enumerate(_require(doc, "log")):
        decisions = None
        if "decisions" in entry:
            decisions = {k: Decision.from_json(v) for k, v in entry["decisions"].items()}
            _check_scripted(game, policies, index, decisions)
        try:
            events = apply_entry(game, entry["op"], decisions, entry.get("reason"),
                                 entry.get("detail"))
        except Exception as exc:
            raise ReplayError(f"log entry {index} ({entry.get('op')}): {exc}") from exc
        for e in events:
            i = len(derived)
            derived.append(_plain(event_json(e)))
            if i >= len(recorded) or derived[i] != recorded[i]:
                got = recorded[i] if i < len(recorded) else "nothing"
                raise ReplayError(f"event {i} (log entry {index}): derived {derived[i]}, "
                                  f"recorded {got}")
    if len(recorded) != len(derived):
        raise ReplayError(f"{len(recorded)} events recorded, {len(derived)} derived")
    if _plain(game.results()) != doc.get("results"):
        raise ReplayError("results differ from the ones derived from the log")
