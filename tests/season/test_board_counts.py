"""The board's table counts on a real SQLite file: a season table that was aborted (an
operator's abort, a table that failed) is never rated and never counted as still playing —
not while the season runs, not in the standings frozen at its end."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import update

from cogleague.server.season_board import standings_doc
from cogleague.server.store import tables
from season.test_matchmaker import season_db, tick


def test_an_aborted_season_table_is_not_counted_as_playing(tmp_path: Path) -> None:
    entrants = [dict(name=n, account=n, cap=1, games=["dilemma"]) for n in ("ann", "ben")]
    engine, mm = season_db(tmp_path / "s.db", entrants)
    try:
        made = sorted({t for t, _, _ in tick(engine, mm)})
        assert made
        with engine.begin() as conn:  # what `TableService` writes when it aborts a table
            conn.execute(update(tables).where(tables.c.id == made[0]).values(
                state="aborted", finished_at=2_000.0, reason="aborted",
                results='{"reason": "aborted", "detail": "operator"}'))
        with engine.connect() as conn:
            counts = standings_doc(conn, "s", reveal=True)["tables"]
        assert counts.get("playing", 0) == len(made) - 1, counts
        assert sum(counts.values()) == len(made), counts
    finally:
        engine.dispose()
