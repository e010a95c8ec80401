"""A pool's driver stores what comes back in few transactions (`backends.HeldRows`), never
losing or repeating a row; the rules engine's chunks are no smaller than the backend's
`min_chunk`, save the last."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogleague.league import runner
from cogleague.league.backends import COMMIT_AFTER_S, COMMIT_ROWS, HeldRows
from cogleague.league.backends.local import LocalBackend
from cogleague.league.backends.ray_backend import RayBackend
from cogleague.league.episodes import EncodedRecord, EpisodeRecord, EpisodeSpec, SeatRef


def rows(n: int, start: int = 0) -> list[EncodedRecord]:
    return [EpisodeRecord(id=f"e{i}", league="L", game="dilemma", variant=None, seed=i,
                          policies=["a", "b"], index=i).encoded() for i in range(start, start + n)]


def test_rows_are_due_once_enough_are_held_or_the_oldest_has_waited() -> None:
    stored: list[list[EncodedRecord]] = []
    held = HeldRows(stored.append)
    assert held.wait_s() is None and not held.due()
    held.add(rows(COMMIT_ROWS - 1))
    held.oldest = time.monotonic() + 60  # just back, however slow this machine is
    wait = held.wait_s()
    assert wait is not None and wait > COMMIT_AFTER_S and not held.due()
    held.add(rows(1, COMMIT_ROWS))
    assert held.due()
    held.flush()
    assert [len(s) for s in stored] == [COMMIT_ROWS] and held.wait_s() is None
    held.add(rows(2))
    assert held.oldest <= time.monotonic()  # the clock starts at the first row held
    held.oldest -= COMMIT_AFTER_S  # a quarter of a second later
    assert held.due() and held.wait_s() == 0.0


def test_a_failed_store_is_not_repeated() -> None:
    calls: list[int] = []

    def failing(batch: list[EncodedRecord]) -> None:
        calls.append(len(batch))
        raise OSError("disk full")

    held = HeldRows(failing)
    held.add(rows(3))
    with pytest.raises(OSError, match="disk full"):
        held.flush()
    held.flush()  # nothing held any more: the rows went to the store that failed, once
    assert calls == [3]


@given(st.lists(st.integers(0, 9), max_size=30))
def test_held_rows_reach_the_store_once_each_in_order(sizes: list[int]) -> None:
    stored: list[EncodedRecord] = []
    held = HeldRows(stored.extend)
    start, given_rows = 0, []
    for n in sizes:
        batch = rows(n, start)
        start += n
        given_rows += batch
        held.add(batch)
        if held.due():
            held.flush()
    held.flush()
    assert [r.id for r in stored] == [r.id for r in given_rows]


def specs(n: int) -> list[EpisodeSpec]:
    return [EpisodeSpec(league="L", game="dilemma", variant="classic200", seed=s,
                        seats=(SeatRef("tit_for_tat", "tit_for_tat"),) * 2, index=s)
            for s in range(n)]


@pytest.mark.parametrize("backend", [LocalBackend(2), RayBackend(2)])
def test_guided_chunks_shrink_to_the_backends_smallest_task(backend: LocalBackend | RayBackend
                                                             ) -> None:
    chunks = runner.chunked(specs(300), backend.workers, min_chunk=backend.min_chunk)
    sizes = [len(c) for c in chunks]
    assert sum(sizes) == 300
    assert all(size >= backend.min_chunk for size in sizes[:-1])
    assert min(sizes[:-1]) == backend.min_chunk  # the tail reaches it
    assert [s.seed for c in chunks for s in c] == list(range(300))
