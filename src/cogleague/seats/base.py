"""The seat interface the episode runner talks to."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from cogleague.core.game import Turn


@runtime_checkable
class Seat(Protocol):
    """One seat of one episode.

    `kind` is ``scripted``, ``model`` or ``remote``; `name` is the policy name (spectators only).
    `decide` returns the raw reply (a dict, or text for model seats) that the game's `parse`
    reads; `hint` is set on a retry and names the legal form. It may raise
    `SeatUnavailable` to fall back at once.
    """

    kind: str
    name: str

    async def decide(self, turn: Turn, hint: str | None) -> Any: ...

