"""A resumed table keeps its play budget: `EpisodeRunner(elapsed_s=…)` counts the play time
already spent (what the server reads back from the log's `elapsed_ms`), on a virtual clock."""

from __future__ import annotations

import asyncio

from cogleague.core.clock import FakeClock
from cogleague.core.episode import EpisodeRunner
from cogleague.core.game import Timing
from cogleague.seats.scripted import ScriptedSeat
from helpers.toygame import ToyGame

BUDGET = Timing(decision_timeout_s=5.0, retries=0, play_budget_s=100.0, reserve_s=10.0,
                reserve_scripted_s=10.0, min_step_s=4.0)


def play(elapsed_s: float) -> dict[str, object]:
    game = ToyGame(seats=2, rounds=30, timing=BUDGET)
    seats = [ScriptedSeat(game.make_baseline("const1", s), f"p{s}") for s in range(2)]

    async def run() -> dict[str, object]:
        runner = EpisodeRunner(game, seats, FakeClock(), pacing=True, elapsed_s=elapsed_s)
        return (await runner.run()).results

    return asyncio.run(run())


def test_the_budget_counts_play_time_spent_before_a_resume() -> None:
    fresh = play(0.0)
    resumed = play(60.0)
    # 4 s per round, a round opens only while 10 s of the 100 remain: rounds 0..22 fresh,
    # 0..7 when 60 s were spent before the resume
    assert (fresh["reason"], fresh["rounds"]) == ("deadline", 23)
    assert (resumed["reason"], resumed["rounds"]) == ("deadline", 8)
