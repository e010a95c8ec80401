"""Where episodes run: `local` (this process, or a process pool) and `ray_backend` (Ray tasks).

A backend takes chunks of specs and hands back each chunk's records as they finish, in any
order; the runner writes them. Every backend calls the same `worker.play_chunk`, and episodes
are pure functions of their spec, so the stored results do not depend on the backend.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from cogleague.league.episodes import EncodedRecord, EpisodeSpec

OnChunk = Callable[[list[EncodedRecord]], None]

COMMIT_ROWS = 64
"""Rows back that a pool's driver stores in one transaction ..."""
COMMIT_AFTER_S = 0.25
"""... or this long after the oldest of them came back, whichever is first."""


class HeldRows:
    """The rows a pool's driver holds until it stores them (`flush`, calling `on_chunk`): once
    `COMMIT_ROWS` are back, `COMMIT_AFTER_S` after the oldest, or at the end. A run's tail is
    small chunks; a commit each would cost the driver's CPU on the cores the workers play on."""

    def __init__(self, on_chunk: OnChunk) -> None:
        self.on_chunk = on_chunk
        self.rows: list[EncodedRecord] = []
        self.oldest = 0.0

    def add(self, rows: list[EncodedRecord]) -> None:
        if rows and not self.rows:
            self.oldest = time.monotonic()
        self.rows += rows

    def wait_s(self) -> float | None:
        """How long the driver may wait for more before the held rows are due (None: none
        held)."""
        if not self.rows:
            return None
        return max(0.0, self.oldest + COMMIT_AFTER_S - time.monotonic())

    def due(self) -> bool:
        return bool(self.rows) and (len(self.rows) >= COMMIT_ROWS or self.wait_s() == 0.0)

    def flush(self) -> None:
        """Store what is held (nothing is stored twice, even if `on_chunk` raises)."""
        if self.rows:
            rows, self.rows = self.rows, []
            self.on_chunk(rows)


class Backend(Protocol):
    name: str
    workers: int
    min_chunk: int  # the smallest chunk of the rules engine's episodes worth one task

    def run(self, chunks: Sequence[Sequence[EpisodeSpec]], on_chunk: OnChunk) -> None:
        """Play every chunk, calling `on_chunk` with its records as each one finishes."""
