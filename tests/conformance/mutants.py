"""Built-in games with one bug each: the conformance check for that rule must catch it.

Each mutant is the real game with its class swapped for a subclass that breaks one rule, and
a descriptor (`dataclasses.replace`) whose `make` and `game_from_replay` build the mutant.
Module-level descriptors, so the determinism check's child processes can load them by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from cogleague.core.descriptor import GameDescriptor
from cogleague.core.game import Action, Event, Events, Game, Parsed, StepDecisions, Turn
from cogleague.games.dilemma.descriptor import GAME as DILEMMA
from cogleague.games.dilemma.game import DilemmaGame
from cogleague.games.ledger.descriptor import GAME as LEDGER
from cogleague.games.ledger.game import LedgerGame


def mutant(desc: GameDescriptor, cls: type[Game]) -> GameDescriptor:
    def make(*args: Any) -> Game:
        game = desc.make(*args)
        game.__class__ = cls
        return game

    def from_replay(doc: Mapping[str, Any]) -> Game:
        assert desc.game_from_replay is not None
        game = desc.game_from_replay(doc)
        game.__class__ = cls
        return game

    return dataclasses.replace(desc, make=make, game_from_replay=from_replay)


def rendered(events: Events) -> list[Event]:
    return events if isinstance(events, list) else events()


class ChoiceLeak(DilemmaGame):
    """Publishes each seat's choice as soon as its step is applied (the dilemma keeps it
    private until both movers are in)."""

    def apply_step(self, decisions: StepDecisions) -> list[Event]:
        events = rendered(super().apply_step(decisions))
        for e in events:
            if e.kind == "action_private":
                e.audience = None
        return events


class MemoLeak(LedgerGame):
    """Shows every memo to the whole table (a memo is its author's alone)."""

    def apply_step(self, decisions: StepDecisions) -> list[Event]:
        events = rendered(super().apply_step(decisions))
        for e in events:
            e.restricted = None
        return events


class PartialCommit(DilemmaGame):
    """Books a point before it finds the bad input (`apply` must be all or nothing)."""

    def apply_step(self, decisions: StepDecisions) -> Events:
        try:
            return super().apply_step(decisions)
        except Exception:
            self.state.points[0] += 1
            raise


class LateRender(DilemmaGame):
    """Its events renderer reads the live table when called, not the step it settled."""

    def apply_step(self, decisions: StepDecisions) -> Events:
        render = super().apply_step(decisions)
        return lambda: [*rendered(render), Event("tally", {"rounds": self.rounds_played})]


class HashOrder(DilemmaGame):
    """Reports its aliases in `hash()` order, which changes with PYTHONHASHSEED."""

    def spectator_state(self) -> dict[str, Any]:
        return {**super().spectator_state(), "aliases": sorted(self.aliases, key=hash)}

    def results(self) -> dict[str, Any]:
        return {**super().results(), "alias_order": sorted(self.aliases, key=hash)}


class WildFallback(LedgerGame):
    """Falls back to a move outside every range (the fallback must be a legal reply)."""

    def fallback(self, turn: Turn) -> Action:
        return {"move": 99}


class ScoresByAlias(DilemmaGame):
    """Keys its scores by alias (results are indexed by seat)."""

    def results(self) -> dict[str, Any]:
        doc = super().results()
        doc["scores"] = dict(zip(self.aliases, doc["scores"], strict=True))
        return doc


class IntKeys(DilemmaGame):
    """An event whose object has integer keys (JSON would quietly turn them into strings)."""

    def start(self) -> list[Event]:
        return [*super().start(), Event("seats", {"by_seat": dict(enumerate(self.aliases))})]


class CrashOnList(DilemmaGame):
    """`parse` crashes on a JSON list instead of refusing it with `IllegalAction`."""

    def parse(self, turn: Turn, raw: Any) -> Parsed:
        if isinstance(raw, list):
            raise KeyError("a list")
        return super().parse(turn, raw)


class StaleRestart(DilemmaGame):
    """A restart that forgets to clear each pairing's running points: the new match's pairing
    totals start from the last match's."""

    def restart(self, seed: int, policy_names: Sequence[str],
                seat_kinds: Sequence[str] | None = None) -> bool:
        kept = [list(rec.points) for rec in self.state.pairs]
        if not super().restart(seed, policy_names, seat_kinds):
            return False
        for rec, points in zip(self.state.pairs, kept, strict=True):
            rec.points[:] = points
        return True


CHOICE_LEAK = mutant(DILEMMA, ChoiceLeak)
MEMO_LEAK = mutant(LEDGER, MemoLeak)
PARTIAL_COMMIT = mutant(DILEMMA, PartialCommit)
LATE_RENDER = mutant(DILEMMA, LateRender)
HASH_ORDER = mutant(DILEMMA, HashOrder)
WILD_FALLBACK = mutant(LEDGER, WildFallback)
SCORES_BY_ALIAS = mutant(DILEMMA, ScoresByAlias)
INT_KEYS = mutant(DILEMMA, IntKeys)
CRASH_ON_LIST = mutant(DILEMMA, CrashOnList)
STALE_RESTART = mutant(DILEMMA, StaleRestart)
NO_REPLAY_BUILDER = dataclasses.replace(DILEMMA, game_from_replay=None)
FLOAT_HUMAN_DEADLINE = dataclasses.replace(DILEMMA, human_config={"turn_deadline_ms": 30000.0})
"""A people's table option declared as a float where the option is an integer."""
