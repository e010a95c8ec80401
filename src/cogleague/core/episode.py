"""The one episode runner. It owns time: deadlines, retries, the play budget, pacing.

Every place that plays a game — the CLI, tests, benchmarks, the league, the server, the RL
environments — goes through `run_episode` (async) or `play_headless` (its synchronous face).

Per step the runner asks every seat of the step at once (one seat's several turns in order),
bounds each attempt by the game's decision timeout and the step deadline, retries a failed
attempt once with the game's hint, and gives a seat that still fails the game's fallback
action — that seat alone, with the cause recorded in its `Decision`.

When every seat of a step is scripted, their answers are computed synchronously and nothing
suspends; `play_headless` then drives the coroutine without an event loop, which is what makes
thousands of headless episodes per second possible on the same code path.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cogleague.core.clock import Clock, MonotonicClock
from cogleague.core.errors import IllegalAction, SeatFailed, SeatInputRejected, SeatUnavailable
from cogleague.core.game import Decision, Event, Game, Turn
from cogleague.core.replay import EpisodeLog, LogEntry

Observer = Callable[[LogEntry, Game], Awaitable[None]]
"""Called after every logged operation (the server persists, then broadcasts)."""


@dataclass
class EpisodeOutcome:
    results: dict[str, Any]
    log: EpisodeLog
    faults: list[dict[str, int]] = field(default_factory=list)
    """Per seat, how many of its decisions fell back, by cause (``{"timeout": 2}``)."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """What the runner tells a seat about the attempt it is in (read with `current_attempt()`).

    A seat that does its own waiting (a model seat backing off after HTTP 429) needs to know when
    the runner will cut it off, on the runner's own clock, so it can give up in time instead.
    """

    clock: Clock
    deadline: float  # clock time at which this attempt is cut off
    number: int  # 1 for the first attempt, 2 for the retry


_ATTEMPT: contextvars.ContextVar[Attempt | None] = contextvars.ContextVar("attempt", default=None)


def current_attempt() -> Attempt | None:
    """The attempt the calling seat is answering, or None outside the runner."""
    return _ATTEMPT.get()


class _Timeout(Exception):
    pass


async def _with_timeout(clock: Clock, awaitable: Awaitable[Any], seconds: float) -> Any:
    """Await with a deadline measured on the injected clock."""
    if seconds <= 0:
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        raise _Timeout
    task = asyncio.ensure_future(awaitable)
    if task.done():
        return task.result()
    timer = asyncio.ensure_future(clock.sleep(seconds))
    try:
        done, _ = await asyncio.wait({task, timer}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        timer.cancel()
    if task in done:
        return task.result()
    task.cancel()
    raise _Timeout


class EpisodeRunner:
    def __init__(self, game: Game, seats: Sequence[Any], clock: Clock | None = None,
                 observer: Observer | None = None, pacing: bool = False) -> None:
        if len(seats) != game.num_seats:
            raise ValueError(f"seats must list exactly {game.num_seats} seats (got {len(seats)})")
        self.game = game
        self.seats = list(seats)
        self.clock = clock or MonotonicClock()
        self.observer = observer
        self.pacing = pacing
        self.timing = game.timing()
        self.log = EpisodeLog()
        self.faults: list[dict[str, int]] = [{} for _ in self.seats]
        self.all_scripted = all(getattr(s, "kind", "") == "scripted" for s in self.seats)
        # Optional seat hooks: `on_decision(turn, decision)` hears each final decision (model
        # seats count fallbacks and write transcripts); `aclose()` runs when `run` ends.
        self._decision_hooks = [getattr(s, "on_decision", None) for s in self.seats]
        self._any_decision_hook = any(h is not None for h in self._decision_hooks)
        # Seats that answer synchronously, bound once: `decide_now` per seat, or None.
        self._now = [getattr(s, "decide_now", None) for s in self.seats]
        self._all_now = all(fn is not None for fn in self._now)

    # -- the loop ----------------------------------------------------------------------------
    async def run(self) -> EpisodeOutcome:
        try:
            return await self._run()
        finally:
            for seat in self.seats:
                close = getattr(seat, "aclose", None)
                if close is not None:
                    await close()

    async def _run(self) -> EpisodeOutcome:
        game, timing, clock, observer = self.game, self.timing, self.clock, self.observer
        started = clock.now()
        budget = timing.play_budget_s
        play_deadline = started + budget if budget is not None else math.inf
        reserve = timing.reserve_scripted_s if self.all_scripted else timing.reserve_s
        pace = self.pacing and timing.min_step_s > 0
        hooks = self._any_decision_hook
        # Every seat answers synchronously: each step is collected without a coroutine.
        collect_now = self._collect_now if self._all_now else None
        if not self.log.entries:
            await self._record("start", game.start())
        step_started = clock.now()
        while not game.done:
            if game.between_rounds:
                exempt = timing.first_round_exempt and game.rounds_played == 0
                if not exempt and clock.now() + reserve > play_deadline:
                    await self._record("stop", game.stop("deadline"), reason="deadline")
                    break
                await self._record("open", game.open_round())
                step_started = clock.now()
                continue
            turns = game.pending()
            if not turns:
                raise RuntimeError(f"{game.name}: pending() is empty while the game is running")
            if collect_now is not None:
                decisions = collect_now(turns)
            else:
                decisions = await self._collect(turns, step_started)
            if pace:
                await clock.sleep(step_started + timing.min_step_s - clock.now())
            entry = self._apply(turns, decisions)
            if observer is not None:
                await observer(entry, game)
            if hooks:
                self._tell_seats(turns, decisions)
            step_started = clock.now()
        return EpisodeOutcome(game.results(), self.log, self.faults)

    def _fallback(self, turn: Turn, cause: str | None, attempts: int = 1,
                  timeouts: int = 0) -> Decision:
        """The game's fallback for `turn`, counted against its seat by cause."""
        key = cause or "unknown"
        counts = self.faults[turn.seat]
        counts[key] = counts.get(key, 0) + 1
        return Decision(self.game.fallback(turn), source="fallback", cause=cause,
                        attempts=attempts, timeouts=timeouts)

    def _apply(self, turns: list[Turn], decisions: dict[str, Decision]) -> LogEntry:
        """Settle one step and log it (the caller tells the observer): the logged entry is an
        ``apply``, or a ``stop`` when the game recovers from an unexpected error."""
        game = self.game
        try:
            try:
                events = game.apply(decisions)
            except SeatInputRejected as rejected:
                turn = next(t for t in turns if t.turn_id == rejected.turn_id)
                decisions[turn.turn_id] = self._fallback(turn, "illegal")
                events = game.apply(decisions)  # a second refusal is fatal
        except Exception as exc:
            if not game.recovers_from_errors:
                raise
            detail = f"{type(exc).__name__}: {exc}"
            entry = LogEntry("stop", game.stop("error", detail), None, "error", detail)
        else:
            entry = LogEntry("apply", events, decisions)
        self.log.add(entry)
        return entry

    def _tell_seats(self, turns: list[Turn], decisions: dict[str, Decision]) -> None:
        for turn in turns:
            hook = self._decision_hooks[turn.seat]
            if hook is not None:
                hook(turn, decisions[turn.turn_id])

    async def _record(self, op: str, events: list[Event], *, decisions: dict[str, Decision]
                      | None = None, reason: str | None = None, detail: str | None = None) -> None:
        entry = LogEntry(op, events, decisions, reason, detail)
        self.log.add(entry)
        if self.observer is not None:
            await self.observer(entry, self.game)

    # -- asking seats --------------------------------------------------------------------------
    async def _collect(self, turns: list[Turn], step_started: float) -> dict[str, Decision]:
        decisions: dict[str, Decision] = {}
        by_seat = Game.by_seat(turns)
        asynchronous = []
        for seat_index, seat_turns in by_seat.items():
            seat = self.seats[seat_index]
            decide_now = self._now[seat_index]
            if decide_now is not None:
                for turn in seat_turns:
                    decisions[turn.turn_id] = self._decide_now(decide_now, turn)
            else:
                asynchronous.append(self._ask_in_order(seat, seat_turns, step_started, decisions))
        if asynchronous:
            await asyncio.gather(*asynchronous)
        return {t.turn_id: decisions[t.turn_id] for t in turns}

    def _collect_now(self, turns: list[Turn]) -> dict[str, Decision]:
        """`_collect` when every seat answers synchronously: no grouping, no coroutine. Each
        seat's turns are still asked in their listed order."""
        now, decide = self._now, self._decide_now
        return {t.turn_id: decide(now[t.seat], t) for t in turns}  # type: ignore[arg-type]

    def _decide_now(self, decide: Callable[[Turn], Any], turn: Turn) -> Decision:
        try:
            action = decide(turn)
        except Exception:
            return self._fallback(turn, "error")
        return Decision(action, "scripted")

    async def _ask_in_order(self, seat: Any, turns: list[Turn], step_started: float,
                            out: dict[str, Decision]) -> None:
        for turn in turns:
            out[turn.turn_id] = await self._decide(seat, turn, step_started)

    async def _decide(self, seat: Any, turn: Turn, step_started: float) -> Decision:
        game, timing, clock = self.game, self.timing, self.clock
        hint: str | None = None
        cause: str | None = None
        timeouts = 0
        attempts = 0
        for _ in range(1 + timing.retries):
            attempts += 1
            timeout = timing.decision_timeout_s
            if timing.step_deadline_s is not None:
                timeout = min(timeout, step_started + timing.step_deadline_s - clock.now())
            token = _ATTEMPT.set(Attempt(clock, clock.now() + timeout, attempts))
            try:
                raw = await _with_timeout(clock, seat.decide(turn, hint), timeout)
            except _Timeout:
                timeouts += 1
                cause = "timeout"
                hint = "no reply arrived before the deadline; answer faster"
                continue
            except SeatUnavailable as unavailable:
                cause = unavailable.cause
                break
            except SeatFailed as failed:  # the seat's own program raised: its fault, retried
                cause = failed.cause
                hint = f"your program raised {failed.detail.splitlines()[0]}"
                continue
            except asyncio.CancelledError:
                raise
            except Exception:
                cause = "transport"
                continue
            finally:
                _ATTEMPT.reset(token)
            try:
                parsed = game.parse(turn, raw)
            except IllegalAction as illegal:
                cause = "parse" if illegal.code in ("parse", "bad_frame") else "illegal"
                hint = illegal.hint
                continue
            return Decision(parsed.action, source="seat", attempts=attempts, timeouts=timeouts,
                            clamped=parsed.clamped)
        return self._fallback(turn, cause, attempts, timeouts)


async def run_episode(game: Game, seats: Sequence[Any], *, clock: Clock | None = None,
                      observer: Observer | None = None, pacing: bool = False) -> EpisodeOutcome:
    """Play one episode to its end and return the results and the full log."""
    return await EpisodeRunner(game, seats, clock, observer, pacing).run()


def play_headless(game: Game, seats: Sequence[Any], *, observer: Observer | None = None,
                  clock: Clock | None = None) -> EpisodeOutcome:
    """Synchronous `run_episode`. With scripted seats only, no event loop is created at all."""
    runner = EpisodeRunner(game, seats, clock, observer)
    if runner.all_scripted and observer is None:
        coro = runner.run()
        try:
            coro.send(None)
        except StopIteration as finished:
            return finished.value  # type: ignore[no-any-return]
        coro.close()
        raise RuntimeError("a scripted-only episode suspended; use run_episode in an event loop")
    return asyncio.run(runner.run())

