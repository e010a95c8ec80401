"""The Ray backend (a local Ray instance with 2 CPUs) stores what the local backend stores."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from leaguefiles import KERNEL_LEAGUE, stored, stored_rows

from cogleague.league import config as league_config
from cogleague.league import runner

HAVE_RAY = importlib.util.find_spec("ray") is not None
if not HAVE_RAY and os.environ.get("CI") != "true":
    pytest.skip("ray is not installed (pip install 'cogleague[ray]'); CI installs it and runs "
                "this test", allow_module_level=True)


@pytest.mark.slow
def test_ray_and_local_backends_store_identical_results(
        write_league: Callable[..., Path]) -> None:
    local = league_config.load(write_league(filename="local.toml", episodes=30))
    on_ray = league_config.load(write_league(filename="ray.toml", episodes=30))
    runner.run(local, runner.make_backend("local", 2), chunk_size=4)
    summary = runner.run(on_ray, runner.make_backend("ray", 2), chunk_size=4)
    assert summary.played == 30 and summary.failed == 0
    assert stored(local.store_url) == stored(on_ray.store_url)
    # resumable on Ray too: nothing left to play
    again = runner.run(on_ray, runner.make_backend("ray", 2))
    assert (again.skipped, again.played) == (30, 0)


@pytest.mark.slow
def test_kernel_chunks_on_ray_store_what_one_process_stores(tmp_path: Path) -> None:
    """The default engine's kernel chunks are Ray tasks too: the same rows, byte for byte."""
    runs = {}
    for name in ("local", "ray"):
        path = tmp_path / f"{name}.toml"
        path.write_text(KERNEL_LEAGUE.format(episodes=12), encoding="utf-8")
        runs[name] = league_config.load(path)
    runner.run(runs["local"], runner.make_backend("local", 1))
    summary = runner.run(runs["ray"], runner.make_backend("ray", 2))
    assert summary.played == 30 and summary.failed == 0
    assert stored_rows(runs["ray"].store_url) == stored_rows(runs["local"].store_url)
