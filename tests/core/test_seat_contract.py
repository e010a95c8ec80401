"""The typed seat contract (`core/seat.py`) and the one list of fallback causes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cogleague.core import jsonio
from cogleague.core.episode import play_headless, run_episode
from cogleague.core.errors import SeatUnavailable
from cogleague.core.game import Decision, Turn
from cogleague.core.seat import CAUSES, FallbackCause, Seat, capabilities
from cogleague.seats import ScriptedSeat
from helpers.toygame import Constant, ToyGame


class Broken:
    """A scripted seat whose synchronous answer raises."""

    kind = "scripted"
    name = "broken"

    def decide_now(self, turn: Turn) -> Any:
        raise RuntimeError("baseline bug")

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        raise RuntimeError("baseline bug")


class Listener:
    kind = "remote"
    name = "listener"

    def __init__(self) -> None:
        self.heard: list[Decision] = []
        self.closed = 0

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return {"n": 4}

    def on_decision(self, turn: Turn, decision: Decision) -> None:
        self.heard.append(decision)

    async def aclose(self) -> None:
        self.closed += 1


class NoDecide:
    kind = "remote"
    name = "mute"


class Robot:
    kind = "robot"
    name = "r2"

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return {"n": 1}


def test_causes_are_the_documented_eight() -> None:
    assert CAUSES == ("timeout", "parse", "illegal", "transport", "rate_budget", "disabled",
                      "no_submission", "error")
    assert FallbackCause.ERROR == "error" and hash(FallbackCause.ERROR) == hash("error")
    assert jsonio.dumps({"c": FallbackCause.TIMEOUT}) == jsonio.dumps_reference({"c": "timeout"})


def test_a_raising_scripted_seat_falls_back_with_cause_error() -> None:
    game = ToyGame(seats=2, rounds=2)
    outcome = play_headless(game, [Broken(), ScriptedSeat(Constant(3), "three")])
    broken = [d for step in outcome.log.decisions for d in step.values() if d.is_fallback]
    assert len(broken) == 2
    assert all(d.cause is FallbackCause.ERROR for d in broken)
    logged = json.loads(jsonio.dumps(outcome.log.to_json()))
    causes = {d["cause"] for e in logged if "decisions" in e for d in e["decisions"].values()}
    assert causes == {"error", None}


async def test_optional_hooks_are_bound_and_called() -> None:
    seat = Listener()
    caps = capabilities(seat)
    assert caps.decide_now is None and caps.on_decision is not None and caps.aclose is not None
    assert not caps.scripted and isinstance(seat, Seat)
    await run_episode(ToyGame(seats=2, rounds=3), [seat, ScriptedSeat(Constant(1), "one")])
    assert [d.action for d in seat.heard] == [{"n": 4}] * 3
    assert seat.closed == 1


def test_a_seat_outside_the_contract_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="missing: decide"):
        play_headless(ToyGame(seats=2), [NoDecide(), ScriptedSeat(Constant(1), "one")])
    with pytest.raises(TypeError, match="seat kind must be one of scripted, model, bot, "
                                        "policy, remote, human"):
        play_headless(ToyGame(seats=2), [Robot(), ScriptedSeat(Constant(1), "one")])


def test_unknown_causes_are_rejected_where_they_enter() -> None:
    with pytest.raises(ValueError, match="cause must be one of timeout, parse"):
        SeatUnavailable("sleepy")
    assert SeatUnavailable("disabled").cause is FallbackCause.DISABLED
    with pytest.raises(ValueError, match="decision cause must be one of"):
        Decision.from_json({"action": {}, "source": "fallback", "cause": "unknown"})
    assert Decision.from_json({"action": {}, "source": "fallback", "cause": "parse"}).cause \
        is FallbackCause.PARSE
