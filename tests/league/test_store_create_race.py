"""Two connections creating the league's tables at once on one database: the season server's
database thread records its first finished table (`record_episode` on the server's engine)
while a standings request refits from the URL (`engine_for` in an executor thread). Both
checked that the tables were missing and both ran CREATE TABLE; on PostgreSQL the second
failed with a unique violation in the catalog, and the request answered 500."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import inspect

from cogleague.league import store
from cogleague.server.store import engine_url, make_engine
from helpers.postgres import PgCluster

ROUNDS = 6


def _at_once(*jobs: Any) -> list[BaseException]:
    """Run `jobs` on threads of their own, released together; the exceptions they raised."""
    start = threading.Barrier(len(jobs))
    failed: list[BaseException] = []

    def run(job: Any) -> None:
        start.wait()
        try:
            job()
        except BaseException as exc:
            failed.append(exc)

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a creator hung"
    return failed


def _check(url: str) -> None:
    """The refit's `engine_for(url)` beside two servers' engines (`server.store.make_engine`:
    a process of its own, or two sharing the database) recording at once."""
    engines = [make_engine(url), make_engine(url)]
    try:
        failed = _at_once(lambda: store.engine_for(url),
                          *[lambda e=e: store.engine_for(e) for e in engines])
        assert failed == [], failed
        assert inspect(engines[0]).has_table(store.EpisodeRow.__tablename__)
    finally:
        for engine in engines:
            engine.dispose()
        store.dispose_all()


@pytest.mark.postgres
def test_on_postgres_creators_at_once_all_succeed(pg_cluster: PgCluster) -> None:
    for _ in range(ROUNDS):
        _check(engine_url(pg_cluster.new_database()))


def test_on_sqlite_creators_at_once_all_succeed(tmp_path: Any) -> None:
    for i in range(ROUNDS):
        _check(f"sqlite:///{tmp_path / f'league{i}.db'}")
