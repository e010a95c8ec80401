"""The episode runner with a fake clock: concurrency, retries, fallbacks, deadlines."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cogleague.core.clock import FakeClock
from cogleague.core.episode import play_headless, run_episode
from cogleague.core.errors import SeatUnavailable
from cogleague.core.game import Timing, Turn
from cogleague.core.replay import replay_entries
from cogleague.seats import ScriptedSeat
from helpers.toygame import ToyGame


class SlowSeat:
    """Answers `n` after `delay` seconds of (fake) clock time."""

    kind = "remote"

    def __init__(self, clock: FakeClock, delay: float, n: int = 1, name: str = "slow") -> None:
        self.clock, self.delay, self.n, self.name = clock, delay, n, name
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight_seen = 0

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        self.calls += 1
        await self.clock.sleep(self.delay)
        return {"n": self.n}


class Tracker:
    def __init__(self) -> None:
        self.now = 0
        self.peak = 0


class TrackedSeat:
    kind = "remote"
    name = "tracked"

    def __init__(self, clock: FakeClock, tracker: Tracker) -> None:
        self.clock, self.tracker = clock, tracker

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        self.tracker.now += 1
        self.tracker.peak = max(self.tracker.peak, self.tracker.now)
        await self.clock.sleep(1.0)
        self.tracker.now -= 1
        return {"n": 2}


class RaisingSeat:
    kind = "remote"
    name = "raiser"

    def __init__(self) -> None:
        self.calls = 0

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        self.calls += 1
        raise ConnectionError("gone")


class GarbageThenGood:
    kind = "model"
    name = "garbage"

    def __init__(self) -> None:
        self.hints: list[str | None] = []

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        self.hints.append(hint)
        return {"n": 7} if hint else "not json"


class Unavailable:
    kind = "model"
    name = "off"

    def __init__(self) -> None:
        self.calls = 0

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        self.calls += 1
        raise SeatUnavailable("disabled")


async def test_eight_one_second_seats_settle_a_round_in_one_second() -> None:
    clock = FakeClock()
    tracker = Tracker()
    game = ToyGame(seats=8, rounds=1)
    seats = [TrackedSeat(clock, tracker) for _ in range(8)]
    outcome = await run_episode(game, seats, clock=clock)
    assert clock.now() == pytest.approx(1.0)
    assert tracker.peak == 8
    assert outcome.results["scores"] == [2] * 8


async def test_a_raising_seat_falls_back_alone_and_is_retried_once() -> None:
    clock = FakeClock()
    game = ToyGame(seats=3, rounds=2)
    raiser = RaisingSeat()
    seats = [ScriptedSeat(game.make_baseline("const3", 0), "c3"), raiser,
             SlowSeat(clock, 0.5, n=4)]
    outcome = await run_episode(game, seats, clock=clock)
    assert raiser.calls == 4  # two rounds x (attempt + one retry)
    assert outcome.results["scores"] == [6, 0, 8]
    for step in outcome.log.decisions:
        d = step["r0s0p1"] if "r0s0p1" in step else step["r1s0p1"]
        assert d.source == "fallback" and d.cause == "transport" and d.attempts == 2
        others = [v for k, v in step.items() if not k.endswith("p1")]
        assert all(o.source != "fallback" for o in others)


async def test_a_timed_out_seat_falls_back_with_its_timeouts_counted() -> None:
    clock = FakeClock()
    game = ToyGame(seats=2, rounds=1, timing=Timing(decision_timeout_s=2.0, retries=1))
    seats = [SlowSeat(clock, 10.0, n=5), SlowSeat(clock, 1.0, n=3)]
    outcome = await run_episode(game, seats, clock=clock)
    d0 = outcome.log.decisions[0]["r0s0p0"]
    assert (d0.source, d0.cause, d0.timeouts, d0.attempts) == ("fallback", "timeout", 2, 2)
    assert outcome.results["scores"] == [0, 3]
    assert clock.now() == pytest.approx(4.0)  # two 2-second attempts


async def test_retry_carries_the_games_hint() -> None:
    game = ToyGame(seats=1, rounds=1)
    seat = GarbageThenGood()
    outcome = await run_episode(game, [seat], clock=FakeClock())
    assert seat.hints == [None, 'reply {"n": 0..9}']
    d = outcome.log.decisions[0]["r0s0p0"]
    assert (d.source, d.attempts, d.action) == ("seat", 2, {"n": 7})


async def test_unavailable_seat_falls_back_at_once_without_retry() -> None:
    game = ToyGame(seats=1, rounds=2)
    seat = Unavailable()
    outcome = await run_episode(game, [seat], clock=FakeClock())
    assert seat.calls == 2
    assert all(step[f"r{i}s0p0"].cause == "disabled"
               for i, step in enumerate(outcome.log.decisions))


async def test_step_deadline_bounds_every_attempt() -> None:
    clock = FakeClock()
    timing = Timing(decision_timeout_s=8.0, retries=1, step_deadline_s=10.0)
    game = ToyGame(seats=1, rounds=1, timing=timing)
    await run_episode(game, [SlowSeat(clock, 100.0)], clock=clock)
    assert clock.now() == pytest.approx(10.0)  # 8 s, then only 2 s left for the retry


async def test_deadline_stops_between_rounds() -> None:
    clock = FakeClock()
    timing = Timing(decision_timeout_s=5.0, play_budget_s=25.0, reserve_s=12.0)
    game = ToyGame(seats=2, rounds=10, timing=timing)
    outcome = await run_episode(game, [SlowSeat(clock, 5.0), SlowSeat(clock, 5.0)], clock=clock)
    # rounds start at t=0, 5, 10 (10 + 12 <= 25); t=15 + 12 > 25 stops.
    assert outcome.results == {"scores": [3, 3], "rounds": 3, "reason": "deadline"}
    assert outcome.log.entries[-1].op == "stop"


async def test_first_round_exempt_plays_round_zero_even_past_budget() -> None:
    clock = FakeClock()
    timing = Timing(decision_timeout_s=5.0, play_budget_s=1.0, reserve_s=20.0,
                    first_round_exempt=True)
    game = ToyGame(seats=1, rounds=5, timing=timing)
    outcome = await run_episode(game, [SlowSeat(clock, 1.0)], clock=clock)
    assert outcome.results["rounds"] == 1 and outcome.results["reason"] == "deadline"


def test_scripted_only_runs_without_an_event_loop() -> None:
    game = ToyGame(seats=3, rounds=4, two_steps=True)
    seats = [ScriptedSeat(game.make_baseline(f"const{i + 1}", i), f"c{i}") for i in range(3)]
    outcome = play_headless(game, seats)
    assert outcome.results["scores"] == [4, 8, 12]
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()  # proves no loop was left running


def test_rejected_seat_input_falls_back_for_that_seat_only() -> None:
    game = ToyGame(seats=3, rounds=1, reject_seat=1)
    seats = [ScriptedSeat(game.make_baseline("const5", i), "c5") for i in range(3)]
    outcome = play_headless(game, seats)
    assert outcome.results["scores"] == [5, 0, 5]
    d = outcome.log.decisions[0]["r0s0p1"]
    assert (d.source, d.cause) == ("fallback", "illegal")


class StepSeat:
    """A scripted seat that answers a whole step at once (`decide_step`), from contexts."""

    kind = "scripted"
    name = "stepper"

    def __init__(self, n: int, answers: int | None = None, fail: bool = False) -> None:
        self.n, self.answers, self.fail = n, answers, fail
        self.calls: list[int] = []

    def decide_now(self, turn: Turn) -> Any:
        raise AssertionError("a seat answering whole steps is never asked turn by turn")

    def decide_step(self, contexts: Any) -> list[Any]:
        self.calls.append(len(contexts))
        if self.fail:
            raise RuntimeError("broken baseline")
        return [{"n": self.n}] * (len(contexts) if self.answers is None else self.answers)


def test_a_step_seat_answers_in_one_call_and_its_failures_fall_back() -> None:
    """Every seat answers its turns of a step in one call; one that raises or answers a
    different number of turns gets the fallback (cause error) on each of them, alone."""
    game = ToyGame(seats=3, rounds=2)
    seats = [StepSeat(4), StepSeat(7, fail=True), StepSeat(9, answers=2)]
    outcome = play_headless(game, seats)
    assert [s.calls for s in seats] == [[1, 1]] * 3
    assert outcome.results["scores"] == [8, 0, 0]
    assert outcome.faults == [{}, {"error": 2}, {"error": 2}]
    d = outcome.log.decisions[0]
    assert (d["r0s0p0"].source, d["r0s0p1"].cause, d["r0s0p2"].cause) == (
        "scripted", "error", "error")


def test_log_replays_to_the_same_results() -> None:
    game = ToyGame(seats=3, rounds=3, two_steps=True)
    seats = [ScriptedSeat(game.make_baseline(f"const{i + 2}", i), "c") for i in range(3)]
    outcome = play_headless(game, seats)
    rebuilt = ToyGame(seats=3, rounds=3, two_steps=True)
    replay_entries(rebuilt, outcome.log.to_json())
    assert rebuilt.results() == outcome.results
    assert [e.to_json() for e in outcome.log.events] == [
        e.to_json() for e in replay_entries(ToyGame(3, 3, two_steps=True),
                                            outcome.log.to_json()).events]


def test_event_views_hide_private_events_and_restricted_fields() -> None:
    from cogleague.core.game import Event

    meeting = Event("meeting", {"a": 1, "b": 2, "memoA": "plan", "memoB": "x"},
                    restricted={"memoA": (1,), "memoB": (2,)})
    assert meeting.view_for(1) == {"kind": "meeting", "a": 1, "b": 2, "memoA": "plan"}
    assert meeting.view_for(3) == {"kind": "meeting", "a": 1, "b": 2}
    assert meeting.view_for(None) == {"kind": "meeting", "a": 1, "b": 2}
    private = Event("action_private", {"choice": "C"}, audience=(0,))
    assert private.view_for(0) == {"kind": "action_private", "choice": "C"}
    assert private.view_for(1) is None and private.view_for(None) is None
    spectators_only = Event("note", {"t": 1}, audience=())
    assert spectators_only.view_for(0) is None and spectators_only.view_for(None) is None


def test_first_difference_names_the_path() -> None:
    from cogleague.core.jsonio import first_difference

    recorded = {"a": 1, "b": {"c": [1, 2, 3]}, "d": 0}
    assert first_difference(recorded, {"a": 1, "b": {"c": [1, 9, 3]}, "d": 0}) == \
        "$.b.c[1]: recorded 2, re-derived 9"
    assert first_difference(recorded, {"a": 1, "b": {"c": [1, 2]}, "d": 0}) == \
        "$.b.c: 3 items recorded, 2 re-derived"
    assert "present only in the recorded" in first_difference(recorded, {"a": 1, "b": {}})
    # with sorted keys, key order alone is no difference
    assert first_difference({"x": {"p": 1, "q": 2}, "y": 1}, {"x": {"q": 2, "p": 1}, "y": 2},
                            sort_keys=True) == "$.y: recorded 1, re-derived 2"


def test_first_object_reads_the_first_balanced_span() -> None:
    from cogleague.core.text import first_object, first_object_span

    assert first_object('Sure! ```json\n{"a": "}{", "b": {"c": 1}}\n``` then {"z": 2}') == \
        {"a": "}{", "b": {"c": 1}}
    assert first_object_span("no braces") is None
    assert first_object("{not json}") is None and first_object("[1]") is None
    assert first_object('x {not json} {"action": "cooperate"}') == {"action": "cooperate"}
    assert first_object_span('x {not json} {"a": 1}') == "{not json}"


# -- the real clock: a deadline is one `call_later`, the attempt's future is awaited directly --

class FutureSeat:
    """A remote-like seat: `decide` returns a plain future; `answer` resolves it (or not)."""

    kind = "remote"
    name = "future"

    def __init__(self, answer: Any = None, later: bool = False) -> None:
        self.answer, self.later = answer, later
        self.futures: list[asyncio.Future[Any]] = []

    def decide(self, turn: Turn, hint: str | None) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.futures.append(fut)
        if self.answer is not None:
            if self.later:
                asyncio.get_running_loop().call_soon(fut.set_result, self.answer)
            else:
                fut.set_result(self.answer)
        return fut


async def test_real_clock_deadline_cancels_the_attempt_and_falls_back() -> None:
    game = ToyGame(seats=2, rounds=1, timing=Timing(decision_timeout_s=0.05, retries=1))
    silent, quick = FutureSeat(), FutureSeat({"n": 4}, later=True)
    outcome = await run_episode(game, [silent, quick])
    d0, d1 = outcome.log.decisions[0]["r0s0p0"], outcome.log.decisions[0]["r0s0p1"]
    assert (d0.source, d0.cause, d0.timeouts, d0.attempts) == ("fallback", "timeout", 2, 2)
    assert len(silent.futures) == 2 and all(f.cancelled() for f in silent.futures)
    assert (d1.source, d1.action) == ("seat", {"n": 4})
    assert outcome.results["scores"] == [0, 4]


async def test_real_clock_answer_in_before_the_deadline_wins_and_leaves_no_timer() -> None:
    game = ToyGame(seats=1, rounds=3, timing=Timing(decision_timeout_s=30.0, retries=0))
    loop = asyncio.get_running_loop()
    before = len(loop._scheduled)  # type: ignore[attr-defined]
    outcome = await run_episode(game, [FutureSeat({"n": 2}, later=True)])
    assert outcome.results["scores"] == [6]
    assert all(d[f"r{i}s0p0"].timeouts == 0 for i, d in enumerate(outcome.log.decisions))
    # every deadline handle was cancelled when its answer came (none waits out its 30 s)
    assert all(h.cancelled() for h in loop._scheduled[before:])  # type: ignore[attr-defined]


async def test_cancelling_the_runner_is_not_a_timeout() -> None:
    """Stopping the table (its task cancelled) propagates; the open attempt is cancelled too
    (a remote turn expires) and nothing falls back."""
    seat = FutureSeat()
    game = ToyGame(seats=1, rounds=1, timing=Timing(decision_timeout_s=30.0, retries=1))
    task = asyncio.create_task(run_episode(game, [seat]))
    while not seat.futures:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(seat.futures) == 1 and seat.futures[0].cancelled()


async def test_cancel_arriving_with_the_deadline_still_propagates() -> None:
    """The deadline fires and the runner is cancelled in the same loop pass: the runner's
    cancellation wins over the timeout (the episode does not go on)."""
    seat = FutureSeat()
    game = ToyGame(seats=1, rounds=1, timing=Timing(decision_timeout_s=0.02, retries=1))
    task = asyncio.create_task(run_episode(game, [seat]))
    while not seat.futures:
        await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    loop.call_later(0.02, task.cancel)
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(seat.futures) <= 2


class SyncRaising:
    """`decide` raises before returning an awaitable."""

    kind = "model"
    name = "sync-raise"

    def __init__(self, exc: Exception) -> None:
        self.exc, self.calls = exc, 0

    def decide(self, turn: Turn, hint: str | None) -> Any:
        self.calls += 1
        raise self.exc


@pytest.mark.parametrize("fake", [True, False])
async def test_decide_raising_synchronously_is_handled_like_an_awaited_error(fake: bool) -> None:
    clock = FakeClock() if fake else None
    game = ToyGame(seats=2, rounds=1)
    down, broken = SyncRaising(SeatUnavailable("disabled")), SyncRaising(ConnectionError("x"))
    outcome = await run_episode(game, [down, broken], clock=clock)
    step = outcome.log.decisions[0]
    assert (down.calls, step["r0s0p0"].cause) == (1, "disabled")  # no retry
    assert (broken.calls, step["r0s0p1"].cause) == (2, "transport")  # retried once


class AttemptReader:
    kind = "model"
    name = "reader"

    def __init__(self) -> None:
        self.seen: list[tuple[int, float]] = []

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        from cogleague.core.episode import current_attempt
        await asyncio.sleep(0)
        attempt = current_attempt()
        assert attempt is not None
        self.seen.append((attempt.number, attempt.deadline - attempt.clock.now()))
        return "junk" if attempt.number == 1 else {"n": 1}


@pytest.mark.parametrize("fake", [True, False])
async def test_a_coroutine_seat_reads_its_attempt_when_started_ahead(fake: bool) -> None:
    """First attempts start before the step's coroutines run: the seat's coroutine still
    sees its own attempt (number, deadline) through `current_attempt()`."""
    game = ToyGame(seats=2, rounds=1, timing=Timing(decision_timeout_s=5.0, retries=1))
    a, b = AttemptReader(), AttemptReader()
    outcome = await run_episode(game, [a, b], clock=FakeClock() if fake else None)
    for seat in (a, b):
        assert [n for n, _ in seat.seen] == [1, 2]
        assert all(0 < left <= 5.0 for _, left in seat.seen)
    assert outcome.results["scores"] == [1, 1]
