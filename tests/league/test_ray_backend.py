"""The Ray backend (a local Ray instance with 2 CPUs) stores what the local backend stores."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from leaguefiles import KERNEL_LEAGUE, stored, stored_rows

from cogleague.league import config as league_config
from cogleague.league import runner, store

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


@pytest.mark.slow
def test_a_task_whose_worker_dies_is_an_infra_failure_not_the_policies(
        write_league: Callable[..., Path]) -> None:
    """A Ray worker killed under its task (a segfault, the out-of-memory killer) is the
    platform's failure: its chunk is stored as infra_error, never as failed, and the run goes
    on with the other chunks."""
    killer = '[[policies]]\nname = "killer"\nbot = "leaguegames:KillerBot"\ngames = ["skill"]\n'
    cfg = league_config.load(write_league(episodes=20, seats=2, extra_policies=killer))
    summary = runner.run(cfg, runner.make_backend("ray", 2), chunk_size=2)
    episodes = store.load_episodes(cfg.store_url)
    infra = [e for e in episodes if e.status == store.STATUS_INFRA]
    assert len(episodes) == summary.played == 20
    assert infra and (summary.failed, summary.infra) == (0, len(infra))
    assert any(e.status == store.STATUS_OK for e in episodes)
