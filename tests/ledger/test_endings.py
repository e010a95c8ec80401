"""End conditions (§11): complete, deadline between rounds on a fake clock, reserves."""

from __future__ import annotations

from typing import Any

from cogleague.core.clock import FakeClock
from cogleague.core.episode import run_episode
from cogleague.core.game import Turn
from cogleague.core.verify import verify_replay
from cogleague.games.ledger.descriptor import GAME

from .support import ScriptSeat, make_game, play, scripted_seats, seats_with


def verify(doc: Any) -> Any:
    """The one verifier (core/verify.py) with this game's descriptor."""
    return verify_replay(doc, GAME)


def test_a_full_episode_ends_complete() -> None:
    game = make_game(seed=7)
    outcome = play(game)
    assert outcome.results["reason"] == "complete"
    assert (outcome.results["rounds"], outcome.results["maxRounds"]) == (14, 14)
    assert outcome.log.events[-1].to_json() == {"kind": "end", "round": 14, "reason": "complete"}
    assert outcome.results["meetings"] == [14] * 8 and game.done


async def test_the_deadline_stops_between_rounds_after_round_one() -> None:
    """Budget 0.6 x 200 = 120 s, reserve 2 x 30 + 10 = 70 s. Round 0 starts at 0 (70 <= 120);
    a slow seat times out once (30 s) and answers its retry 25 s later, so round 1 would start
    at 55 s and 55 + 70 > 120: the episode ends with one round played."""
    clock = FakeClock()
    game = make_game(seed=7, episode_timeout_s=200, decision_timeout_s=30)

    class Slow:
        kind, name = "remote", "slow"

        async def decide(self, turn: Turn, hint: str | None) -> Any:
            await clock.sleep(40.0 if hint is None else 25.0)
            return {"move": turn.legal_actions["move"]["min"]}

    outcome = await run_episode(game, seats_with(game, {4: Slow()}), clock=clock)
    results = outcome.results
    assert (results["rounds"], results["maxRounds"], results["reason"]) == (1, 14, "deadline")
    assert clock.now() == 55.0
    assert results["meetings"] == [1] * 8 and results["timeouts"][4] == 1
    assert results["fallbacks"] == [0] * 8  # the retry answered in time
    assert outcome.log.events[-1].to_json() == {"kind": "end", "round": 1, "reason": "deadline"}
    assert game.stop("deadline") == []  # idempotent
    verify(game.replay_document(outcome.log, frames=True))


async def test_the_reserve_is_two_seconds_for_scripted_seats_and_70_with_others() -> None:
    # budget 0.1 x 600 = 60 s: a 70 s reserve does not fit even round 0; 2 s always does.
    scripted = make_game(seed=7, episode_timeout_s=600, play_budget_fraction=0.1)
    outcome = await run_episode(scripted, scripted_seats(scripted), clock=FakeClock())
    assert (outcome.results["rounds"], outcome.results["reason"]) == (14, "complete")

    mixed = make_game(seed=7, episode_timeout_s=600, play_budget_fraction=0.1)
    remote = ScriptSeat(lambda t, h: {"move": 0})
    outcome = await run_episode(mixed, seats_with(mixed, {0: remote}), clock=FakeClock())
    results = outcome.results
    assert (results["rounds"], results["reason"]) == (0, "deadline")
    assert results["scores"] == [0.0] * 8 and results["halo"] == [0.5] * 8
    assert remote.hints == []  # no round was opened, nobody was asked
    assert [e.kind for e in outcome.log.events] == ["start", "end"]
    verify(mixed.replay_document(outcome.log))
