"""A league of baselines through the batch kernels stores, episode for episode, what the rules
engine stores (results documents and series), so the standings are the same; `--engine batch`
refuses what no kernel can play, by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core.errors import ConfigError
from cogleague.league import config as league_config
from cogleague.league import runner, store
from cogleague.league.rankings import standings_json

LEAGUE = """
[league]
name = "{name}"
seed = 5
episodes = 6

[seating]
scheme = "balanced"
duplicates = true

[[policies]]
name = "reciprocator"
baseline = {{ dilemma = "tit_for_tat", ledger = "mirror", commons = "reciprocator" }}

[[policies]]
name = "defector"
baseline = {{ dilemma = "always_defect", ledger = "shark", commons = "free_rider" }}

[[policies]]
name = "grudger"
baseline = {{ dilemma = "grim_trigger", ledger = "grim", commons = "punisher" }}

[[policies]]
name = "coin"
baseline = {{ dilemma = "random", ledger = "opportunist", commons = "random" }}
{extra}
[[games]]
name = "dilemma"
variants = ["standard", "classic200"]
seats = 4
overrides = {{ rounds_total = 12 }}

[[games]]
name = "ledger"
variants = ["standard"]

[[games]]
name = "commons"
variants = ["cleanup", "mushrooms"]
seats = 6
overrides = {{ rounds = 6 }}
"""


def _stored(url: str) -> tuple[list[Any], list[Any]]:
    """Every stored column but the timings, as the database holds it: the results and series
    JSON text byte for byte, and the seat rows."""
    with store.engine_for(url).connect() as conn:
        episodes = conn.exec_driver_sql(
            "SELECT id, league, source, game, variant, seed, lineup, status, reason, results, "
            "series, error, attempts, schedule_index FROM league_episodes ORDER BY id").all()
        seats = conn.exec_driver_sql("SELECT episode_id, seat, policy, copy, score "
                                     "FROM league_seats ORDER BY episode_id, seat").all()
    return [tuple(row) for row in episodes], [tuple(row) for row in seats]


def _write(tmp_path: Path, name: str, extra: str = "") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(LEAGUE.format(name="same", extra=extra), encoding="utf-8")
    return path


def test_batch_and_rules_store_the_same_episodes(tmp_path: Path) -> None:
    rules = league_config.load(_write(tmp_path, "rules"))
    batch = league_config.load(_write(tmp_path, "batch"))
    done = runner.run(rules, runner.make_backend("local", 1), engine="rules")
    fast = runner.run(batch, runner.make_backend("local", 1), engine="batch")
    assert done.played == fast.played > 0 and fast.failed == 0
    want_rows, want_seats = _stored(rules.store_url)
    got_rows, got_seats = _stored(batch.store_url)
    assert len(got_rows) == done.played and len(got_seats) > len(got_rows)
    assert got_rows == want_rows and got_seats == want_seats
    want = standings_json(rules.store_url, resamples=50)
    got = standings_json(batch.store_url, resamples=50)
    assert got == want and got["tables"]


def test_engine_batch_refuses_what_no_kernel_plays(tmp_path: Path) -> None:
    extra = '\n[[policies]]\nname = "keeper"\nbaseline = { dilemma = "promise_keeper" }\n'
    cfg = league_config.load(_write(tmp_path, "mixed", extra))
    with pytest.raises(ConfigError, match="promise_keeper"):
        runner.run(cfg, runner.make_backend("local", 1), engine="batch")
    with pytest.raises(ConfigError, match="engine must be one of"):
        runner.run(cfg, runner.make_backend("local", 1), engine="fast")
    # auto: the kernel plays what it can, the rules engine the rest
    out = CliRunner().invoke(app, ["league", "run", str(tmp_path / "mixed.toml"),
                                   "--workers", "1", "--engine", "auto"])
    assert out.exit_code == 0, out.output
    episodes = store.load_episodes(cfg.store_url)
    assert episodes and all(e.status == "ok" for e in episodes)
