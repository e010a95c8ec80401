"""The Commons Family replay document (rules §13, ``commons-family/1``) and its verifier.

`build_document(game, log)` turns a finished game and its episode log into the replay;
`verify(doc)` re-runs the recorded decisions through a fresh engine and raises `ReplayError`
at the first field that does not re-derive. Serialise with ``jsonio.dumps(doc, sort_keys=True)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError, ReplayError
from cogleague.core.game import Decision
from cogleague.core.replay import EpisodeLog, LogEntry, apply_entry
from cogleague.games.commons.actions import MOVE_FIELDS
from cogleague.games.commons.config import make_config

if TYPE_CHECKING:
    from cogleague.games.commons.game import CommonsGame

FORMAT = "commons-family/1"
PROTOCOL = "commons-family.replay.v1"


def build_document(game: CommonsGame, log: EpisodeLog) -> dict[str, Any]:
    """The replay of `game` (finished or not). Notes never appear in it."""
    cfg = game.config
    module = game.module
    seats = []
    for s in range(game.num_seats):
        patches = module.own_patches(game.state, s) if cfg.module == "harvest" else []
        seats.append({"slot": s, "alias": game.aliases[s], "name": cfg.names[s],
                      "kind": game.seat_kinds[s], "scripted": game.seat_kinds[s] == "scripted",
                      "favorite": game.setup.favorites[s], "patches": patches,
                      "disconnected": game.disconnected[s]})
    return {
        "format": FORMAT, "protocol": PROTOCOL, "version": game.rules_version,
        "module": cfg.module, "variant": cfg.variant, "generated_at": game.generated_at,
        "seed": cfg.seed, "config": cfg.to_json(), "names": list(game.aliases),
        "policyNames": list(game.policy_names), "seats": seats, "rounds": game.records,
        "events": [e.to_json() for e in log.events], "results": game.results(),
    }


_SOURCES = {"scripted": "scripted", "fallback": "fallback", "llm": "seat", "player": "seat"}


def _decision(rec: Mapping[str, Any]) -> Decision | None:
    src = rec["src"]
    if src == "pass":
        return None
    kind, _, cause = src.partition(":")
    if kind not in _SOURCES:
        raise ReplayError(f"decision src must be llm, scripted:<name>, fallback:<cause>, pass "
                          f"or player (got {src!r})")
    action = {k: rec[k] for k in (*MOVE_FIELDS, "sanction", "message")}
    return Decision(action, source=_SOURCES[kind], cause=cause or None if kind == "fallback"
                    else None)


def rebuild(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Re-run a replay's recorded decisions through a fresh engine; return the new document."""
    from cogleague.games.commons.game import CommonsGame

    if doc.get("format") != FORMAT:
        raise ReplayError(f"format must be {FORMAT} (got {doc.get('format')!r})")
    try:
        config = make_config(None, doc["config"])
        game = CommonsGame(config, doc["policyNames"],
                           seat_kinds=[s["kind"] for s in doc["seats"]],
                           generated_at=doc.get("generated_at"))
    except (KeyError, TypeError, ConfigError, ValueError) as exc:
        raise ReplayError(f"config/seats do not build a game: {exc}") from exc
    log = EpisodeLog()

    def run(op: str, decisions: dict[str, Decision] | None = None, reason: str | None = None,
            detail: str | None = None) -> None:
        log.add(LogEntry(op, apply_entry(game, op, decisions, reason, detail), decisions,
                         reason, detail))

    run("start")
    for rec in doc["rounds"]:
        run("open")
        decisions = {}
        for d in rec["decisions"]:
            decision = _decision(d)
            if decision is not None:
                decisions[f"r{rec['r']}s{d['slot']}"] = decision
        run("apply", decisions)
    results = doc.get("results") or {}
    opened = sum(1 for e in doc.get("events", []) if e.get("kind") == "round_open")
    if not game.done and opened > len(doc["rounds"]):
        run("open")  # a round discarded by an error was opened, never settled
    if not game.done:
        if results.get("reason") == "no_players":
            run("stop", reason="no_players")
        elif results.get("error"):
            run("stop", reason="error", detail=results["error"])
        else:
            run("stop", reason="deadline")
    rebuilt = build_document(game, log)
    # Model request counts are transport facts, not rules outcomes: taken as recorded.
    if "llm_requests" in results:
        rebuilt["results"]["llm_requests"] = results["llm_requests"]
    return rebuilt


def verify(doc: Mapping[str, Any]) -> None:
    """Raise `ReplayError` naming the first field of `doc` that does not re-derive."""
    try:
        rebuilt = rebuild(doc)
    except ReplayError:
        raise
    except Exception as exc:  # a malformed document: say so, never crash the verifier
        raise ReplayError(f"replay does not re-run: {type(exc).__name__}: {exc}") from exc
    if jsonio.dumps(rebuilt, sort_keys=True) != jsonio.dumps(dict(doc), sort_keys=True):
        raise ReplayError(jsonio.first_difference(dict(doc), rebuilt, sort_keys=True))
