"""The default backend: this process (1 worker) or a process pool over chunks.

Workers are started with ``spawn`` (no inherited threads or open database handles). At most a
few chunks per worker are in flight, so memory stays flat for any league size. If a worker
process dies, the pool is lost: every unfinished chunk is recorded as failed (an
infrastructure failure, retried on the next run) and the run ends.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from cogleague.league.backends import OnChunk
from cogleague.league.episodes import EpisodeRecord, EpisodeSpec
from cogleague.league.worker import failed_records, play_chunk

IN_FLIGHT_PER_WORKER = 2


class LocalBackend:
    name = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)

    def run(self, chunks: Sequence[Sequence[EpisodeSpec]], on_chunk: OnChunk) -> None:
        if self.workers == 1:
            for chunk in chunks:
                on_chunk(play_chunk(chunk))
            return
        context = multiprocessing.get_context("spawn")
        todo = list(chunks)[::-1]
        with ProcessPoolExecutor(self.workers, mp_context=context) as pool:
            running: dict[Future[list[EpisodeRecord]], Sequence[EpisodeSpec]] = {}
            try:
                while todo or running:
                    while todo and len(running) < self.workers * IN_FLIGHT_PER_WORKER:
                        chunk = todo.pop()
                        running[pool.submit(play_chunk, chunk)] = chunk
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in done:
                        chunk = running.pop(future)
                        try:
                            records = future.result()
                        except BrokenProcessPool as exc:
                            lost = [chunk, *running.values(), *todo]
                            running.clear()
                            todo.clear()
                            for c in lost:
                                on_chunk(failed_records(c, f"worker process died ({exc})"))
                            return
                        on_chunk(records)
            except BaseException:
                for future in running:
                    future.cancel()
                raise
