"""Injectable clocks. The runner reads time only through one of these; tests never sleep."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    """Real time: `time.monotonic` and `asyncio.sleep`."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class FakeClock:
    """Virtual time for tests. `sleep` parks the caller until virtual time reaches its wake-up.

    A ticker task advances time to the earliest wake-up once every runnable task has had its
    turn, so eight seats that each sleep 1 s finish together at t+1 (concurrency is visible),
    and nothing ever waits for real. `advance()` moves time by hand (e.g. between episodes).
    """

    def __init__(self, start: float = 0.0, settle_passes: int = 20) -> None:
        self._now = start
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._counter = itertools.count()
        self._ticker: asyncio.Task[None] | None = None
        self._settle = settle_passes

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (self._now + seconds, next(self._counter), fut))
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.get_running_loop().create_task(self._tick())
        await fut

    async def _tick(self) -> None:
        while self._heap:
            for _ in range(self._settle):  # let every runnable task reach its next wait
                await asyncio.sleep(0)
            while self._heap and self._heap[0][2].done():  # cancelled sleepers
                heapq.heappop(self._heap)
            if not self._heap:
                break
            wake, _, fut = heapq.heappop(self._heap)
            self._now = max(self._now, wake)
            fut.set_result(None)
