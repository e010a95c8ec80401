"""One writer per league on PostgreSQL too: a second `league run` of a league on the database
a run of it is writing is refused with one line (it would play the same episodes and crash on
the first id the other stored); another league on that database runs beside it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from leaguefiles import league_text

from cogleague.league import store
from helpers.postgres import PgCluster

pytestmark = pytest.mark.postgres
RUN = "from cogleague.cli import main; main()"


def league_run(path: Path, url: str) -> list[str]:
    return [sys.executable, "-c", RUN, "league", "run", str(path), "--store", url,
            "--workers", "1"]


def test_a_second_writer_of_a_league_is_refused(pg_cluster: PgCluster,
                                                tmp_path: Path) -> None:
    url = pg_cluster.new_database()
    path = tmp_path / "t.toml"
    path.write_text(league_text("t", episodes=200_000), encoding="utf-8")
    other = tmp_path / "u.toml"
    other.write_text(league_text("u", episodes=6), encoding="utf-8")
    first = subprocess.Popen(league_run(path, url), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not store.finished_ids(url, league="t"):  # the first run is writing
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        second = subprocess.run(league_run(path, url), capture_output=True, text=True,
                                timeout=120)
        beside = subprocess.run(league_run(other, url), capture_output=True, text=True,
                                timeout=120)
        assert first.poll() is None  # still running: the second met it
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(60)
        store.dispose_all()
    assert second.returncode == 2, second.stdout + second.stderr[-2000:]
    assert "store: league 't' is being run by another process" in second.stderr
    assert "Traceback" not in second.stderr
    assert beside.returncode == 0, beside.stdout + beside.stderr[-2000:]
