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
