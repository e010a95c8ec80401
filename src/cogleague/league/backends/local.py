"""The default backend: this process (1 worker) or a process pool over chunks.

The workers start once, when the pool opens, and stay for the whole run, taking chunks of specs
and sending back encoded rows. They are forked when the driver runs a single thread (then
nothing can hold a lock across the fork) after the driver's database pools are closed (no
shared handles): a forked worker starts with every module already imported, where a spawned one
re-imports the package, the games and SQLAlchemy first — about a second of CPU per worker,
which in a league of a few thousand episodes was as much as the episodes themselves. With
other threads running (a server) the pool forks its workers from a fork server that imported
the worker's modules once (a preloaded pool); where neither exists, workers are spawned. The
CLI's progress bar draws from the driver's own thread, so it never stands in the way of fork.

At most a few chunks per worker are in flight, so memory stays flat for any league size. If a
worker process dies, the pool is lost: every unfinished chunk is recorded as failed (an
infrastructure failure, retried on the next run) and the run ends.
"""

from __future__ import annotations

import gc
import multiprocessing
import threading
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from cogleague.league import store
from cogleague.league.backends import OnChunk
from cogleague.league.episodes import EncodedRecord, EpisodeSpec
from cogleague.league.worker import failed_records, play_chunk

IN_FLIGHT_PER_WORKER = 2
START_METHODS = ("fork", "spawn", "forkserver")
PRELOAD = ("cogleague.league.worker", "cogleague.games.registry")


def default_method() -> str:
    """fork from a single-threaded driver, else a preloaded fork server, else spawn."""
    available = multiprocessing.get_all_start_methods()
    if "fork" in available and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in available else "spawn"


class LocalBackend:
    name = "local"

    def __init__(self, workers: int = 1, start_method: str | None = None) -> None:
        self.workers = max(1, workers)
        if start_method is not None and start_method not in START_METHODS:
            raise ValueError(f"start_method must be one of {', '.join(START_METHODS)} "
                             f"(got {start_method!r})")
        self.start_method = start_method

    def _context(self) -> multiprocessing.context.BaseContext:
        method = self.start_method or default_method()
        if method == "fork":
            store.dispose_all()  # no pooled connection crosses the fork
        context = multiprocessing.get_context(method)
        if method == "forkserver":
            # the fork server imports these once; every worker is forked from it ready to play
            context.set_forkserver_preload(list(PRELOAD))
        return context

    def run(self, chunks: Sequence[Sequence[EpisodeSpec]], on_chunk: OnChunk) -> None:
        if self.workers == 1:
            for chunk in chunks:
                on_chunk(play_chunk(chunk))
            return
        context = self._context()
        todo = list(chunks)[::-1]
        forked = context.get_start_method() == "fork"
        if forked:
            # Everything alive now moves to the permanent generation: a forked worker's
            # collections never walk (and never write to) the objects it inherited, so the
            # driver's heap stays shared instead of being copied page by page into each worker
            # (about 70 % of the workers' page faults in a 600-episode league), and each
            # collection is shorter.
            gc.freeze()
        try:
            self._run_pool(context, todo, on_chunk)
        finally:
            if forked:
                gc.unfreeze()

    def _run_pool(self, context: multiprocessing.context.BaseContext,
                  todo: list[Sequence[EpisodeSpec]], on_chunk: OnChunk) -> None:
        with ProcessPoolExecutor(self.workers, mp_context=context) as pool:
            running: dict[Future[list[EncodedRecord]], Sequence[EpisodeSpec]] = {}

            def fill() -> None:
                while todo and len(running) < self.workers * IN_FLIGHT_PER_WORKER:
                    chunk = todo.pop()
                    running[pool.submit(play_chunk, chunk)] = chunk

            try:
                fill()
                while running:
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    # every chunk that is back goes to the store in one transaction, after the
                    # workers have their next chunks: while the driver waits on a commit more
                    # chunks come back, so a slow disk means fewer, larger commits instead of
                    # workers waiting for the driver
                    records: list[EncodedRecord] = []
                    for future in done:
                        chunk = running.pop(future)
                        try:
                            records += future.result()
                        except BrokenProcessPool as exc:
                            lost = [chunk, *running.values(), *todo]
                            running.clear()
                            todo.clear()
                            if records:
                                on_chunk(records)
                            for c in lost:
                                on_chunk(failed_records(c, f"worker process died ({exc})"))
                            return
                    fill()
                    on_chunk(records)
            except BaseException:
                for future in running:
                    future.cancel()
                raise
