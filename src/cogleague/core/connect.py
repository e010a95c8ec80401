"""The connect timeout: how an episode that nobody came to play ends.

A game may declare the ending in its descriptor (`GameDescriptor.connect_timeout`, a
`ConnectTimeout`). A host that seats programs which must connect (the server's remote seats)
then hands the runner a `ConnectWait`; after the game's ``start`` the runner waits, before the
first round, until one seat has connected or the timeout has passed. If nobody came, the
episode ends at once with ``game.stop(reason)`` (Commons Family: ``no_players``, zero rounds,
all-zero scores), logged like any other stop, so the replay is complete and verifies.

Which seats connect: those with the `Connects` capability (``connected`` and
``wait_connected``). A seat without it plays in-process (a baseline, a model, a policy file)
and is there from the start, so an episode with one never ends this way. Where some seats
connected and others did not, the absent ones play the game's fallback from the first round,
each with its cause recorded, as they always have: the timeout only decides "nobody came".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from cogleague.core.clock import Clock

if TYPE_CHECKING:
    from cogleague.core.descriptor import GameDescriptor
    from cogleague.core.game import Game


@runtime_checkable
class Connects(Protocol):
    """A seat played by a program that has to connect (a remote seat)."""

    @property
    def connected(self) -> bool:
        """True once the seat's program has connected (at any time since the table opened)."""
        ...

    def wait_connected(self) -> Awaitable[None]:
        """Resolves when the seat's program connects."""
        ...


@dataclass(frozen=True)
class ConnectWait:
    """What the runner needs: how long to wait, and the reason it stops the game with."""

    seconds: float
    reason: str


def connect_wait(info: GameDescriptor, game: Game) -> ConnectWait | None:
    """The wait for this game's table, or None when the game declares no such ending."""
    declared = info.connect_timeout
    if declared is None:
        return None
    return ConnectWait(declared.seconds(game), declared.reason)


def _connecting(seats: Sequence[Any]) -> list[Connects] | None:
    """The seats that must connect, or None when any seat plays in-process."""
    waiting = [s for s in seats if callable(getattr(s, "wait_connected", None))]
    return waiting if len(waiting) == len(seats) else None


async def anyone_came(seats: Sequence[Any], clock: Clock, seconds: float) -> bool:
    """Wait (on `clock`) until one of `seats` has connected or `seconds` have passed; True
    unless every seat must connect and none did. Returns at once, without suspending, when a
    seat plays in-process or one has already connected."""
    waiting = _connecting(seats)
    if not waiting or any(s.connected for s in waiting):
        return True
    arrivals = [asyncio.ensure_future(s.wait_connected()) for s in waiting]
    timer = asyncio.ensure_future(clock.sleep(seconds))
    try:
        await asyncio.wait({timer, *arrivals}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for future in (timer, *arrivals):
            future.cancel()
    return any(s.connected for s in waiting)
