"""The one-writer lock of `league run` on SQLite holds from its first moment, on a file that
did not exist yet: by the file's identity, not only by the name it was given, so a second
run on another name of the same file (a hard link) is refused; two real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI = [str(Path(sys.executable).with_name("cogleague"))]

HOLDER = """
import sys
from cogleague.league.runner import writer_lock
with writer_lock(sys.argv[1], "first"):
    print("held", flush=True)
    sys.stdin.readline()
"""

LEAGUE = """
[league]
name = "second"
seed = 1
episodes = 2
store = "{store}"

[[policies]]
name = "tft"
baseline = "tit_for_tat"

[[policies]]
name = "ad"
baseline = "always_defect"

[[games]]
name = "dilemma"
seats = 3
overrides = {{ rounds_total = 2 }}
"""


def _hold(url: str) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, url], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_lock_on_a_new_file_covers_the_file_itself_from_the_first_moment(
        tmp_path: Path) -> None:
    first = tmp_path / "a" / "fresh.db"
    assert not first.exists()
    holder = _hold(f"sqlite:///{first}")
    try:
        assert first.exists()  # made by the lock, so the lock is on the file's identity too
        other = tmp_path / "other.db"
        os.link(first, other)  # another name of the same file
        league = tmp_path / "league.toml"
        league.write_text(LEAGUE.format(store=other.name), encoding="utf-8")
        second = subprocess.run([*CLI, "league", "run", str(league), "--workers", "1"],
                                capture_output=True, text=True, timeout=120)
        assert second.returncode != 0, second.stdout + second.stderr
        assert "store: the SQLite database" in second.stderr
        assert "already served" in second.stderr
    finally:
        holder.communicate("\n", timeout=60)
    assert holder.returncode == 0


def test_two_runs_started_together_on_a_new_file_one_is_refused(tmp_path: Path) -> None:
    league = tmp_path / "league.toml"
    league.write_text(LEAGUE.format(store="new.db"), encoding="utf-8")
    runs = [subprocess.Popen([*CLI, "league", "run", str(league), "--workers", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outs = [r.communicate(timeout=120) for r in runs]
    codes = sorted(r.returncode for r in runs)
    refused = [err for (_, err), r in zip(outs, runs, strict=True) if r.returncode != 0]
    # One is refused, or found everything played (it started after the other had finished):
    # never two processes that both play the schedule into one file.
    assert codes[0] == 0, outs
    assert all("already served" in err for err in refused), outs
    played = [out for out, _ in outs if "played 2 episodes" in out]
    assert len(played) == 1, outs


def test_a_store_that_cannot_be_made_is_a_one_line_store_error(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder", encoding="utf-8")
    league = tmp_path / "league.toml"
    league.write_text(LEAGUE.format(store="afile/x.db"), encoding="utf-8")
    done = subprocess.run([*CLI, "league", "run", str(league), "--workers", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("error: store: cannot make the SQLite database"), done.stderr
