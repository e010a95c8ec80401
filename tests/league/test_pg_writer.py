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


TRACEABLE = "import faulthandler, signal; faulthandler.register(signal.SIGUSR1, all_threads=True); "
"""The long run's prelude: SIGUSR1 prints every thread's stack (a run that outlives its Ctrl-C
says where it is)."""


def league_run(path: Path, url: str, prelude: str = "") -> list[str]:
    return [sys.executable, "-c", prelude + RUN, "league", "run", str(path), "--store", url,
            "--workers", "1"]


def stop(run: subprocess.Popen[bytes], err: Path) -> None:
    """Ctrl-C, as a user stops a run; one that has not exited within a minute is a failure
    that shows its stacks and its stderr (it is killed, not left running)."""
    run.send_signal(signal.SIGINT)
    try:
        run.wait(60)
    except subprocess.TimeoutExpired:
        run.send_signal(signal.SIGUSR1)
        time.sleep(2.0)
        run.kill()
        run.wait(10)
        raise AssertionError("league run still running 60 s after Ctrl-C: "
                             + err.read_text(errors="replace")[-6000:]) from None


def test_a_second_writer_of_a_league_is_refused(pg_cluster: PgCluster,
                                                tmp_path: Path) -> None:
    url = pg_cluster.new_database()
    path = tmp_path / "t.toml"
    path.write_text(league_text("t", episodes=200_000), encoding="utf-8")
    other = tmp_path / "u.toml"
    other.write_text(league_text("u", episodes=6), encoding="utf-8")
    err = tmp_path / "first.err"
    first = subprocess.Popen(league_run(path, url, TRACEABLE), stdout=subprocess.DEVNULL,
                             stderr=err.open("wb"))
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
        try:
            stop(first, err)
        finally:
            store.dispose_all()
    assert second.returncode == 2, second.stdout + second.stderr[-2000:]
    assert "store: league 't' is being run by another process" in second.stderr
    assert "Traceback" not in second.stderr
    assert beside.returncode == 0, beside.stdout + beside.stderr[-2000:]
