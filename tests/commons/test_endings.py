"""End reasons (rules §12), fallbacks and model-seat bookkeeping, on the one runner."""

from __future__ import annotations

import types
from typing import Any

import pytest

from cogleague.core import jsonio
from cogleague.core.clock import FakeClock
from cogleague.core.episode import play_headless, run_episode
from cogleague.core.errors import SeatUnavailable
from cogleague.core.game import Turn
from cogleague.core.replay import EpisodeLog, LogEntry
from cogleague.core.verify import verify_replay
from cogleague.games.commons import make_game
from cogleague.games.commons.descriptor import GAME
from cogleague.games.commons.modules import cleanup
from cogleague.seats.factory import make_seats

from .support import remote_game, step


def verify(doc: Any) -> Any:
    """The one verifier (core/verify.py) with this game's descriptor."""
    return verify_replay(doc, GAME)

ONE_ONE = {"harvest": 1, "clean": 1}


class SlowPlayer:
    """A remote player answering h:1 c:1 after `delay` seconds of fake time."""

    kind = "remote"
    name = "slow"

    def __init__(self, clock: FakeClock, delay: float) -> None:
        self.clock, self.delay = clock, delay

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        await self.clock.sleep(self.delay)
        return dict(ONE_ONE)


class ModelSeat:
    """A stand-in model seat replying with fixed texts, or unavailable."""

    kind = "model"
    name = "llm"

    def __init__(self, replies: list[str] | None) -> None:
        self.replies = replies
        self.calls = 0

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        self.calls += 1
        if self.replies is None:
            raise SeatUnavailable("disabled")
        return self.replies[(self.calls - 1) % len(self.replies)]


async def _run(delay: float, rounds: int = 20) -> tuple[Any, Any]:
    clock = FakeClock()
    game = make_game("cleanup", {"rounds": rounds, "episode_timeout_seconds": 60,
                                 "decision_timeout_seconds": 20}, None, ["remote"] * 6)
    outcome = await run_episode(game, [SlowPlayer(clock, delay) for _ in range(6)], clock=clock)
    return game, outcome


async def test_a_tiny_play_budget_stops_between_rounds_and_keeps_the_scores() -> None:
    _game, outcome = await _run(10.0)  # budget 36 s, reserve 20 s: rounds at t = 0 and 10
    r = outcome.results
    assert 1 <= r["rounds"] <= 19 and r["rounds"] == 2 and r["reason"] == "deadline"
    assert r["scores"] == [2.0] * 6 and r["error"] is None
    deadline = [e for e in outcome.log.events if e.kind == "deadline"]
    assert [e.data for e in deadline] == [{"r": 2, "cause": "deadline"}]
    assert outcome.log.entries[-1].op == "stop"


async def test_a_one_round_budget_plays_exactly_one_round() -> None:
    _, outcome = await _run(19.0)
    assert outcome.results["rounds"] == 1 and outcome.results["reason"] == "deadline"
    assert outcome.results["scores"] == [1.0] * 6


async def test_timeouts_fall_back_to_steward_and_are_counted() -> None:
    clock = FakeClock()
    game = make_game("cleanup", {"rounds": 2}, None, ["remote"] + ["steward"] * 5)
    seats = [SlowPlayer(clock, 100.0), *make_seats(game, ["steward"] * 6)[1:]]
    outcome = await run_episode(game, seats, clock=clock)
    assert outcome.results["fallbacks"] == [2, 0, 0, 0, 0, 0]
    fallback_events = [e.data for e in outcome.log.events if e.kind == "fallback"]
    assert [(e["slot"], e["cause"]) for e in fallback_events] == [(0, "timeout")] * 2
    rec = game.records[0]["decisions"]
    assert rec[0]["src"] == "fallback:timeout" and rec[1]["src"] == "scripted:steward"
    steward_plays = {k: rec[1][k] for k in ("harvest", "clean")}
    assert {k: rec[0][k] for k in ("harvest", "clean")} == steward_plays


def test_model_seats_without_a_model_fall_back_and_send_no_request() -> None:
    game = make_game("cleanup", {"rounds": 3}, None, ["llm"] + ["steward"] * 5)
    seats = [ModelSeat(None), *make_seats(game, ["steward"] * 6)[1:]]
    import asyncio

    outcome = asyncio.run(run_episode(game, seats, clock=FakeClock()))
    r = outcome.results
    assert r["fallbacks"] == [3, 0, 0, 0, 0, 0] and r["llm_requests"] == [0] * 6
    assert game.records[0]["decisions"][0]["src"] == "fallback:disabled"


async def test_model_replies_are_parsed_retried_once_and_counted() -> None:
    game = make_game("cleanup", {"rounds": 2}, None, ["llm", "llm"] + ["steward"] * 4)
    good = ModelSeat(['I will take one. {"harvest": 1, "clean": 2}'])
    bad = ModelSeat(["no idea"])
    seats = [good, bad, *make_seats(game, ["steward"] * 6)[2:]]
    outcome = await run_episode(game, seats, clock=FakeClock())
    r = outcome.results
    assert r["llm_requests"][:2] == [2, 4]  # one per round; bad: attempt + retry per round
    assert r["fallbacks"][:2] == [0, 2]
    decisions = game.records[1]["decisions"]
    assert decisions[0]["src"] == "llm"
    assert (decisions[0]["harvest"], decisions[0]["clean"]) == (1, 2)
    assert decisions[1]["src"] == "fallback:parse"


def test_an_error_in_a_round_discards_it_and_ends_as_deadline() -> None:
    game = make_game("cleanup", {}, None, ["steward"] * 6)

    def dynamics(state: Any, moves: Any, r: int) -> Any:
        if r == 3:
            raise RuntimeError("boom")
        return cleanup.dynamics(state, moves, r)

    game.module = types.SimpleNamespace(**{k: getattr(cleanup, k) for k in dir(cleanup)
                                           if not k.startswith("__")})
    game.module.dynamics = dynamics
    outcome = play_headless(game, make_seats(game, ["steward"] * 6))
    r = outcome.results
    assert r["reason"] == "deadline" and r["rounds"] == 3
    assert r["error"] == "RuntimeError: boom"
    assert r["scores"] == [round(x, 3) for x in game.records[2]["scores"]]
    assert game.state.to_json() == game.records[2]["state_after"]
    assert [e.data for e in outcome.log.events if e.kind == "deadline"] == [
        {"r": 3, "cause": "error"}]
    game.module = cleanup
    verify(game.replay_document(outcome.log))


def test_no_players_is_zero_rounds_zero_scores_and_everyone_flagged() -> None:
    game = remote_game("cleanup")
    events = game.start() + game.stop("no_players")
    r = game.results()
    assert (r["reason"], r["rounds"], r["scores"]) == ("no_players", 0, [0.0] * 6)
    assert r["disconnected"] == [True] * 6 and r["welfare"] == 60.0
    assert game.stop("deadline") == []  # idempotent
    doc = game.replay_document(EpisodeLog([LogEntry("start", events[:1]),
                                           LogEntry("stop", events[1:], reason="no_players")]))
    verify(doc)
    assert jsonio.dumps(doc, sort_keys=True)


def test_absent_seats_pass_and_are_flagged() -> None:
    game = remote_game("harvest-partnership")
    events = step(game, [None, {"patch": 0, "harvest": 1}] + [None] * 4)
    assert [e.data["slot"] for e in events if e.kind == "no_submission"] == [0, 2, 3, 4, 5]
    rec = game.records[0]["decisions"]
    assert rec[0]["src"] == "pass" and rec[0]["patch"] is None and rec[1]["src"] == "player"
    assert game.disconnected == [True, False, True, True, True, True]
    assert game.records[0]["seat_public_effort"][0] == 0


def test_apply_is_transactional_and_phases_are_enforced() -> None:
    from cogleague.core.errors import GameStateError

    game = remote_game("cleanup")
    with pytest.raises(GameStateError):
        game.open_round()
    game.start()
    with pytest.raises(GameStateError):
        game.apply({})
    game.open_round()
    before = (game.state.to_json(), list(game.scores), dict(game.notes))
    from cogleague.core.game import Decision

    with pytest.raises(AttributeError):
        game.apply({"r0s0": Decision(ONE_ONE), "r0s1": Decision(None)})  # type: ignore[arg-type]
    assert (game.state.to_json(), list(game.scores), dict(game.notes)) == before
    assert game.phase == "open"
