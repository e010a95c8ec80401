"""The request budget of one endpoint in one episode: requests per minute, and backoff on 429.

Every request first takes a slot (`acquire`). A slot is free when fewer than `per_minute`
requests were sent in the last `WINDOW_S` seconds and no 429 pause is running. When none is free
the caller waits — but only if the wait ends before its attempt's deadline; otherwise it gets
`SeatUnavailable("rate_budget")` at once and the runner plays that seat's fallback. A 429 pauses
the whole endpoint (every seat on it) for the server's Retry-After, or for an exponential
backoff when it sent none; a success ends the backoff streak.

Waiting goes through the runner's clock, so tests drive it with a `FakeClock`.
"""

from __future__ import annotations

from collections import deque

from cogleague.core.clock import Clock
from cogleague.core.config import check_int
from cogleague.core.errors import SeatUnavailable
from cogleague.core.model_limits import (
    DEFAULT_REQUESTS_PER_MINUTE,
    MAX_REQUESTS_PER_MINUTE,
    MIN_REQUESTS_PER_MINUTE,
)
from cogleague.core.seat import FallbackCause

WINDOW_S = 60.0
BACKOFF_BASE_S = 0.5  # first pause after a 429 without Retry-After; doubles per further 429
BACKOFF_MAX_S = 30.0
MAX_RATE_LIMITED_SENDS = 4
"""How many times one attempt may be answered 429 before its seat falls back (rate_budget)."""


def check_requests_per_minute(value: int | None) -> int:
    if value is None:
        return DEFAULT_REQUESTS_PER_MINUTE
    return check_int("requests_per_minute", value, MIN_REQUESTS_PER_MINUTE,
                     MAX_REQUESTS_PER_MINUTE)


class RequestBudget:
    def __init__(self, per_minute: int, clock: Clock) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._sent: deque[float] = deque()
        self._paused_until = float("-inf")
        self._streak = 0  # consecutive 429s
        self.waited_s = 0.0  # total time callers spent waiting for a slot (for the record)

    def _wait_needed(self, now: float) -> float:
        while self._sent and self._sent[0] <= now - WINDOW_S:
            self._sent.popleft()
        wait = self._paused_until - now
        if len(self._sent) >= self.per_minute:
            wait = max(wait, self._sent[0] + WINDOW_S - now)
        return wait

    async def acquire(self, deadline: float) -> None:
        """Take a slot, waiting for one if it frees before `deadline` (clock time)."""
        while True:
            now = self.clock.now()
            wait = self._wait_needed(now)
            if wait <= 0:
                self._sent.append(now)
                return
            if now + wait >= deadline:
                raise SeatUnavailable(FallbackCause.RATE_BUDGET,
                                      "no request slot before the deadline")
            self.waited_s += wait
            await self.clock.sleep(wait)

    def rate_limited(self, retry_after: float | None) -> float:
        """Record a 429 and pause the endpoint; returns the pause in seconds."""
        self._streak += 1
        if retry_after is not None:
            pause = min(retry_after, BACKOFF_MAX_S)
        else:
            pause = min(BACKOFF_BASE_S * 2 ** (self._streak - 1), BACKOFF_MAX_S)
        self._paused_until = max(self._paused_until, self.clock.now() + pause)
        return pause

    def succeeded(self) -> None:
        self._streak = 0
