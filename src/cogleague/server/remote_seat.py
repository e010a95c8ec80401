"""A Seat whose `decide` sends `your_turn` over the seat's channel and awaits its `move`.

The runner owns time: it bounds each attempt by the game's `Timing` and cancels the wait on
the deadline, which marks the turn expired (a later move gets `too_late`) and gives the seat the
game's timeout action. A disconnected seat is simply not listening: its turns run out the same
way, and it finds the pending turn in its `snapshot` when it comes back.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from cogleague.core.episode import current_attempt
from cogleague.core.game import Timing, Turn
from cogleague.server.channels import SeatChannel


class RemoteSeat:
    kind = "remote"

    def __init__(self, channel: SeatChannel, name: str, timing: Timing) -> None:
        self.channel = channel
        self.name = name
        self.timing = timing

    @property
    def connected(self) -> bool:
        """The seat's program has connected since the table opened (`core/connect.py`)."""
        return self.channel.arrived.is_set()

    async def wait_connected(self) -> None:
        await self.channel.arrived.wait()

    def decide(self, turn: Turn, hint: str | None) -> Awaitable[Any]:
        """The channel's future for this turn (a plain future: the runner awaits it without
        a task of its own). With no time left, a coroutine instead, which the runner closes
        unstarted — so no `your_turn` is sent for a turn already out of time."""
        attempt = current_attempt()  # the runner's own cut-off (step deadlines included)
        timeout = self.timing.decision_timeout_s if attempt is None else \
            max(0.0, attempt.deadline - attempt.clock.now())
        if timeout <= 0:
            return self.channel.ask(turn, hint, timeout)
        return self.channel.ask_future(turn, hint, timeout)
