"""The replay document (``threshold.replay.v1``), the game it rebuilds, and its verification.

The document holds the config (seed included), aliases, policy names, the runner's log
(`EpisodeLog.to_json()`: every decision with its source, attempts, timeouts and fallback
cause), every event with its audience, and the results. `game_from_replay` is all a generic
verifier needs: it re-applies the log to that fresh game and compares canonical bytes.
`verify` does that and also checks every logged decision against what the runner could have
made (a scripted seat's answer is re-derived from its baseline), so decision metadata cannot
be edited unnoticed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError, ReplayError
from cogleague.core.game import Decision, Turn
from cogleague.core.replay import EpisodeLog, LogEntry, apply_entry

from cogleague_threshold.baselines import BASELINES, make_baseline
from cogleague_threshold.config import config_from_json

if TYPE_CHECKING:
    from cogleague_threshold.game import ThresholdGame

FORMAT = "threshold.replay.v1"
# The runner's fallback causes (`cogleague.core.game.Decision`; ``error``: a baseline raised).
FALLBACK_CAUSES = ("timeout", "parse", "illegal", "transport", "rate_budget", "disabled",
                   "no_submission", "error")


def replay_document(game: ThresholdGame, log: EpisodeLog) -> dict[str, Any]:
    return {"format": FORMAT, "game": game.name, "rules_version": game.rules_version,
            "config": game.config.to_json(), "aliases": list(game.aliases),
            "policies": list(game.policy_names), "log": log.to_json(),
            "events": [{"audience": None if e.audience is None else list(e.audience),
                        "event": e.to_json()} for e in log.events],
            "results": game.results()}


def _field(doc: Any, key: str) -> Any:
    if not isinstance(doc, Mapping) or key not in doc:
        raise ReplayError(f"replay is missing {key!r}")
    return doc[key]


def game_from_replay(doc: Mapping[str, Any]) -> ThresholdGame:
    """A fresh game from the document's config and seats; `ReplayError` if they build none."""
    from cogleague_threshold.game import ThresholdGame

    if _field(doc, "format") != FORMAT:
        raise ReplayError(f"format must be {FORMAT!r} (got {doc['format']!r})")
    policies = _field(doc, "policies")
    if not isinstance(policies, list) or not all(isinstance(p, str) for p in policies):
        raise ReplayError("policies must be a list of policy names")
    try:
        config = config_from_json(_field(doc, "config"))
        return ThresholdGame(config, policies)
    except (ConfigError, ValueError, TypeError, AttributeError) as exc:
        raise ReplayError(f"config: {exc}") from exc


def _check_decision(game: ThresholdGame, turn: Turn, d: Decision, baseline: Any,
                    where: str) -> None:
    """A logged decision must be one the runner could have made: a baseline's own answer at
    the first attempt, the game's fallback with a known cause, or a legal parsed reply."""
    retries = game.timing().retries
    if not 1 <= d.attempts <= 1 + retries or not 0 <= d.timeouts <= d.attempts:
        raise ReplayError(f"{where}: attempts {d.attempts} / timeouts {d.timeouts} are not "
                          f"possible with {retries} retry")
    if d.source == "scripted":
        # In-process programs that are not baselines (a league's bot classes) answer
        # synchronously too: their replies can only be checked for legality.
        expected = baseline.act(turn) if baseline is not None else game.parse(turn, d.action
                                                                               ).action
        if (d.action, d.attempts, d.timeouts, d.cause, d.clamped) != (expected, 1, 0, None,
                                                                       False):
            raise ReplayError(f"{where}: the seat answers {expected} at its first attempt; "
                              f"the log says {d.to_json()}")
    elif d.source == "fallback":
        if d.cause not in FALLBACK_CAUSES or d.action != game.fallback(turn):
            raise ReplayError(f"{where}: a fallback is {game.fallback(turn)} with a cause in "
                              f"{', '.join(FALLBACK_CAUSES)}; the log says {d.to_json()}")
    elif d.source == "seat":
        if d.cause is not None or game.parse(turn, d.action).action != d.action:
            raise ReplayError(f"{where}: a seat's reply must be legal and have no cause; the "
                              f"log says {d.to_json()}")
    else:
        raise ReplayError(f"{where}: source must be seat, scripted or fallback "
                          f"(got {d.source!r})")


def _reapply(game: ThresholdGame, entries: Any) -> EpisodeLog:
    if not isinstance(entries, list):
        raise ReplayError("log must be a list of entries")
    baselines = {s: make_baseline(name, game.config, s)
                 for s, name in enumerate(game.policy_names) if name in BASELINES}
    log = EpisodeLog()
    for i, doc in enumerate(entries):
        try:
            decisions = None
            if "decisions" in doc:
                decisions = {k: Decision.from_json(v) for k, v in doc["decisions"].items()}
                turns = {t.turn_id: t for t in game.pending()}
                if set(decisions) != set(turns):
                    raise ReplayError(f"log[{i}]: decisions for {sorted(decisions)}, the game "
                                      f"expects {sorted(turns)}")
                for tid, d in decisions.items():
                    _check_decision(game, turns[tid], d, baselines.get(turns[tid].seat),
                                    f"log[{i}].decisions.{tid}")
            events = apply_entry(game, doc["op"], decisions, doc.get("reason"),
                                 doc.get("detail"))
        except ReplayError:
            raise
        except Exception as exc:
            raise ReplayError(f"log[{i}]: re-applying it fails: {type(exc).__name__}: "
                              f"{exc}") from exc
        log.add(LogEntry(doc["op"], events, decisions, doc.get("reason"), doc.get("detail")))
    return log


def verify(doc: Mapping[str, Any]) -> None:
    """Re-derive `doc` from its config and log; `ReplayError` naming the first difference."""
    game = game_from_replay(doc)
    derived = replay_document(game, _reapply(game, _field(doc, "log")))
    if jsonio.dumps(derived) != jsonio.dumps(doc):
        raise ReplayError(jsonio.first_difference(doc, derived))
