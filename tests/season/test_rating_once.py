"""`rate_finished` on a real SQLite file, over tables a real matchmaker tick formed: a table
that counts updates each seated agent once (one history row, one more game), a second call
(another process finishing or sweeping it) changes nothing, and an unrated outcome —
nobody came (``no_players``), an aborted result, a platform fault (``infra_error``) — never
touches a rating."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from cogleague.seats.faults import PLATFORM_CAUSES, SEAT_CAUSES
from cogleague.server.league_schema import rating_history, ratings, season_seats
from cogleague.server.ratings import rate_finished
from season.test_matchmaker import season_db, tick


def _state(conn: Any) -> tuple[list[Any], list[Any]]:
    return (sorted(tuple(r) for r in conn.execute(select(ratings)).all()),
            sorted(tuple(r) for r in conn.execute(select(rating_history.c.table_id,
                                                         rating_history.c.agent_id)).all()))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["complete", "deadline", "no_players", "aborted"]),
       st.lists(st.dictionaries(st.sampled_from(SEAT_CAUSES + PLATFORM_CAUSES),
                                st.integers(1, 3), max_size=2), min_size=3, max_size=3),
       st.lists(st.floats(-10, 10, allow_nan=False), min_size=3, max_size=3))
def test_a_table_is_rated_once_and_only_when_it_counts(
        tmp_path: Path, reason: str, faults: list[dict[str, int]], scores: list[float]) -> None:
    entrants = [dict(name=n, account=n, cap=1, games=["dilemma"]) for n in ("ann", "ben")]
    engine, mm = season_db(tmp_path / f"s{len(list(tmp_path.iterdir()))}.db", entrants)
    try:
        table = sorted({t for t, _, _ in tick(engine, mm)})[0]
        with engine.begin() as conn:
            seated = set(conn.execute(select(season_seats.c.agent_id).where(
                season_seats.c.table_id == table)).scalars())
            before = _state(conn)
            outcome = rate_finished(conn, table, {"reason": reason, "scores": scores}, faults)
        platform = any(c in PLATFORM_CAUSES for f in faults for c in f)
        counts = reason not in ("no_players", "aborted") and not platform
        assert outcome == ("rated" if counts else "not_rated:" + (
            reason if reason in ("no_players", "aborted") else "infra_error")), outcome
        with engine.begin() as conn:
            after = _state(conn)
            assert rate_finished(conn, table, {"reason": "complete", "scores": scores},
                                 [{}, {}, {}]) == outcome  # a second finisher: no-op
        with engine.connect() as conn:
            assert _state(conn) == after
        if not counts:
            assert after == before
        else:
            games = {r[2]: r[5] for r in after[0]}
            assert {a for t, a in after[1] if t == table} == seated
            assert all(games[a] == 1 for a in seated), games
    finally:
        engine.dispose()
