"""A chore done at most once per period (sweeping expired rows, re-checking lost records):
the request or loop that finds it due does it, no timer thread of its own."""

from __future__ import annotations

import math
import time
from collections.abc import Callable


class Every:
    """`due()` is true at most once per `period_s` of `clock`; the first call is due unless
    `start_due` is false (then the first period runs from now)."""

    def __init__(self, period_s: float, clock: Callable[[], float] = time.monotonic,
                 start_due: bool = True) -> None:
        self.period_s, self.clock = period_s, clock
        self.last = -math.inf if start_due else clock()

    def due(self) -> bool:
        t = self.clock()
        if t - self.last < self.period_s:
            return False
        self.last = t
        return True
