"""Leagues researchers can publish: a model league recorded once replays with the provider
switched off and the same standings; costs from a price table; held-out opponents seated only
in evaluation episodes, hidden until the season ends, compared side by side with the public
pool; behaviour profiles in the report."""

from __future__ import annotations

import itertools
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from cogleague.league import config as league_config
from cogleague.league import runner, store
from cogleague.league.backends.local import LocalBackend
from cogleague.league.heldout import SOURCE
from cogleague.league.profiles import league_profiles
from cogleague.league.rankings import standings_json
from cogleague.league.report import write_report
from cogleague.seats.llm.pricing import load_prices
from helpers.provider_server import ProviderServer, Recorded, Reply

PRICES = """currency = "EUR"
[models."test-openai"]
input_per_million = "2.50"
output_per_million = "10"
"""


def model_league(tmp: Path, url: str | None, recording: str) -> Path:
    (tmp / "prompt.txt").write_text("Cooperate unless betrayed twice.", encoding="utf-8")
    (tmp / "prices.toml").write_text(PRICES, encoding="utf-8")
    base = f'base_url = "{url}"' if url else ""
    path = tmp / f"league-{recording.split(' ')[0]}.toml"
    path.write_text(f"""
[league]
name = "models"
seed = 5
episodes = 4
store = "{path.stem}.db"
{recording}
prices = "prices.toml"

[[policies]]
name = "prompted"
prompt = "prompt.txt"
model = "test-openai"
provider = "openai"
{base}

[[policies]]
name = "tft"
baseline = {{ dilemma = "tit_for_tat" }}

[[policies]]
name = "grim"
baseline = {{ dilemma = "grim_trigger" }}

[[policies]]
name = "alld"
baseline = {{ dilemma = "always_defect" }}

[[games]]
name = "dilemma"
seats = 4
overrides = {{ rounds_total = 3 }}
""", encoding="utf-8")
    return path


def varying() -> object:
    counter = itertools.count()

    def script(_req: Recorded) -> Reply:
        n = next(counter)
        return Reply(json.dumps({"action": "defect" if n % 4 == 0 else "cooperate"}),
                     input_tokens=100, output_tokens=5)
    return script


def play(path: Path) -> dict[str, object]:
    cfg = league_config.load(path)
    summary = runner.run(cfg, LocalBackend(1))
    assert summary.failed == 0
    return standings_json(cfg.store_url, league=cfg.name, prices=load_prices(cfg.prices or ""))


def test_a_recorded_model_league_replays_with_the_provider_off_and_the_same_standings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with ProviderServer(varying()) as live:  # type: ignore[arg-type]
        recorded = play(model_league(tmp_path, live.openai_url, 'record = "rec"'))
        sent = len(live.requests)
    assert sent > 0
    monkeypatch.delenv("OPENAI_API_KEY")
    replayed = play(model_league(tmp_path, None, 'replay = "rec"'))
    assert replayed["tables"] == recorded["tables"]
    assert replayed["overall"] == recorded["overall"]
    live_costs, replay_costs = recorded["costs"], replayed["costs"]
    assert isinstance(live_costs, dict) and isinstance(replay_costs, dict)
    row = live_costs["rows"][0]
    assert row["policy"] == "prompted" and row["requests"] == sent
    assert row["input_tokens"] == 100 * sent and row["output_tokens"] == 5 * sent
    # 2.50 per million in, 10 per million out, exactly
    expected = (Decimal("2.50") * 100 * sent + Decimal(10) * 5 * sent) / Decimal(10**6)
    assert Decimal(row["cost"]) == expected
    assert live_costs["currency"] == "EUR" and live_costs["total_cost"] == row["cost"]
    replay_row = replay_costs["rows"][0]
    assert replay_row["requests"] == 0 and replay_row["replayed"] == sent
    assert Decimal(replay_row["cost"]) == 0  # replayed: no tokens, no money


def test_unknown_models_show_tokens_only(tmp_path: Path) -> None:
    from cogleague.league.costs import cost_section
    from cogleague.league.episodes import EpisodeRecord
    from cogleague.seats.llm.pricing import parse_prices

    ep = EpisodeRecord(id="x", league="l", game="g", variant=None, seed=1,
                       policies=["a", "b"], results={"scores": [1, 2], "models": {
                           "model": ["unpriced", None], "requests": [3, 0],
                           "replayed": [0, 0], "input_tokens": [30, 0],
                           "output_tokens": [6, 0]}})
    section = cost_section([ep], parse_prices({"models": {}}))
    assert section is not None
    assert section["rows"] == [{"policy": "a", "model": "unpriced", "requests": 3,
                                "replayed": 0, "input_tokens": 30, "output_tokens": 6,
                                "cost": None}]
    assert section["total_cost"] is None and section["total_input_tokens"] == 30


def held_out_league(tmp: Path, episodes: int = 8) -> Path:
    path = tmp / "heldout.toml"
    path.write_text(f"""
[league]
name = "ho"
seed = 3
episodes = {episodes}

[profiles]
episodes = 6

[[policies]]
name = "exploiter"
baseline = {{ dilemma = "always_defect" }}

[[policies]]
name = "reciprocal"
baseline = {{ dilemma = "tit_for_tat" }}

[[policies]]
name = "sucker-a"
baseline = {{ dilemma = "always_cooperate" }}

[[policies]]
name = "sucker-b"
baseline = {{ dilemma = "always_cooperate" }}

[[policies]]
name = "secret-grudger"
baseline = {{ dilemma = "grim_trigger" }}
held_out = true

[[policies]]
name = "secret-tft"
baseline = {{ dilemma = "tit_for_tat" }}
held_out = true

[[games]]
name = "dilemma"
seats = 3
evaluation_episodes = 8
overrides = {{ rounds_total = 10, promises = false }}
""", encoding="utf-8")
    return path


def test_held_out_policies_sit_only_in_evaluation_episodes(tmp_path: Path) -> None:
    cfg = league_config.load(held_out_league(tmp_path))
    specs = cfg.schedule()
    public = [s for s in specs if s.source != SOURCE]
    evaluation = [s for s in specs if s.source == SOURCE]
    assert len(public) == 8 and len(evaluation) == 8
    held = {"secret-grudger", "secret-tft"}
    assert all(not held & set(s.policies) for s in public)
    for s in evaluation:
        assert len([p for p in s.policies if p not in held]) == 1
    assert {next(p for p in s.policies if p not in held) for s in evaluation} == {
        "exploiter", "reciprocal", "sucker-a", "sucker-b"}


def test_standings_hide_held_out_names_until_the_season_ends_and_show_the_gap(
        tmp_path: Path) -> None:
    path = held_out_league(tmp_path)
    cfg = league_config.load(path)
    runner.run(cfg, LocalBackend(1), limit=10)
    hidden = json.dumps(standings_json(cfg.store_url, league=cfg.name))
    assert "secret" not in hidden and "held-out #1" in hidden
    runner.run(cfg, LocalBackend(1))
    doc = standings_json(cfg.store_url, league=cfg.name, reveal_held_out=True)
    assert doc["held_out"] == {"revealed": True, "policies": ["secret-grudger", "secret-tft"]}
    table = doc["tables"][0]
    assert {r["policy"] for r in table["rows"]} == {"exploiter", "reciprocal", "sucker-a",
                                                     "sucker-b"}
    rows = {r["policy"]: r for r in table["held_out"]["rows"]}
    exploiter = rows["exploiter"]
    # always-defect feeds on the public suckers; the held-out reciprocators punish it
    assert exploiter["difference"] == pytest.approx(exploiter["vs_held_out"]
                                                    - exploiter["vs_public"])
    assert exploiter["difference"] < 0 and exploiter["high"] < 0 and exploiter["shows_gap"]
    assert exploiter["held_out_games"] == 2


def test_the_report_carries_profiles_held_out_and_costs(tmp_path: Path) -> None:
    path = held_out_league(tmp_path, episodes=4)
    cfg = league_config.load(path)
    runner.run(cfg, LocalBackend(1))
    doc = standings_json(cfg.store_url, league=cfg.name, reveal_held_out=True)
    profiles = league_profiles(cfg, reveal_held_out=True)
    assert [g["game"] for g in profiles] == ["dilemma"]
    by = {p["policy"]: {t["trait"]: t for t in p["traits"]} for p in profiles[0]["profiles"]}
    assert by["reciprocal"]["forgiving"]["verdict"] == "yes"
    assert by["exploiter"]["nice"]["verdict"] == "no"
    assert "secret-grudger" in by
    episodes = store.load_episodes(cfg.store_url, league=cfg.name, status=store.STATUS_OK)
    page = write_report(doc, episodes, tmp_path / "report", title="t", profiles=profiles)
    text = page.read_text()
    assert "Behaviour profiles" in text and "Public vs held-out opponents" in text
    assert (tmp_path / "report" / "profiles-dilemma.png").stat().st_size > 1000
    table = (tmp_path / "report" / "profiles.md").read_text()
    assert "| reciprocal |" in table and "retaliating" in table
    assert not league_profiles(cfg, reveal_held_out=False)[0]["profiles"][-1]["policy"
                                                                              ].startswith(
        "secret")


def test_the_example_profiles_league_is_valid() -> None:
    path = Path(__file__).parents[2] / "examples" / "profiles-league.toml"
    cfg = league_config.load(path, store_url="sqlite://")
    assert cfg.profiles is not None and cfg.held_out == ["secret-pavlov", "secret-gtft"]


def test_the_reports_score_plots_hold_every_episode_of_a_game_played_at_its_default_variant(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A league that names no variant plays the game's default, and the standings table names
    it: the report's per-episode plots must find that table's episodes all the same."""
    from cogleague.league import report

    path = held_out_league(tmp_path, episodes=4)
    cfg = league_config.load(path)
    runner.run(cfg, LocalBackend(1))
    doc = standings_json(cfg.store_url, league=cfg.name)
    episodes = store.load_episodes(cfg.store_url, league=cfg.name, status=store.STATUS_OK)
    assert {ep.variant for ep in episodes} == {None}  # the league names no variant
    plotted: dict[str, int] = {}
    real_plot = report.plot_scores

    def counting(table: dict[str, Any], eps: Any, out: Path) -> str:
        plotted[f"{table['game']}/{table['variant']}"] = len(eps)
        return real_plot(table, eps, out)

    monkeypatch.setattr(report, "plot_scores", counting)
    report.write_report(doc, episodes, tmp_path / "report", title="t")
    assert plotted == {f"{t['game']}/{t['variant']}": t["episodes"] for t in doc["tables"]}
    assert all(plotted.values())
