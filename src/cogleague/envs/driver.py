"""Drive one episode through the one runner (`core/episode.py`), pausing where RL agents decide.

The runner is a coroutine. Every seat the environment controls answers synchronously
(`decide_now`) from answers the environment put in before resuming it, and the runner's
observer — called after every logged operation — suspends the coroutine whenever a controlled
seat has turns pending. No event loop and no second rules engine: the runner asks the seats,
applies fallbacks and logs exactly as in `cogleague play`, so the same seed and actions give
the same replay document. Time stands still (`StillClock`): no deadline can end an RL episode.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

import numpy as np

from cogleague.core.descriptor import GameDescriptor
from cogleague.core.episode import EpisodeOutcome, EpisodeRunner
from cogleague.core.errors import ConfigError, IllegalAction
from cogleague.core.game import Action, Game, Turn
from cogleague.core.replay import LogEntry


class StillClock:
    """A clock that never moves: RL episodes have no deadlines and no pacing."""

    def now(self) -> float:
        return 0.0

    async def sleep(self, seconds: float) -> None:
        return None


class _Pause:
    """Awaiting it suspends the runner's coroutine back to `EpisodeDriver._resume`."""

    def __await__(self) -> Generator[None, None, None]:
        yield None


_PAUSE = _Pause()

ILLEGAL_ACTION = "illegal_action"
"""The info key of a step whose action was illegal (why), so the game's fallback played it."""


class AgentSeat:
    """A seat the environment plays: it answers from the environment's decoded actions. An
    answer that is an `IllegalAction` raises, and the runner gives the seat the game's
    fallback (logged as such), exactly as for any seat that fails."""

    kind = "policy"

    def __init__(self, driver: EpisodeDriver, name: str) -> None:
        self.driver = driver
        self.name = name

    def decide_now(self, turn: Turn) -> Action:
        answer = self.driver.answers.pop(turn.turn_id)
        if isinstance(answer, IllegalAction):
            raise answer
        return answer


class SyncSeat:
    """An opponent that answers synchronously: a seat with `decide_now`, or an SDK bot whose
    `on_turn` returns its reply directly (read through the game's `parse`)."""

    kind = "scripted"

    def __init__(self, seat: Any, game: Game) -> None:
        self.inner = seat
        self.name = seat.name
        now = getattr(seat, "decide_now", None)
        bot = getattr(seat, "bot", None)
        if now is None and bot is None:
            raise ConfigError("opponents", f"opponents: {seat.name!r} does not answer "
                                           "synchronously (baselines, policy:PATH and SDK bots "
                                           "can sit in an environment; model seats cannot)")
        self._now = now
        self._game = game

    def decide_now(self, turn: Turn) -> Action:
        if self._now is not None:
            return self._now(turn)
        from cogleague.seats.inprocess import turn_info

        reply = self.inner.bot.on_turn(turn_info(turn, self._game.name, None))
        if hasattr(reply, "__await__"):
            raise ConfigError("opponents", f"opponents: bot {self.name!r} answers "
                                           "asynchronously; an environment needs on_turn to "
                                           "return its reply")
        return self._game.parse(turn, reply).action


class EpisodeDriver:
    """One episode: the game, the runner's coroutine, and the controlled seats' pending turns.

    `controlled` seats are played by the environment; `opponents` maps every other seat to a
    seat object (`make_seat`). After `start()` and each `resume()`, `turns[seat]` lists the
    controlled seats' turns of the step the runner waits on (empty lists when it is done)."""

    def __init__(self, game: Game, controlled: Sequence[int],
                 opponents: Mapping[int, Any] | None = None) -> None:
        self.game = game
        self.controlled = list(controlled)
        self._controlled_set = frozenset(controlled)
        self.answers: dict[str, Action | IllegalAction] = {}
        seats: list[Any] = []
        for s in range(game.num_seats):
            if s in self._controlled_set:
                seats.append(AgentSeat(self, game.policy_names[s]))
            else:
                seats.append(SyncSeat((opponents or {})[s], game))
        self.turns: dict[int, list[Turn]] = {s: [] for s in self.controlled}
        self.outcome: EpisodeOutcome | None = None
        self.runner = EpisodeRunner(game, seats, StillClock(), self._observe)
        self._coro = self.runner.run()

    async def _observe(self, entry: LogEntry, game: Game) -> None:
        if game.done or game.between_rounds:
            return
        controlled = self._controlled_set
        if any(t.seat in controlled for t in game.pending()):
            await _PAUSE

    def start(self) -> None:
        self._resume()

    def resume(self) -> None:
        """Continue once every pending controlled turn has an answer in `answers`."""
        self._resume()

    def _resume(self) -> None:
        try:
            self._coro.send(None)
        except StopIteration as finished:
            self.outcome = finished.value
            self.turns = {s: [] for s in self.controlled}
            return
        turns: dict[int, list[Turn]] = {s: [] for s in self.controlled}
        for t in self.game.pending():
            if t.seat in turns:
                turns[t.seat].append(t)
        self.turns = turns

    @property
    def done(self) -> bool:
        return self.outcome is not None

    def close(self) -> None:
        self._coro.close()


def taken(index: Any) -> int | IllegalAction:
    """An agent's action as an environment records it for a replay (`snapshot.py`): the
    integer index, or the `IllegalAction` a value that is none becomes (kept as it is when
    replayed)."""
    if isinstance(index, IllegalAction):
        return index
    try:
        return integer_index(index)
    except IllegalAction as illegal:
        return illegal


def answer_with(decode: Callable[[Turn, int], Action], turn: Turn,
                index: Any) -> Action | IllegalAction:
    """A decoded action, or the `IllegalAction` the seat will raise (it then falls back). Only
    an integer is an index: a float, bool or string is illegal, never truncated into one."""
    try:
        if isinstance(index, IllegalAction):  # a recorded action that was no index
            raise index
        return decode(turn, integer_index(index))
    except IllegalAction as illegal:
        return illegal


def integer_index(index: Any) -> int:
    """`index` as an int when it is one integer (a Python or numpy integer, or a one-element
    integer array); an `IllegalAction` naming the value otherwise."""
    if type(index) is int:  # the common case, without numpy's look at it
        return index
    try:
        arr = np.asarray(index)
    except (TypeError, ValueError, OverflowError):
        arr = np.asarray(None)
    if arr.dtype.kind not in "iu" or arr.size != 1:
        raise IllegalAction(f"an action must be an integer index (got {index!r})")
    return int(arr.reshape(()))


def finished_replay(driver: EpisodeDriver | None, desc: GameDescriptor) -> dict[str, Any]:
    """The finished episode's replay, as `cogleague play` writes it (both env faces offer it)."""
    if driver is None or driver.outcome is None:
        raise RuntimeError("replay_document() needs a finished episode")
    return desc.replay_document(driver.game, driver.outcome.log)
