"""Built-in games with one bug each that only the game-author checks catch: a score that
ignores what the events report, randomness drawn outside the seed, non-determinism on a seed
other than the first, and a failure hypothesis would shrink for minutes. Module-level
descriptors, so the determinism check's child processes can load them by name."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

from cogleague.core.game import Decision, Event
from cogleague.games.dilemma.descriptor import GAME as DILEMMA
from cogleague.games.dilemma.game import DilemmaGame

from .mutants import mutant


class ScoreOffByOne(DilemmaGame):
    """Seat 0's score leaves out one point its reveals paid it."""

    def results(self) -> dict[str, Any]:
        doc = super().results()
        doc["scores"] = [doc["scores"][0] - 1, *doc["scores"][1:]]
        return doc


class NoisyEvents(DilemmaGame):
    """Every step tells the table a number drawn from the process's own random generator
    (not from the seed): two identical replays differ, with nothing sealed varied."""

    def apply(self, decisions: Mapping[str, Decision]) -> list[Event]:
        return [*super().apply(decisions), Event("weather", {"cloud": random.random()})]


class HashOrderOnLaterSeeds(DilemmaGame):
    """Reports its aliases in `hash()` order, but only on seeds after the first."""

    def results(self) -> dict[str, Any]:
        doc = super().results()
        if self.seed != 1:
            doc["alias_order"] = sorted(self.aliases, key=hash)
        return doc


SHRINK_LIMITS_SEEN: list[float] = []
"""Hypothesis' shrinking limit as `SlowCrash` found it each time it crashed."""


class SlowCrash(DilemmaGame):
    """Crashes at the start of every episode with more than three seats, half a second later
    (and notes the shrinking limit in force): every shrinking step costs that half second."""

    def start(self) -> list[Event]:
        if self.num_seats > 3:
            from hypothesis.internal.conjecture import engine

            SHRINK_LIMITS_SEEN.append(engine.MAX_SHRINKING_SECONDS)
            time.sleep(0.5)
            raise RuntimeError("slow crash")
        return super().start()


SCORE_OFF_BY_ONE = mutant(DILEMMA, ScoreOffByOne)
NOISY_EVENTS = mutant(DILEMMA, NoisyEvents)
HASH_ORDER_ON_LATER_SEEDS = mutant(DILEMMA, HashOrderOnLaterSeeds)
SLOW_CRASH = mutant(DILEMMA, SlowCrash)
