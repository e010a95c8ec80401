"""Run a whole episode from a list of per-round raw decisions through the real engine.

The planner replays its plan with this, so "plan welfare" and "engine welfare" are one number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cogleague.core.episode import play_headless
from cogleague.core.game import Action, Turn
from cogleague.games.commons.config import CommonsConfig
from cogleague.games.commons.game import CommonsGame
from cogleague.seats.scripted import ScriptedSeat

PLAN_POLICY = "planner"


@dataclass(frozen=True)
class SimResult:
    """`welfare`, `scores` and `residual` at full float precision; `results` is the rounded
    results document; `game` the finished engine (its `records` hold every round)."""

    welfare: float
    scores: list[float]
    residual: float
    results: dict[str, Any]
    game: CommonsGame


class _PlanPolicy:
    def __init__(self, plan: Sequence[Sequence[Action]]) -> None:
        self.plan = plan

    def act(self, turn: Turn) -> Action:
        return dict(self.plan[turn.round][turn.seat])


def simulate(config: CommonsConfig, plan: Sequence[Sequence[Action]]) -> SimResult:
    """Play `config` with seat s deciding ``plan[r][s]`` (a raw decision, clamped as any reply
    is) in round r. `plan` must hold `config.rounds` rounds of `config.num_players` decisions.
    Headless, so the play budget never fires (the runner's clock is real but an all-scripted
    episode takes milliseconds)."""
    if len(plan) != config.rounds or any(len(p) != config.num_players for p in plan):
        raise ValueError(f"plan must hold {config.rounds} rounds of {config.num_players} "
                         "decisions")
    n = config.num_players
    game = CommonsGame(config, [PLAN_POLICY] * n, seat_kinds=["scripted"] * n)
    policy = _PlanPolicy(plan)
    play_headless(game, [ScriptedSeat(policy, PLAN_POLICY) for _ in range(n)])
    return SimResult(game.welfare(), list(game.scores), game.module.residual(game.state),
                     game.results(), game)
