"""The Ledger replay (spec §15): the document, its frames, and its verification.

`verify` re-derives the aliases and schedule from the seed, folds every event after checking it
against the rules (on schedule, payoffs implied by moves, gossip on target, fallbacks playing
mirror, a consistent end), and requires the rebuilt results and any stored frames to equal the
stored ones. Any mismatch raises `ReplayError` saying where.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogleague.core import jsonio
from cogleague.core.config import check_choice, check_int, check_number
from cogleague.core.errors import ReplayError
from cogleague.games.ledger.aliases import SEATS, draw_aliases
from cogleague.games.ledger.baselines import Mirror
from cogleague.games.ledger.board import clean_memo_text, clean_note_text, note_target
from cogleague.games.ledger.config import (
    DECISION_TIMEOUT_S,
    EPISODE_TIMEOUT_S,
    PLAY_BUDGET_FRACTION,
    ROUNDS_MAX,
    ROUNDS_MIN,
    SEED_MAX,
    VARIANTS,
)
from cogleague.games.ledger.context import TurnContext
from cogleague.games.ledger.schedule import draw_schedule
from cogleague.games.ledger.subgames import payoff
from cogleague.games.ledger.table import BETWEEN, COMPLETE, DEADLINE, DEAL, REASONS, Table

if TYPE_CHECKING:
    from cogleague.games.ledger.game import LedgerGame

REPLAY_FORMAT = "ledger.replay.v1"
EVENT_KEYS: dict[str, list[str]] = {
    "start": ["kind"],
    "round": ["kind", "round", "pairs"],
    "meeting": ["kind", "round", "pair", "a", "b", "subgame", "moveA", "moveB", "payA", "payB",
                "scriptedA", "scriptedB", "fallbackA", "fallbackB", "clampedA", "clampedB",
                "timeoutsA", "timeoutsB", "memoA", "memoB"],
    "gossip": ["kind", "round", "author", "subject", "text"],
    "end": ["kind", "round", "reason"],
}


def replay_document(game: LedgerGame, log: Any, *, frames: bool = False) -> dict[str, Any]:
    """`{format, aliases, policyNames, config{…, schedule}, events, results, frames?}`."""
    doc: dict[str, Any] = {
        "format": REPLAY_FORMAT,
        "aliases": list(game.aliases),
        "policyNames": list(game.policy_names),
        "config": {**game.config.to_json(),
                   "schedule": [[p.to_json() for p in r] for r in game.schedule]},
        "events": [e.to_json() for e in log.events],
        "results": game.results(),
    }
    if frames:
        doc["frames"] = build_frames(doc)
    return doc


def build_frames(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The spectator frame after each prefix of the events (events + 1 frames)."""
    return _fold(doc, frames=True)[1]


def verify(doc: Any) -> dict[str, Any]:
    """Re-derive a replay document; return its results or raise `ReplayError`."""
    try:
        if not isinstance(doc, Mapping) or doc.get("format") != REPLAY_FORMAT:
            raise ReplayError(f"format must be {REPLAY_FORMAT}")
        table, frames = _fold(doc, frames="frames" in doc)
        rebuilt = table.results()
        if jsonio.dumps(rebuilt) != jsonio.dumps(doc["results"]):
            difference = jsonio.first_difference(doc["results"], rebuilt)
            raise ReplayError(f"results do not re-derive: {difference}")
        if "frames" in doc:
            stored = doc["frames"]
            if not isinstance(stored, list) or len(stored) != len(frames):
                raise ReplayError(f"frames must number events + 1 = {len(frames)}")
            for i, (mine, theirs) in enumerate(zip(frames, stored, strict=True)):
                if jsonio.dumps(mine) != jsonio.dumps(theirs):
                    raise ReplayError(f"frame {i} does not re-derive: "
                                      f"{jsonio.first_difference(theirs, mine)}")
        return rebuilt
    except ReplayError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise ReplayError(f"malformed replay: {type(exc).__name__}: {exc}") from exc


def _fold(doc: Mapping[str, Any], *, frames: bool) -> tuple[Table, list[dict[str, Any]]]:
    config = doc["config"]
    check_choice("variant", config["variant"], VARIANTS)
    seed = check_int("seed", config["seed"], 0, SEED_MAX)
    rounds = check_int("rounds", config["rounds"], ROUNDS_MIN, ROUNDS_MAX)
    for field, (lo, hi, _) in (("episode_timeout_s", EPISODE_TIMEOUT_S),
                               ("play_budget_fraction", PLAY_BUDGET_FRACTION),
                               ("decision_timeout_s", DECISION_TIMEOUT_S)):
        check_number(field, config[field], lo, hi)
    aliases = draw_aliases(seed)
    if doc["aliases"] != aliases:
        raise ReplayError(f"aliases do not re-derive from seed {seed}: expected {aliases}")
    schedule = draw_schedule(seed, rounds)
    if config["schedule"] != [[p.to_json() for p in r] for r in schedule]:
        raise ReplayError(f"config.schedule does not re-derive from seed {seed}")
    names = doc["policyNames"]
    if not isinstance(names, list) or len(names) != SEATS \
            or not all(isinstance(n, str) for n in names):
        raise ReplayError(f"policyNames must list {SEATS} strings")
    folder = _Folder(Table(list(aliases), list(names), schedule), seed)
    out = [folder.table.frame()] if frames else []
    events = doc["events"]
    if not isinstance(events, list):
        raise ReplayError("events must be a list")
    for index, event in enumerate(events):
        try:
            folder.check(event)
        except ReplayError as exc:
            raise ReplayError(f"event {index}: {exc}") from None
        folder.table.fold(event["kind"], event)
        if frames:
            out.append(folder.table.frame())
    if folder.table.reason is None:
        raise ReplayError("the events do not end with an end event")
    return folder.table, out


class _Folder:
    """Checks each event against the rules and the state folded so far."""

    def __init__(self, table: Table, seed: int) -> None:
        self.table = table
        self.seed = seed
        self.mirror_moves: list[int] = []
        self.last_author = -1

    def check(self, e: Any) -> None:
        t = self.table
        if not isinstance(e, Mapping) or e.get("kind") not in EVENT_KEYS:
            raise ReplayError(f"kind must be one of {', '.join(EVENT_KEYS)}")
        kind = e["kind"]
        if list(e) != EVENT_KEYS[kind]:
            raise ReplayError(f"{kind} must have exactly the keys {EVENT_KEYS[kind]}")
        if t.reason is not None:
            raise ReplayError("an event follows the end")
        if (kind == "start") == t.started:
            raise ReplayError("start must come first, once")
        getattr(self, f"_{kind}", lambda e: None)(e)

    def _round(self, e: Mapping[str, Any]) -> None:
        t = self.table
        if t.phase != BETWEEN or e["round"] != t.rounds_played or t.rounds_played >= t.max_rounds:
            raise ReplayError(f"round {e['round']!r} is off schedule "
                              f"(rounds played {t.rounds_played}, phase {t.phase})")
        r = t.rounds_played
        if e["pairs"] != [p.to_json() for p in t.schedule[r]]:
            raise ReplayError(f"round {r} pairs are off schedule")
        self.last_author = -1
        # what the mirror fallback plays for each seat, from the state before the meetings
        self.mirror_moves = [
            Mirror(s).move(TurnContext(t, s, r, t.slots[r][s], self.seed)) for s in range(SEATS)]

    def _meeting(self, e: Mapping[str, Any]) -> None:
        t = self.table
        r = t.open_round
        if t.phase != DEAL or r is None or e["round"] != r:
            raise ReplayError(f"meeting of round {e['round']!r} is off schedule")
        index = t.resolved
        pairing = t.schedule[r][index]
        if (e["pair"], e["a"], e["b"], e["subgame"]) != (index, pairing.a, pairing.b,
                                                        pairing.subgame):
            raise ReplayError(f"meeting {e['pair']!r} of round {r} is off schedule")
        for side, (seat, move) in enumerate(((pairing.a, e["moveA"]), (pairing.b, e["moveB"]))):
            slot = t.slots[r][seat]
            if isinstance(move, bool) or not isinstance(move, int) or not \
                    slot.lo <= move <= slot.hi:
                raise ReplayError(f"round {r} pair {index}: move {move!r} of seat {seat} is not "
                                  f"in {slot.lo}..{slot.hi}")
            ab = "AB"[side]
            flags = [e[f"{f}{ab}"] for f in ("scripted", "fallback", "clamped")]
            if not all(isinstance(f, bool) for f in flags):
                raise ReplayError(f"round {r} pair {index}: flags of seat {seat} must be booleans")
            scripted, fallback, _ = flags
            timeouts, memo = e[f"timeouts{ab}"], e[f"memo{ab}"]
            if isinstance(timeouts, bool) or not isinstance(timeouts, int) or timeouts < 0:
                raise ReplayError(f"round {r} pair {index}: timeouts{ab} must be a count")
            if not isinstance(memo, str) or clean_memo_text(memo) != memo:
                raise ReplayError(f"round {r} pair {index}: memo{ab} is not a cleaned memo")
            if fallback and (not scripted or memo or move != self.mirror_moves[seat]):
                raise ReplayError(f"round {r} pair {index}: seat {seat} fell back but did not "
                                  "play the scripted mirror without a memo")
        if (e["payA"], e["payB"]) != payoff(pairing.subgame, e["moveA"], e["moveB"]):
            raise ReplayError(f"round {r} pair {index}: payoffs are not implied by the moves")

    def _gossip(self, e: Mapping[str, Any]) -> None:
        t = self.table
        r, author = e["round"], e["author"]
        if t.phase != BETWEEN or r != t.open_round or r != t.rounds_played - 1:
            raise ReplayError(f"gossip of round {r!r} comes outside its round's settlement")
        if isinstance(author, bool) or not isinstance(author, int) or \
                not self.last_author < author < SEATS:
            raise ReplayError(f"gossip author {author!r} is out of seat order")
        self.last_author = author
        target = note_target(t.slots, author, r)
        if target is None or e["subject"] != target:
            raise ReplayError(f"gossip by seat {author} in round {r} is off target "
                              f"(subject {e['subject']!r}, target {target!r})")
        text = e["text"]
        if not isinstance(text, str) or not text or clean_note_text(text) != text:
            raise ReplayError(f"gossip by seat {author} in round {r} is not a cleaned note")

    def _end(self, e: Mapping[str, Any]) -> None:
        t = self.table
        unfinished = t.phase == DEAL and t.resolved > 0
        reason = e["reason"]
        if e["round"] != t.rounds_played or reason not in REASONS or unfinished or \
                (reason == COMPLETE) != (t.rounds_played == t.max_rounds) or \
                (reason == DEADLINE and t.rounds_played >= t.max_rounds):
            raise ReplayError(f"end (round {e['round']!r}, reason {reason!r}) is inconsistent "
                              f"with {t.rounds_played} of {t.max_rounds} rounds played")
