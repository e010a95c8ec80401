"""A few browser sign-in tries per name, not unlimited ones (a password guesser's budget).

Each try at a name counts as a failure from the moment it starts (a success takes it back):
forty guesses sent at once, each waiting for its scrypt check, cannot all pass the count.
After `failures` of them within `window_s`, the name is refused (429, with the seconds to wait)
until the oldest is that old; the refusal costs no database read and no scrypt. Names that do
not exist count the same, so the answer tells nothing about which names exist.

The count is per process (memory, bounded to `MAX_NAMES` names): a deployment of N processes
allows N times as many tries, still a fixed few. Anyone can lock a name's browser sign-in this
way for the window; its API key keeps working.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

MAX_NAMES = 100_000
"""Names with recent failures kept at once; the oldest entry goes first beyond it."""


class SignInGuard:
    def __init__(self, failures: int, window_s: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.failures, self.window_s, self.clock = failures, window_s, clock
        self.recent: dict[str, deque[float]] = {}

    def begin(self, name: str) -> float:
        """Count a try at `name`: 0.0 when it may go on, else the seconds until it may."""
        t = self.clock()
        tries = self.recent.pop(name, None) or deque()
        while tries and tries[0] <= t - self.window_s:
            tries.popleft()
        self.recent[name] = tries  # last in order: the most recently tried name
        if len(tries) >= self.failures:
            return max(tries[0] + self.window_s - t, 0.001)
        tries.append(t)
        if len(self.recent) > MAX_NAMES:
            del self.recent[next(iter(self.recent))]
        return 0.0

    def succeeded(self, name: str) -> None:
        """The right password: the name's failures are forgotten."""
        self.recent.pop(name, None)

    @staticmethod
    def retry_after(wait_s: float) -> str:
        return str(max(1, math.ceil(wait_s)))
