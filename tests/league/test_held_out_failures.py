"""Held-out names stay hidden until the season ends, also when their episodes failed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from cogleague.cli import app

cli = CliRunner()

SECRET_BROKEN = """
[[policies]]
name = "secret-broken"
author = "tests"
bot = "leaguegames:BrokenBot"
held_out = true
"""


def test_a_held_out_policy_whose_episodes_all_failed_is_not_named(
        write_league: Callable[..., Path]) -> None:
    path = write_league(episodes=6, extra_policies=SECRET_BROKEN)
    text = path.read_text().replace("seats = 3", "seats = 3\nevaluation_episodes = 4")
    path.write_text(text)
    run = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert run.exit_code == 0, run.output
    doc = json.loads(cli.invoke(app, ["league", "standings", str(path), "--json"]).output)
    assert doc["episodes"]["failed"] == 4  # every evaluation episode: the season goes on
    assert doc["held_out"] == {"revealed": False, "policies": ["held-out #1"]}
    assert "secret" not in json.dumps(doc)
    table = cli.invoke(app, ["league", "standings", str(path)])
    assert table.exit_code == 0, table.output
    assert "secret" not in table.output and "held-out #1" in table.output


TWO_GAMES = """
[league]
name = "two"
seed = 2
episodes = 4

[[policies]]
name = "tft"
baseline = { dilemma = "tit_for_tat", commons = "steward" }

[[policies]]
name = "defector"
baseline = { dilemma = "always_defect", commons = "free_rider" }

[[policies]]
name = "secret-a"
baseline = { commons = "steward" }
held_out = true

[[policies]]
name = "secret-z"
baseline = { dilemma = "grim_trigger" }
held_out = true

[[games]]
name = "dilemma"
seats = 3
evaluation_episodes = 2
overrides = { rounds_total = 4 }

[[games]]
name = "commons"
evaluation_episodes = 2
"""


def test_a_held_out_policy_has_one_mask_in_every_view(tmp_path: Path) -> None:
    path = tmp_path / "two.toml"
    path.write_text(TWO_GAMES, encoding="utf-8")
    run = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert run.exit_code == 0, run.output
    # the season is not over: one more episode is scheduled
    path.write_text(TWO_GAMES.replace("episodes = 4", "episodes = 5"), encoding="utf-8")

    def held(*game: str) -> list[str]:
        out = cli.invoke(app, ["league", "standings", str(path), "--json", *game])
        assert out.exit_code == 0, out.output
        doc = json.loads(out.output)
        assert doc["held_out"]["revealed"] is False and "secret" not in out.output
        return list(doc["held_out"]["policies"])

    assert held() == ["held-out #1", "held-out #2"]  # secret-a, secret-z (sorted by name)
    assert held("--game", "commons") == ["held-out #1"]
    assert held("--game", "dilemma") == ["held-out #2"]


def test_held_out_names_stay_hidden_while_infra_errors_wait_for_a_retry(
        tmp_path: Path) -> None:
    """An infra_error episode is not settled (`league run --retry-infra` plays it again), so
    the season is not over while one remains: no view names a held-out policy yet."""
    from sqlalchemy import update

    from cogleague.league import config as config_mod
    from cogleague.league import store

    path = tmp_path / "two.toml"
    path.write_text(TWO_GAMES, encoding="utf-8")
    run = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert run.exit_code == 0, run.output

    def standings() -> tuple[dict, str]:
        out = cli.invoke(app, ["league", "standings", str(path), "--json"])
        assert out.exit_code == 0, out.output
        return json.loads(out.output), out.output

    doc, _ = standings()
    assert doc["held_out"]["revealed"] is True  # every episode ok: the season is over
    url = config_mod.load(path).store_url
    with store.engine_for(url).begin() as conn:  # one platform failure, left for a retry
        first = sorted(e.id for e in store.load_episodes(url))[0]
        conn.execute(update(store.EpisodeRow).where(store.EpisodeRow.id == first)
                     .values(status="infra_error"))
    doc, text = standings()
    assert doc["episodes"]["infra_error"] == 1
    assert doc["held_out"] == {"revealed": False,
                               "policies": ["held-out #1", "held-out #2"]}
    assert "secret" not in text
    table = cli.invoke(app, ["league", "standings", str(path)])
    assert table.exit_code == 0, table.output
    assert "secret" not in table.output
    report = cli.invoke(app, ["league", "report", str(path), "--out", str(tmp_path / "r")])
    assert report.exit_code == 0, report.output
    assert not any("secret" in f.read_text(encoding="utf-8", errors="replace")
                   for f in (tmp_path / "r").rglob("*") if f.is_file())
