"""A Commons round as the runner sees it: one step, every seat once, in slot order.

The columns are the same every round (seats, one `SeatContext` per seat, the groups); the round
adds its number and turn ids. Each context holds the engine by weak reference, so the contexts,
which live for the episode, make no reference cycle.
"""

from __future__ import annotations

import functools
import weakref
from typing import TYPE_CHECKING

from cogleague.core.game import Step, Turn
from cogleague.games.commons.baselines.view import RoundView, SeatView

if TYPE_CHECKING:
    from cogleague.games.commons.game import CommonsGame


@functools.lru_cache(maxsize=64)
def turn_ids(rounds: int, seats: int) -> tuple[tuple[str, ...], ...]:
    """``r<r>s<slot>`` for every round and seat (the same for every episode of that shape)."""
    return tuple(tuple(f"r{r}s{s}" for s in range(seats)) for r in range(rounds))


class SeatContext:
    """A seat's `Step` context: its slot and the engine (by weak reference)."""

    __slots__ = ("_game", "seat")

    def __init__(self, game: CommonsGame, seat: int) -> None:
        self._game = weakref.ref(game)
        self.seat = seat

    def baseline_views(self, slot: int | None = None) -> tuple[RoundView, SeatView]:
        """The seat's views this round (`CommonsGame.baseline_views`)."""
        game = self._game()
        assert game is not None, "the game of this context is gone"
        return game.baseline_views(self.seat if slot is None else slot)


class RoundSteps:
    """Builds each round's `Step` from the episode's fixed columns."""

    __slots__ = ("_game", "contexts", "groups", "ids", "seats")

    def __init__(self, game: CommonsGame) -> None:
        n = game.num_seats
        self._game = weakref.ref(game)
        self.ids = turn_ids(game.config.rounds, n)
        self.seats = list(range(n))
        self.contexts = [SeatContext(game, s) for s in range(n)]
        self.groups = [(s, [ctx]) for s, ctx in enumerate(self.contexts)]

    def step(self, r: int) -> Step:
        return Step(self.seats, self.contexts, self.groups, r, _step_ids, self._turns, self.ids[r])

    def _turns(self, step: Step) -> list[Turn]:
        game = self._game()
        assert game is not None, "the game of this step is gone"
        return game.turns(step.handle)


def _step_ids(step: Step) -> list[str]:
    return list(step.handle)
