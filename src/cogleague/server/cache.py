"""Expensive public reads, computed at most once per short while, whoever asks.

`GET /tables` and `GET /api/standings` need no key and each costs queries over every table;
asked in a loop they took honest play from ≈ 180 to a few moves per second. A `SharedReads`
keeps each answer for `ttl_s` seconds, and callers asking while it is being computed wait for
that one computation instead of starting their own. At most `max_keys` answers are kept
(oldest dropped), so naming many different keys cannot grow it without bound.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any


class SharedReads:
    def __init__(self, ttl_s: float = 1.0, max_keys: int = 64) -> None:
        self.ttl_s = ttl_s
        self.max_keys = max_keys
        self._kept: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()
        self._running: dict[Hashable, asyncio.Future[Any]] = {}
        self.computed = 0
        self._generation = 0  # a value computed across a `clear` is not kept

    async def get(self, key: Hashable, compute: Callable[[], Awaitable[Any]]) -> Any:
        kept = self._kept.get(key)
        if kept is not None and time.monotonic() - kept[0] < self.ttl_s:
            return kept[1]
        running = self._running.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._running[key] = future
        generation = self._generation
        try:
            value = await compute()
        except BaseException as exc:
            if not future.done():
                future.set_exception(exc)
                future.exception()  # retrieved: waiters re-raise it themselves
            raise
        else:
            self.computed += 1
            if generation == self._generation:
                self._kept[key] = (time.monotonic(), value)
                self._kept.move_to_end(key)
                while len(self._kept) > self.max_keys:
                    self._kept.popitem(last=False)
            future.set_result(value)
            return value
        finally:
            if self._running.get(key) is future:
                del self._running[key]

    def clear(self) -> None:
        """Forget every answer (something changed); one being computed is not kept."""
        self._generation += 1
        self._kept.clear()
        self._running.clear()
