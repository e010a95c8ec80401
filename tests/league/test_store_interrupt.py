"""Ctrl-C in the middle of storing a chunk leaves the SQLite store writable at once: the
interrupted run then stores what else came back (the pool does, on its way out), where it
used to wait out the 30 s busy timeout and end with "store … cannot be used: database is
locked" instead of "interrupted — finished episodes are stored"."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from cogleague.league import store
from cogleague.league.episodes import EncodedRecord


def record(i: int) -> EncodedRecord:
    return EncodedRecord(id=f"{i:020x}", league="L", source="league", game="dilemma",
                         variant=None, seed=i, lineup='["a", "b"]', status="ok",
                         reason="complete", results='{"scores": [1, 2]}', series=None,
                         error=None, attempts=1, schedule_index=i, duration_s=0.1,
                         policies=("a", "b"), scores=(1.0, 2.0))


def test_an_interrupt_mid_write_leaves_no_lock(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    url = store.sqlite_url(tmp_path / "s.db")
    engine = store.engine_for(url)
    real = engine.dialect.do_executemany

    def interrupted(cursor: Any, statement: str, parameters: Sequence[Any],
                    context: Any = None) -> None:
        def rows() -> Iterator[Any]:  # the driver is part-way through the statement
            for n, row in enumerate(parameters):
                if n == 5:
                    raise KeyboardInterrupt
                yield row
        real(cursor, statement, rows(), context)

    monkeypatch.setattr(engine.dialect, "do_executemany", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.save_records(url, [record(i) for i in range(20)])
    monkeypatch.undo()
    other = sqlite3.connect(tmp_path / "s.db", timeout=0)  # no waiting: free now, or not
    try:
        other.execute("BEGIN IMMEDIATE")  # the write lock
        other.rollback()
    finally:
        other.close()
    assert store.save_records(url, [record(i) for i in range(3)]) == 3
