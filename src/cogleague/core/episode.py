"""The one episode runner. It owns time: deadlines, retries, the play budget, pacing.

Every place that plays a game — the CLI, tests, benchmarks, the league, the server, the RL
environments — goes through `run_episode` (async) or `play_headless` (its synchronous face).

Per step the runner asks every seat of the step at once (one seat's several turns in order),
bounds each attempt by the game's decision timeout and the step deadline, retries a failed
attempt once with the game's hint, and gives a seat that still fails the game's fallback
action — that seat alone, with the cause recorded in its `Decision`.

One path plays every step: the game's `step()` gives the turns as columns grouped by seat; a
seat that answers a whole step at once (`decide_step`) gets one call with its turns' contexts,
a seat that answers synchronously (`decide_now`) is asked turn by turn, and every other seat is
asked concurrently, under deadlines. The answers are logged as `StepDecisions` columns and the
game's events as it returned them (a renderer is built only when the log is read), so a
headless episode whose log nobody reads never builds a `Turn`, a `Decision` or an `Event` it
does not need. When every seat is scripted nothing suspends: `play_headless` then drives the
coroutine without an event loop. Observers, decision hooks and pacing watch the same path.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cogleague.core.clock import Clock, MonotonicClock
from cogleague.core.connect import ConnectWait, anyone_came
from cogleague.core.errors import IllegalAction, SeatFailed, SeatInputRejected, SeatUnavailable
from cogleague.core.game import (
    Action,
    Decision,
    Event,
    Events,
    Game,
    Step,
    StepDecisions,
    Turn,
)
from cogleague.core.replay import EpisodeLog, LogEntry
from cogleague.core.seat import FallbackCause, Seat, capabilities
from cogleague.core.text import cut_with_ellipsis

PARSE_CODES = ("parse", "bad_frame")
"""`IllegalAction` codes recorded as ``parse`` (any other code is ``illegal``)."""

Observer = Callable[[LogEntry, Game], Awaitable[None]]
"""Called after every logged operation (the server persists, then broadcasts)."""

WRONG_SHAPE = "wrong_shape"
"""The fault counted for a reply of the wrong shape read as the rules' default
(`Parsed.reason`); not a fallback cause: the decision is the seat's own, as read."""
MAX_UNAVAILABLE_CHARS = 200
"""How much of an unavailable seat's words (a transport error's message) the results keep."""
PLATFORM_REASONS = (FallbackCause.TRANSPORT, FallbackCause.DISABLED, FallbackCause.RATE_BUDGET)
"""The causes whose words come from the seat's exception, not the game: kept in the outcome
(the results' faults, the console line), never in the replay's decisions (a connection's words
may differ between runs; a replay must re-derive the same bytes)."""


@dataclass
class EpisodeOutcome:
    results: dict[str, Any]
    log: EpisodeLog
    faults: list[dict[str, int]] = field(default_factory=list)
    """Per seat, how many of its decisions fell back, by cause (``{"timeout": 2}``)."""
    reasons: list[dict[str, str]] = field(default_factory=list)
    """Per seat, the first refusal's reason by cause (``{"illegal": "action must be …"}``);
    under ``timeout``, why the attempt that ran out of time was a retry (`_retry_timed_out`)."""


@dataclass(slots=True)
class Attempt:
    """What the runner tells a seat about the attempt it is in (read with `current_attempt()`).

    A seat that does its own waiting (a model seat backing off after HTTP 429) needs to know when
    the runner will cut it off, on the runner's own clock, so it can give up in time instead.
    """

    clock: Clock
    deadline: float  # clock time at which this attempt is cut off
    number: int  # 1 for the first attempt, 2 for the retry
    refused: str | None = None
    """Set by a seat that asks again itself within this attempt (the dilemma's model seat):
    ``parse: <the refusal's words>``. If the attempt is then cut off, the timeout's reason in
    the results says the retry of a refused reply ran out of time (the seat's own field)."""


_ATTEMPT: contextvars.ContextVar[Attempt | None] = contextvars.ContextVar("attempt", default=None)


def current_attempt() -> Attempt | None:
    """The attempt the calling seat is answering, or None outside the runner."""
    return _ATTEMPT.get()


class _Timeout(Exception):
    pass


_Started = tuple[float, Any, Attempt]
"""One attempt as `EpisodeRunner._start` began it: (its timeout, a future, `_TIMED_OUT` or
the exception the seat's `decide` raised, and the `Attempt` the seat was told)."""


def _retry_timed_out(refused: str) -> str:
    """The results' reason for a ``timeout`` that cut off the retry of a refused reply
    (``refused``: ``parse: <the refusal's words>``): an author learns the first answer was
    unusable, not only that the seat was slow."""
    cause, _, words = refused.partition(": ")
    return f"its retry of a reply refused as {cause} ({words}) ran out of time"


_TIMED_OUT: Any = object()
"""What `EpisodeRunner._start` gives for an attempt that has no time left (never started)."""


async def _wait(clock: Clock, future: asyncio.Future[Any], seconds: float) -> Any:
    """Await a started attempt (a future, or the task of a seat's coroutine) for at most
    `seconds` on `clock`; on the deadline the attempt is cancelled (a remote seat's turn is
    then expired) and `_Timeout` raised. An answer that is in when the deadline passes wins.

    On the real clock the deadline is one `call_later` handle and the future is awaited
    directly; other clocks (the tests' `FakeClock`) race it against `clock.sleep`."""
    if future.done():
        return future.result()
    if type(clock) is MonotonicClock and math.isfinite(seconds):
        expired = False

        def expire() -> None:
            nonlocal expired
            if not future.done():
                expired = True
                future.cancel()

        handle = asyncio.get_running_loop().call_later(seconds, expire)
        try:
            return await future
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if expired and (task is None or not task.cancelling()):
                raise _Timeout from None
            raise  # the runner itself was cancelled (the table stopped): so is the attempt
        finally:
            handle.cancel()
    timer = asyncio.ensure_future(clock.sleep(seconds))
    try:
        done, _ = await asyncio.wait({future, timer}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        timer.cancel()
    if future in done:
        return future.result()
    future.cancel()
    raise _Timeout


class EpisodeRunner:
    def __init__(self, game: Game, seats: Sequence[Seat], clock: Clock | None = None,
                 observer: Observer | None = None, pacing: bool = False,
                 elapsed_s: float = 0.0, connect: ConnectWait | None = None) -> None:
        if len(seats) != game.num_seats:
            raise ValueError(f"seats must list exactly {game.num_seats} seats (got {len(seats)})")
        self.game = game
        self.seats = list(seats)
        self.clock = clock or MonotonicClock()
        self.observer = observer
        self.pacing = pacing
        self.elapsed_s = elapsed_s
        """Play time already spent before this run (a resumed table): the play budget counts
        it, so a restart or a take-over does not start the budget again."""
        self.connect = connect
        """The game's connect timeout, when a host seats programs that must connect
        (`core/connect.py`): checked after the start, before the first round (again on a
        resume whose log holds the start only: the seats have to come back)."""
        self.timing = game.timing()
        self.log = EpisodeLog()
        self.faults: list[dict[str, int]] = [{} for _ in self.seats]
        self.reasons: list[dict[str, str]] = [{} for _ in self.seats]
        # The seat contract (`core/seat.py`), checked and bound once per seat.
        caps = [capabilities(s) for s in self.seats]
        self.all_scripted = all(c.scripted for c in caps)
        self._decision_hooks = [c.on_decision for c in caps]
        self._any_decision_hook = any(h is not None for h in self._decision_hooks)
        self._closers = [c.aclose for c in caps if c.aclose is not None]
        self._now = [c.decide_now for c in caps]
        self._steps = [c.decide_step for c in caps]

    # -- the loop ----------------------------------------------------------------------------
    async def run(self) -> EpisodeOutcome:
        try:
            return await self._run()
        finally:
            for close in self._closers:
                await close()

    async def _run(self) -> EpisodeOutcome:
        game, timing, clock, observer = self.game, self.timing, self.clock, self.observer
        started = clock.now() - self.elapsed_s
        budget = timing.play_budget_s
        play_deadline = started + budget if budget is not None else math.inf
        reserve = timing.reserve_scripted_s if self.all_scripted else timing.reserve_s
        pace = self.pacing and timing.min_step_s > 0
        hooks = self._any_decision_hook
        if not self.log.entries:
            await self._record("start", game.start())
        if self.connect is not None and len(self.log.entries) == 1:  # started, nothing played
            await self._nobody_came(self.connect)
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
            step = game.step()
            if not len(step):
                raise RuntimeError(f"{game.name}: step() is empty while the game is running")
            decisions = await self._collect(step, step_started)
            if pace:
                await clock.sleep(step_started + timing.min_step_s - clock.now())
            entry = self._apply(step, decisions)
            if observer is not None:
                await observer(entry, game)
            if hooks:
                self._tell_seats(step, decisions)
            step_started = clock.now()
        return EpisodeOutcome(game.results(), self.log, self.faults, self.reasons)

    async def _nobody_came(self, connect: ConnectWait) -> None:
        """Stop the game with the connect timeout's reason if no seat connected in time."""
        if not await anyone_came(self.seats, self.clock, connect.seconds):
            await self._record("stop", self.game.stop(connect.reason), reason=connect.reason)

    def _fallback(self, turn: Turn, cause: FallbackCause | None, attempts: int = 1,
                  timeouts: int = 0, reason: str | None = None,
                  fault_reason: str | None = None) -> Decision:
        """The game's fallback for `turn`, counted against its seat by cause; a refused reply's
        `reason` goes into the decision (the replay) and the seat's first one per cause into
        the outcome (the results' faults, the console line). `fault_reason` goes into the
        outcome only (a replay's decision carries a parse or illegal fallback's reason alone)."""
        key = cause or "unknown"
        counts = self.faults[turn.seat]
        counts[key] = counts.get(key, 0) + 1
        if reason is not None or fault_reason is not None:
            self.reasons[turn.seat].setdefault(key, reason or fault_reason or "")
        return Decision(self.game.fallback(turn), source="fallback", cause=cause,
                        attempts=attempts, timeouts=timeouts, reason=reason)

    def _apply(self, step: Step, decisions: StepDecisions) -> LogEntry:
        """Settle one step and log it (the caller tells the observer): the logged entry is an
        ``apply``, or a ``stop`` when the game recovers from an unexpected error. A decision
        the game refuses (`SeatInputRejected`) becomes the game's fallback and the step is
        applied again; a second refusal is fatal."""
        game = self.game
        try:
            try:
                events = game.apply_step(decisions)
            except SeatInputRejected as rejected:
                i = step.turn_ids().index(rejected.turn_id)
                d = self._fallback(step.turns()[i], FallbackCause.ILLEGAL,
                                   reason=str(rejected))
                decisions.replace(i, d)
                events = game.apply_step(decisions)
        except Exception as exc:
            if not game.recovers_from_errors:
                raise
            detail = f"{type(exc).__name__}: {exc}"
            entry = LogEntry("stop", game.stop("error", detail), None, "error", detail)
        else:
            entry = _applied(events, decisions)
        self.log.add(entry)
        return entry

    def _tell_seats(self, step: Step, decisions: StepDecisions) -> None:
        final = decisions.materialize()
        for turn in step.turns():
            hook = self._decision_hooks[turn.seat]
            if hook is not None:
                hook(turn, final[turn.turn_id])

    async def _record(self, op: str, events: list[Event], *, decisions: dict[str, Decision]
                      | None = None, reason: str | None = None, detail: str | None = None) -> None:
        entry = LogEntry(op, events, decisions, reason, detail)
        self.log.add(entry)
        if self.observer is not None:
            await self.observer(entry, self.game)

    # -- asking seats --------------------------------------------------------------------------
    async def _collect(self, step: Step, step_started: float) -> StepDecisions:
        """Every seat's answers to the step, as columns: a seat's turns in order, in one call
        when it answers whole steps, one by one when it answers now, else concurrently with the
        other asynchronous seats (each of their first turns is asked at once, in seat order, so
        the frames go out together). What differs from a plain scripted answer (a fallback, a
        seat's reply with its attempts) is kept per turn in `special`."""
        actions: list[Action | None] = []
        special: dict[int, Decision] = {}
        waiting = []
        for seat_index, contexts in step.groups:
            at, n = len(actions), len(contexts)
            decide_step, decide_now = self._steps[seat_index], self._now[seat_index]
            if decide_step is not None:
                try:  # inline, no helper call: the scripted seats' whole per-step path
                    answers = decide_step(contexts)
                except Exception:
                    answers = []
                if len(answers) == n:
                    actions += answers
                    continue
                decide_now = None  # it raised or answered too few or many: its turns fall back
            turns = step.turns()[at:at + n]
            if decide_step is not None or decide_now is not None:
                actions += [self._answer_now(decide_now, turn, i, special)
                            for i, turn in enumerate(turns, at)]
                continue
            actions += [None] * n
            seat = self.seats[seat_index]
            first = self._start(seat, turns[0], None, 1, step_started)
            waiting.append(self._ask_in_order(seat, turns, at, step_started, special, first))
        if len(waiting) == 1:
            await waiting[0]  # one seat waits: no task
        elif waiting:
            await asyncio.gather(*waiting)
        for i, d in special.items():
            actions[i] = d.action
        return StepDecisions(step, actions, "scripted", special or None)

    def _answer_now(self, decide_now: Callable[[Turn], Any] | None, turn: Turn, i: int,
                    special: dict[int, Decision]) -> Action:
        """A synchronous seat's answer to turn `i`; if it raises (or already failed the step),
        the game's fallback, kept in `special`."""
        if decide_now is not None:
            try:
                return decide_now(turn)  # type: ignore[no-any-return]
            except Exception:
                pass
        d = special[i] = self._fallback(turn, FallbackCause.ERROR)
        return d.action

    async def _ask_in_order(self, seat: Seat, turns: list[Turn], at: int, step_started: float,
                            out: dict[int, Decision], first: _Started) -> None:
        """Ask `turns` (turn `at` of the step onwards) one after another; the first one's
        attempt is already `first`."""
        out[at] = await self._decide(seat, turns[0], step_started, first)
        for i, turn in enumerate(turns[1:], at + 1):
            out[i] = await self._decide(seat, turn, step_started)

    def _start(self, seat: Seat, turn: Turn, hint: str | None, number: int,
               step_started: float) -> _Started:
        """Start one attempt, synchronously: its timeout and what `seat.decide` gave — a
        future (a coroutine becomes a task here, inside the attempt's `current_attempt()`),
        `_TIMED_OUT` when no time is left (a coroutine is then closed unstarted), or the
        exception `decide` raised."""
        timing, clock = self.timing, self.clock
        timeout = timing.decision_timeout_s
        if timing.step_deadline_s is not None:
            timeout = min(timeout, step_started + timing.step_deadline_s - clock.now())
        attempt = Attempt(clock, clock.now() + timeout, number)
        token = _ATTEMPT.set(attempt)
        try:
            awaitable = seat.decide(turn, hint)
            if timeout <= 0:
                if asyncio.iscoroutine(awaitable):
                    awaitable.close()
                return timeout, _TIMED_OUT, attempt
            return timeout, asyncio.ensure_future(awaitable), attempt
        except Exception as exc:
            return timeout, exc, attempt
        finally:
            _ATTEMPT.reset(token)

    async def _decide(self, seat: Seat, turn: Turn, step_started: float,
                      first: _Started | None = None) -> Decision:
        game, timing, clock = self.game, self.timing, self.clock
        hint: str | None = None
        cause: FallbackCause | None = None
        refused: str | None = None  # the game's words for the last refused reply
        retry_of: str | None = None  # ``cause: words`` of a refusal whose retry timed out
        unavailable_why: str | None = None  # why the seat could not answer (`PLATFORM_REASONS`)
        timeouts = 0
        attempts = 0
        for _ in range(1 + timing.retries):
            attempts += 1
            if first is not None:
                (timeout, started, attempt), first = first, None
            else:
                timeout, started, attempt = self._start(seat, turn, hint, attempts,
                                                        step_started)
            try:
                if isinstance(started, Exception):
                    raise started
                if started is _TIMED_OUT:
                    raise _Timeout
                raw = await _wait(clock, started, timeout)
            except _Timeout:
                timeouts += 1
                if attempt.refused is not None:  # the seat's own retry was cut off
                    retry_of = attempt.refused
                elif cause in (FallbackCause.PARSE, FallbackCause.ILLEGAL):  # ours was
                    retry_of = f"{cause}: {refused}"
                cause = FallbackCause.TIMEOUT
                hint = "no reply arrived before the deadline; answer faster"
                continue
            except SeatUnavailable as unavailable:
                cause = unavailable.cause
                said = str(unavailable)
                unavailable_why = said if said and said != str(cause) else None
                break
            except SeatFailed as failed:  # the seat's own program raised: its fault, retried
                cause = failed.cause
                hint = f"your program raised {failed.detail.splitlines()[0]}"
                continue
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                cause = FallbackCause.TRANSPORT
                unavailable_why = _said(exc)
                continue
            try:
                parsed = game.parse(turn, raw)
            except IllegalAction as illegal:
                cause = (FallbackCause.PARSE if illegal.code in PARSE_CODES
                         else FallbackCause.ILLEGAL)
                hint = illegal.hint
                refused = str(illegal)
                continue
            if parsed.reason is not None:  # read as the rules' default: the seat's fault
                counts = self.faults[turn.seat]
                counts[WRONG_SHAPE] = counts.get(WRONG_SHAPE, 0) + 1
                self.reasons[turn.seat].setdefault(WRONG_SHAPE, parsed.reason)
            return Decision(parsed.action, source="seat", attempts=attempts, timeouts=timeouts,
                            clamped=parsed.clamped)
        refused_now = cause in (FallbackCause.PARSE, FallbackCause.ILLEGAL)
        timed_out_retry = (_retry_timed_out(retry_of) if retry_of is not None
                           and cause == FallbackCause.TIMEOUT else None)
        outcome_only = unavailable_why if cause in PLATFORM_REASONS else timed_out_retry
        return self._fallback(turn, cause, attempts, timeouts, refused if refused_now else None,
                              outcome_only)


def _said(exc: BaseException) -> str:
    """An exception as a fault's reason: ``ConnectionResetError: peer closed``, its type alone
    when it says nothing, cut to `MAX_UNAVAILABLE_CHARS`."""
    words = " ".join(str(exc).split())
    return cut_with_ellipsis(f"{type(exc).__name__}: {words}" if words else type(exc).__name__,
                             MAX_UNAVAILABLE_CHARS)


def _applied(events: Events, decisions: StepDecisions) -> LogEntry:
    if isinstance(events, list):
        return LogEntry("apply", events, decisions)
    return LogEntry("apply", None, decisions, render=events)


async def run_episode(game: Game, seats: Sequence[Seat], *, clock: Clock | None = None,
                      observer: Observer | None = None, pacing: bool = False) -> EpisodeOutcome:
    """Play one episode to its end and return the results and the full log."""
    return await EpisodeRunner(game, seats, clock, observer, pacing).run()


def play_headless(game: Game, seats: Sequence[Seat], *, observer: Observer | None = None,
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

