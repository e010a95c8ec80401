"""The one replay verifier: rebuild a replay through the real game and compare canonical bytes.

A replay document carries the runner's log (``doc["log"]``: `EpisodeLog.to_json()`, every
operation with every decision and its metadata). `verify_replay` builds a fresh game from the
document's config, seed and seats (the descriptor's `game_from_replay`), re-applies the log to
it, writes the replay document of what it rebuilt (the descriptor's `replay_document`) and
requires it to equal the recorded one byte for byte (`core.jsonio.dumps`, with the format's
`replay_sort_keys`). Events, results, aliases, schedules, frames and the log itself all
re-derive or the replay is refused with a `ReplayError` naming the first difference.

Byte equality cannot see what the rules do not consume, so three checks run on each decision
before it is re-applied:

- its metadata is what the runner can produce (known source; attempts within the game's
  retries; timeouts within attempts; a fallback's cause from the documented list; a scripted
  reply takes one attempt and is never clamped);
- a ``scripted`` decision of a seat named by one of the game's baselines equals what that
  baseline plays at that turn (the baseline sees the same turns it saw live);
- a ``fallback`` decision equals the game's `fallback` for that turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError, ReplayError
from cogleague.core.game import Decision, Game, Policy, Turn
from cogleague.core.replay import EpisodeLog, LogEntry, apply_entry

if TYPE_CHECKING:
    from cogleague.core.descriptor import GameDescriptor

SOURCES = ("seat", "scripted", "fallback")
FALLBACK_CAUSES = ("timeout", "parse", "illegal", "transport", "rate_budget", "disabled",
                   "no_submission", "error")
"""Why a seat fell back (`Decision.cause`); ``error``: a scripted seat's policy raised."""
OPS = ("start", "open", "apply", "stop")
ENTRY_KEYS = frozenset(("op", "decisions", "reason", "detail"))
DECISION_KEYS = ("action", "source", "cause", "attempts", "timeouts", "clamped")


def verify_replay(doc: Any, desc: GameDescriptor) -> dict[str, Any]:
    """Re-derive `doc` through `desc`'s game; return its results or raise `ReplayError`."""
    try:
        return _verify(doc, desc)
    except ReplayError:
        raise
    except Exception as exc:  # a malformed document: say so, never crash the verifier
        raise ReplayError(f"malformed replay: {type(exc).__name__}: {exc}") from exc


def _verify(doc: Any, desc: GameDescriptor) -> dict[str, Any]:
    if not isinstance(doc, Mapping):
        raise ReplayError(f"a replay must be a JSON object (got {type(doc).__name__})")
    if doc.get("format") != desc.replay_format:
        raise ReplayError(f"format must be {desc.replay_format!r} (got {doc.get('format')!r})")
    if desc.game_from_replay is None:
        raise ReplayError(f"{desc.name} declares no game_from_replay: its replays cannot be "
                          "verified")
    entries = doc.get("log")
    if not isinstance(entries, list):
        raise ReplayError("log must be the runner's list of operations (EpisodeLog.to_json())")
    try:
        game = desc.game_from_replay(doc)
    except (ConfigError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, ReplayError):
            raise
        raise ReplayError(f"config/seats do not build a game: {exc}") from exc
    log = rebuild(game, entries, desc.baselines)
    rebuilt = desc.replay_document(game, log)
    for key in desc.replay_optional_keys:
        if key not in doc:
            rebuilt.pop(key, None)
    sort = desc.replay_sort_keys
    if jsonio.dumps(rebuilt, sort_keys=sort) != jsonio.dumps(doc, sort_keys=sort):
        raise ReplayError("first difference at "
                          + jsonio.first_difference(dict(doc), rebuilt, sort_keys=sort))
    results: dict[str, Any] = rebuilt["results"]
    return results


def rebuild(game: Game, entries: list[Any], baselines: Any = ()) -> EpisodeLog:
    """Re-apply logged entries (JSON form) to a fresh `game`, checking every decision first
    (see the module docstring); seats whose policy name is in `baselines` are re-derived."""
    checker = _Checker(game, set(baselines))
    log = EpisodeLog()
    for index, entry in enumerate(entries):
        op, decisions, reason, detail = _entry(index, entry)
        if decisions is not None:
            checker.check(index, decisions)
        try:
            events = apply_entry(game, op, decisions, reason, detail)
        except Exception as exc:
            raise ReplayError(f"log[{index}] ({op}) does not re-apply: {type(exc).__name__}: "
                              f"{exc}") from exc
        log.add(LogEntry(op, events, decisions, reason, detail))
    return log


def _entry(index: int, entry: Any) -> tuple[str, dict[str, Decision] | None, str | None,
                                            str | None]:
    where = f"log[{index}]"
    if not isinstance(entry, Mapping) or entry.get("op") not in OPS:
        raise ReplayError(f"{where}.op must be one of {', '.join(OPS)}")
    if not ENTRY_KEYS.issuperset(entry):
        raise ReplayError(f"{where} has unknown keys {sorted(set(entry) - ENTRY_KEYS)}")
    op = entry["op"]
    for key in ("reason", "detail"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            raise ReplayError(f"{where}.{key} must be a string")
    raw = entry.get("decisions")
    if (op == "apply") != (raw is not None):
        raise ReplayError(f"{where}: decisions belong to apply entries, and only there")
    decisions = None
    if raw is not None:
        if not isinstance(raw, Mapping):
            raise ReplayError(f"{where}.decisions must map turn ids to decisions")
        decisions = {str(k): _decision(f"{where}.decisions.{k}", d) for k, d in raw.items()}
    return op, decisions, entry.get("reason"), entry.get("detail")


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _decision(where: str, doc: Any) -> Decision:
    if not isinstance(doc, Mapping) or set(doc) - {"reason"} != set(DECISION_KEYS):
        raise ReplayError(f"{where} must have exactly the keys {', '.join(DECISION_KEYS)} "
                          "(and reason, on a parse or illegal fallback)")
    d = Decision.from_json(doc)
    if "reason" in doc and (type(d.reason) is not str or d.source != "fallback"
                            or d.cause not in ("parse", "illegal")):
        raise ReplayError(f"{where}.reason is a string on a parse or illegal fallback only "
                          f"(got {d.reason!r} on {d.source}/{d.cause})")
    if d.source not in SOURCES:
        raise ReplayError(f"{where}.source must be one of {', '.join(SOURCES)} "
                          f"(got {d.source!r})")
    if not _count(d.attempts) or not _count(d.timeouts) or d.timeouts > d.attempts:
        raise ReplayError(f"{where}: attempts and timeouts must be counts, timeouts <= attempts "
                          f"(got {d.attempts!r}, {d.timeouts!r})")
    if type(d.clamped) is not bool:
        raise ReplayError(f"{where}.clamped must be true or false (got {d.clamped!r})")
    if d.source == "fallback":
        if d.cause not in FALLBACK_CAUSES:
            raise ReplayError(f"{where}.cause must be one of {', '.join(FALLBACK_CAUSES)} "
                              f"(got {d.cause!r})")
        if d.cause == "timeout" and d.timeouts == 0:
            raise ReplayError(f"{where}: a timeout fallback records at least one timeout")
        if d.clamped:
            raise ReplayError(f"{where}: a fallback is never clamped")
    elif d.cause is not None:
        raise ReplayError(f"{where}.cause must be null unless the seat fell back")
    if d.source == "scripted" and (d.attempts, d.timeouts, d.clamped) != (1, 0, False):
        raise ReplayError(f"{where}: a scripted reply takes one attempt, no timeout, no clamp")
    if d.source == "seat" and (d.attempts < 1 or d.timeouts >= d.attempts):
        raise ReplayError(f"{where}: a seat's own reply ends an attempt that did not time out")
    if not isinstance(d.action, dict):
        raise ReplayError(f"{where}.action must be an object")
    return d


class _Checker:
    """Per-decision checks against the rebuilt game (pending turns, retries, baselines)."""

    def __init__(self, game: Game, baselines: set[str]) -> None:
        self.game = game
        self.max_attempts = 1 + game.timing().retries
        self.policies: dict[int, Policy] = {}
        for seat, name in enumerate(game.policy_names):
            if name in baselines:
                self.policies[seat] = game.make_baseline(name, seat)

    def check(self, index: int, decisions: Mapping[str, Decision]) -> None:
        game = self.game
        turns: dict[str, Turn] = {t.turn_id: t for t in game.pending()}
        unknown = sorted(set(decisions) - set(turns))
        if unknown:
            raise ReplayError(f"log[{index}]: decisions for turns {unknown} the game does not "
                              f"ask for (pending: {sorted(turns)})")
        for turn_id, turn in turns.items():
            d = decisions.get(turn_id)
            if d is None:
                continue
            where = f"log[{index}].decisions.{turn_id}"
            if d.attempts > self.max_attempts:
                raise ReplayError(f"{where}: {d.attempts} attempts, the game allows "
                                  f"{self.max_attempts}")
            if d.source == "scripted" and turn.seat in self.policies:
                self._same(where, f"baseline {game.policy_names[turn.seat]} plays",
                           self.policies[turn.seat].act(turn), d.action)
            elif d.source == "fallback":
                self._same(where, "the game's fallback plays", game.fallback(turn), d.action)

    @staticmethod
    def _same(where: str, who: str, expected: Any, logged: Any) -> None:
        if jsonio.dumps(expected, sort_keys=True) != jsonio.dumps(logged, sort_keys=True):
            raise ReplayError(f"{where}: {who} {jsonio.dumps(expected)}, the log says "
                              f"{jsonio.dumps(logged)}")
