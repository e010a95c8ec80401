"""Where episodes run: `local` (this process, or a process pool) and `ray_backend` (Ray tasks).

A backend takes chunks of specs and hands back each chunk's records as they finish, in any
order; the runner writes them. Every backend calls the same `worker.play_chunk`, and episodes
are pure functions of their spec, so the stored results do not depend on the backend.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from cogleague.league.episodes import EncodedRecord, EpisodeSpec

OnChunk = Callable[[list[EncodedRecord]], None]


class Backend(Protocol):
    name: str
    workers: int

    def run(self, chunks: Sequence[Sequence[EpisodeSpec]], on_chunk: OnChunk) -> None:
        """Play every chunk, calling `on_chunk` with its records as each one finishes."""
