"""Test-only faults for the local pool's worker processes, importable by spawned workers.

`TrippingChunk` is a chunk whose unpickling — in a spawned or fork-server worker, as it
receives the run's chunks, before it reads any chunk index — kills the first `deaths`
processes that unpickle it: workers that die together before they started a chunk."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def trip(tickets: str, deaths: int, items: list[Any]) -> list[Any]:
    """The first `deaths` callers (one ticket file each, taken atomically) exit at once."""
    for k in range(deaths):
        try:
            os.close(os.open(Path(tickets) / f"death{k}", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            continue
        os._exit(3)
    return items


class TrippingChunk(list[Any]):
    def __init__(self, items: list[Any], tickets: Path, deaths: int) -> None:
        super().__init__(items)
        self.tickets = str(tickets)
        self.deaths = deaths

    def __reduce__(self) -> tuple[Any, ...]:
        return trip, (self.tickets, self.deaths, list(self))


DRIVER = """
import os, sys
sys.path[:0] = {path!r}
from cogleague.league.backends.local import LocalBackend
from test_local_pool import specs

def first(records):
    pids = sorted(p.pid for p in __import__("multiprocessing").active_children())
    print(" ".join(map(str, pids)), flush=True)
    os.kill(os.getpid(), 9)  # the driver dies (the out-of-memory killer, kill -9)

# ten commits' worth: both workers are still playing at the first commit (a worker with nothing
# left to play exits before the end)
LocalBackend(2, {method!r}).run([specs(640)[i:i + 2] for i in range(0, 640, 2)], first)
"""
"""A driver that starts a pool, prints its workers' ids at its first commit and is killed."""
