"""Bounded logging: what a client (or a bad minute of the database) can make the log say.

A flood of bad frames, or a database away for a while, would otherwise write one line (or one
traceback) per event. `Throttled.warn(key, …)` writes at most one line per key per `every_s`
seconds; the next line for that key says how many were left out in between. Keys are small
tuples (client address, kind), and the table of keys is bounded, so the throttle itself cannot
be grown without limit by an attacker.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

MAX_KEYS = 10_000
"""Keys remembered at once; the oldest are forgotten first (a forgotten key may log again)."""


class Throttled:
    def __init__(self, logger: logging.Logger, every_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, max_keys: int = MAX_KEYS) -> None:
        self.logger = logger
        self.every_s = every_s
        self.clock = clock
        self.max_keys = max_keys
        self._seen: OrderedDict[Hashable, list[float]] = OrderedDict()  # key -> [at, skipped]
        self.suppressed = 0
        """Lines left out so far (every key)."""

    def allow(self, key: Hashable) -> int | None:
        """None when a line for `key` was written less than `every_s` ago (counted as left
        out), else the number left out since the last one (0 the first time)."""
        t = self.clock()
        seen = self._seen.get(key)
        if seen is not None and t - seen[0] < self.every_s:
            seen[1] += 1
            self.suppressed += 1
            return None
        skipped = int(seen[1]) if seen is not None else 0
        self._seen[key] = [t, 0]
        self._seen.move_to_end(key)
        while len(self._seen) > self.max_keys:
            self._seen.popitem(last=False)
        return skipped

    def log(self, level: int, key: Hashable, msg: str, *args: object) -> bool:
        """Log one line (never a traceback) unless throttled; True if it was written."""
        skipped = self.allow(key)
        if skipped is None:
            return False
        if skipped:
            msg += f" ({skipped} more like this in the last {self.every_s:g} s not logged)"
        self.logger.log(level, msg, *args)
        return True

    def warn(self, key: Hashable, msg: str, *args: object) -> bool:
        return self.log(logging.WARNING, key, msg, *args)
