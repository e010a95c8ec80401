"""Test-only games for the league, importable by spawned workers and Ray tasks.

`skill`: the toy game where each round a seat gains its policy's skill plus seeded noise, so
the true order of the baselines ``s1`` < ``s2`` < … < ``s9`` is known and outcomes are noisy.
Leagues reach it with ``module = "leaguegames"`` and ``python_path`` naming this directory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogleague.client.bot import Bot, TurnInfo
from cogleague.core import rng
from cogleague.core.config import check_int, reject_unknown
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError
from cogleague.core.game import Action, Event, StepDecisions, Turn
from cogleague.core.options import Option, option_model
from helpers.toygame import ToyGame

NOISE = 6.0
"""Each round a seat gains skill + U(0, NOISE): with skills 1..9 upsets are common."""

SKILLS = tuple(f"s{i}" for i in range(1, 10))


class Skill:
    def __init__(self, skill: int) -> None:
        self.skill = skill

    def act(self, turn: Turn) -> Action:
        return {"n": self.skill}


class SkillGame(ToyGame):
    name = "skill"
    rules_version = "skill-1"

    def __init__(self, seats: int, rounds: int, seed: int) -> None:
        super().__init__(seats=seats, rounds=rounds)
        self.scores = [0.0] * seats  # type: ignore[list-item]
        self.rng = rng.stream(f"skill:{seed}")

    def apply_step(self, decisions: StepDecisions) -> list[Event]:
        turns = self.step().turns()
        events = super().apply_step(decisions)
        for t in turns:
            self.scores[t.seat] += self.rng.random() * NOISE
        return events

    def make_baseline(self, name: str, seat: int) -> Skill:  # type: ignore[override]
        if name not in SKILLS:
            raise ConfigError("seats", f"seats: unknown baseline {name!r}")
        return Skill(int(name[1:]))


def _make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
          names: Sequence[str], seat_kinds: Sequence[str] | None = None) -> SkillGame:
    reject_unknown("skill", overrides, ("rounds",))
    rounds = check_int("rounds", overrides.get("rounds", 3), 1, 50)
    game = SkillGame(len(names), rounds, seed or 0)
    game.policy_names = list(names)
    return game


GAME = GameDescriptor(
    name="skill", version="skill-1", title="Skill (test)",
    options=option_model("SkillOptions", {"rounds": Option(int, "rounds", 1, 50)}),
    make=_make, variants=("standard", "long"), default_variant="standard", seat_range=(2, 8),
    baselines=SKILLS, fallback_baseline="s1", default_lineup=lambda v: ["s1", "s2", "s3"],
    replay_format="skill.replay.v1",
    replay_document=lambda game, log: {"format": "skill.replay.v1",
                                       "results": game.results()},
    seats_for=lambda v, o: 3)


class SteadyBot(Bot):
    """An SDK bot: always names 5 (plays in-process through `BotSeat`)."""

    def on_turn(self, turn: TurnInfo) -> Any:
        return {"n": 5}


class BrokenBot(Bot):
    """A bot whose construction fails (say, a missing weights file): an infrastructure failure."""

    def __init__(self) -> None:
        raise RuntimeError("weights file missing")


class DyingBot(Bot):
    """A bot whose pool worker dies partway (a leak that ends in the out-of-memory killer, a
    segfaulting extension): the worker plays its first `LIVES` seats of it, sends back what it
    finished, and exits at the next. The driver, where the league file is checked, is spared."""

    LIVES = 2
    made = 0  # in this process

    def __init__(self) -> None:
        import multiprocessing
        import os

        if multiprocessing.parent_process() is not None:
            DyingBot.made += 1
            if DyingBot.made > self.LIVES:
                os._exit(3)

    def on_turn(self, turn: TurnInfo) -> Any:
        return {"n": 5}


class KillerBot(Bot):
    """A bot whose every seat kills the process playing it, as a segfault would (only ever
    seated in a pool's or Ray's workers: the driver checks the class, never makes one)."""

    def __init__(self) -> None:
        import os

        os._exit(3)
