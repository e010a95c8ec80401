"""The store on a real SQLite file and a real PostgreSQL database (the `db_url` fixture):
idempotent writes, failures kept apart, server records."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine

from cogleague.league import store
from cogleague.league.episodes import EpisodeRecord


def test_record_episode_is_idempotent_and_counts_in_finished(db_url: str) -> None:
    url = db_url
    kwargs = dict(game="toy", variant=None, seed=3, policy_names=["a", "a", "b"],
                  results={"scores": [1, 2, 3], "reason": "complete"}, table_id="t-1")
    first = store.record_episode(url, **kwargs)
    again = store.record_episode(url, **kwargs)
    assert first == again
    episodes = store.load_episodes(url)
    assert len(episodes) == 1
    ep = episodes[0]
    assert (ep.source, ep.league, ep.status) == ("server", "server", "ok")
    assert ep.lineup == ["a", "a#2", "b"]
    assert ep.scores == [1.0, 2.0, 3.0]
    assert store.finished_ids(url) == {first}


def test_distinct_tables_with_same_seed_stay_distinct(db_url: str) -> None:
    url = db_url
    common = dict(game="toy", variant=None, seed=3, policy_names=["a", "b"],
                  results={"scores": [1, 2], "reason": "complete"})
    ids = {store.record_episode(url, table_id=t, **common) for t in ("t-1", "t-2")}
    assert len(ids) == 2


def test_one_batch_keeps_the_order_of_outcomes_of_the_same_id(db_url: str) -> None:
    """Bulk writes read the batch in order, as one record at a time would."""
    def rec(id_: str, status: str = "ok", scores: tuple[int, int] = (2, 1)) -> EpisodeRecord:
        results = None if status == "failed" else {"scores": list(scores), "reason": "complete"}
        return EpisodeRecord(id=id_, league="L", game="toy", variant=None, seed=1,
                             policies=["a", "a"], status=status, results=results,
                             error="lost" if status == "failed" else None)

    batch = [rec("e1", "failed"), rec("e1"), rec("e2"), rec("e2", scores=(9, 9)),
             *(rec(f"n{i}") for i in range(600))]  # more ids than one IN (…) query holds
    assert store.save_records(db_url, batch) == 603
    by_id = {e.id: e for e in store.load_episodes(db_url)}
    assert (by_id["e1"].status, by_id["e1"].attempts) == ("ok", 2)
    assert by_id["e2"].scores == [2.0, 1.0]
    assert by_id["e1"].lineup == ["a", "a#2"] and len(by_id) == 602
    assert store.save_records(db_url, [rec("n5", scores=(0, 0))]) == 0


def test_record_episode_rejects_scores_that_do_not_match_the_seats(db_url: str) -> None:
    with pytest.raises(ValueError, match="one number per seat"):
        store.record_episode(db_url, game="toy", variant=None, seed=1,
                             policy_names=["a", "b"], results={"scores": [1], "reason": "x"})


def test_failed_episode_is_replaced_by_a_later_success_and_attempts_add_up(db_url: str) -> None:
    url = db_url
    failed = EpisodeRecord(id="e1", league="L", game="toy", variant=None, seed=1,
                           policies=["a", "b"], status="failed", error="worker died")
    assert store.save_records(url, [failed]) == 1
    assert store.finished_ids(url) == set()
    ok = EpisodeRecord(id="e1", league="L", game="toy", variant=None, seed=1,
                       policies=["a", "b"], results={"scores": [2, 1], "reason": "complete"})
    assert store.save_records(url, [ok]) == 1
    (ep,) = store.load_episodes(url)
    assert (ep.status, ep.attempts, ep.error) == ("ok", 2, None)
    # a finished episode is never overwritten
    again = EpisodeRecord(id="e1", league="L", game="toy", variant=None, seed=1,
                          policies=["a", "b"], results={"scores": [9, 9], "reason": "complete"})
    assert store.save_records(url, [again]) == 0
    assert store.load_episodes(url)[0].scores == [2.0, 1.0]


def test_a_driver_with_named_parameters_stores_the_same_rows(tmp_path: Path) -> None:
    """Rows go to the driver as positional tuples; a driver taking named parameters gets
    SQLAlchemy's own insert, and both store the same rows."""
    records = [EpisodeRecord(id=f"e{i}", league="L", game="toy", variant=None, seed=i,
                             policies=["a", "a", "b"], results={"scores": [i, 2, 3],
                                                                "reason": "complete"})
               for i in range(3)]
    named = create_engine(f"sqlite:///{tmp_path / 'named.db'}", paramstyle="named")
    positional = store.sqlite_url(tmp_path / "positional.db")
    assert named.dialect.paramstyle == "named"
    assert store.save_records(named, records) == store.save_records(positional, records) == 3
    query = ("SELECT e.id, e.status, e.results, e.lineup, e.finished_at IS NOT NULL, s.seat, "
             "s.policy, s.copy, s.score FROM league_episodes e JOIN league_seats s "
             "ON s.episode_id = e.id ORDER BY e.id, s.seat")
    rows = []
    for engine in (named, store.engine_for(positional)):
        with engine.connect() as conn:
            rows.append([tuple(r) for r in conn.exec_driver_sql(query)])
    assert rows[0] == rows[1] and len(rows[0]) == 9
    assert rows[0][1][6:8] == ("a", 1)  # the second seat of a is its copy 1
    assert store.load_episodes(named)[0].scores == [0.0, 2.0, 3.0]


def _all_rows(url: str) -> list[list[tuple[object, ...]]]:
    """Every column of both tables but the time of writing, in a fixed order."""
    with store.engine_for(url).connect() as conn:
        return [[tuple(r) for r in conn.exec_driver_sql(query)] for query in (
            "SELECT id, league, source, game, variant, seed, lineup, status, reason, results, "
            "series, error, attempts, schedule_index, duration_s FROM league_episodes "
            "ORDER BY id", "SELECT * FROM league_seats ORDER BY episode_id, seat")]


def test_one_bulk_write_stores_what_one_record_at_a_time_stores(tmp_path: Path) -> None:
    """A chunk's records in one transaction, encoded or not, and each record on its own
    (through the checks a replacement takes) write the same rows byte for byte."""
    def rec(i: int, status: str = "ok") -> EpisodeRecord:
        ok = status == "ok"
        return EpisodeRecord(
            id=f"e{i % 7}" if not ok else f"e{i}", league="L", game="toy", variant="v",
            seed=i, policies=["a", "b", "a"][: 2 + i % 2], status=status,
            results={"scores": [i, 0.5, -1][: 2 + i % 2], "reason": "complete",
                     "ü": [1e-5, 0.1]} if ok else None,
            series={"x": [0.25 * i]} if ok and i % 3 else None,
            error=None if ok else "lost", index=i, duration_s=0.001 * i)

    records = [rec(i, "failed") for i in range(7)] + [rec(i) for i in range(40)]
    bulk, single = (store.sqlite_url(tmp_path / f"{n}.db") for n in ("bulk", "single"))
    assert store.save_records(bulk, [r.encoded() for r in records]) == 47
    assert sum(store.save_records(single, [r]) for r in records) == 47
    assert _all_rows(bulk) == _all_rows(single)
    assert len(_all_rows(bulk)[0]) == 40 and len(_all_rows(bulk)[1]) == 100
    by_id = {e.id: e for e in store.load_episodes(bulk)}
    assert by_id["e3"].attempts == 2 and by_id["e30"].attempts == 1


def test_a_new_sqlite_file_gets_large_pages_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    import sqlite3

    old = tmp_path / "old.db"
    with sqlite3.connect(old) as conn:
        conn.execute("PRAGMA page_size=4096")
        conn.execute("CREATE TABLE t (x)")
    new = tmp_path / "new.db"
    for path in (old, new):
        store.save_records(store.sqlite_url(path), [EpisodeRecord(
            id="e", league="L", game="toy", variant=None, seed=1, policies=["a"],
            results={"scores": [1]})])
    store.dispose_all()
    sizes = []
    for path in (old, new):
        with sqlite3.connect(path) as conn:
            sizes.append(conn.execute("PRAGMA page_size").fetchone()[0])
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert sizes == [4096, store.PAGE_BYTES]
