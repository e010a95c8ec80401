"""The runner on a real SQLite store: resume, identical results across backends and worker
counts, infrastructure failures kept out of the rankings, config errors, server episodes."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from leaguefiles import league_text, stored

from cogleague.core.errors import ConfigError
from cogleague.league import config as league_config
from cogleague.league import runner, store
from cogleague.league.rankings import standings_json


def test_resume_after_an_interrupted_run_skips_finished_episodes(
        write_league: Callable[..., Path]) -> None:
    cfg = league_config.load(write_league(episodes=30))
    calls: list[int] = []

    def interrupt_after_two_chunks(done: int, failed: int) -> None:
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.run(cfg, runner.make_backend("local", 1), progress=interrupt_after_two_chunks,
                   chunk_size=4)
    finished = store.finished_ids(cfg.store_url)
    assert len(finished) == 8  # both chunks were written before the interruption

    second = runner.run(cfg, runner.make_backend("local", 1), chunk_size=4)
    assert (second.scheduled, second.skipped, second.played) == (30, 8, 22)
    third = runner.run(cfg, runner.make_backend("local", 1))
    assert (third.skipped, third.played) == (30, 0)

    # the resumed store equals a store filled in one go
    fresh = league_config.load(write_league(filename="fresh.toml", episodes=30))
    runner.run(fresh, runner.make_backend("local", 1))
    assert stored(cfg.store_url) == stored(fresh.store_url)


def test_raising_episodes_appends_and_keeps_the_finished_ones(
        write_league: Callable[..., Path]) -> None:
    cfg = league_config.load(write_league(episodes=12))
    runner.run(cfg, runner.make_backend("local", 1))
    before = store.finished_ids(cfg.store_url)
    more = league_config.load(write_league(episodes=20))
    summary = runner.run(more, runner.make_backend("local", 1))
    assert (summary.skipped, summary.played) == (12, 8)
    assert before < store.finished_ids(cfg.store_url)


def test_one_process_and_a_pool_of_two_store_identical_results(
        write_league: Callable[..., Path]) -> None:
    one = league_config.load(write_league(filename="one.toml", episodes=40))
    two = league_config.load(write_league(filename="two.toml", episodes=40))
    runner.run(one, runner.make_backend("local", 1))
    summary = runner.run(two, runner.make_backend("local", 2), chunk_size=3)
    assert summary.played == 40 and summary.failed == 0
    assert stored(one.store_url) == stored(two.store_url)
    assert len(stored(one.store_url)) == 40


BROKEN = """
[[policies]]
name = "broken"
author = "tests"
bot = "leaguegames:BrokenBot"
"""


def test_infrastructure_failures_are_stored_shown_and_excluded(
        write_league: Callable[..., Path]) -> None:
    cfg = league_config.load(write_league(episodes=25, extra_policies=BROKEN))
    summary = runner.run(cfg, runner.make_backend("local", 1))
    failed = [e for e in store.load_episodes(cfg.store_url) if e.status == "failed"]
    assert summary.failed == len(failed) > 0
    assert all("broken" in e.policies for e in failed)
    assert all("weights file missing" in (e.error or "") for e in failed)

    doc = standings_json(cfg.store_url)
    assert doc["episodes"] == {"ok": 25 - len(failed), "failed": len(failed), "infra_error": 0,
                               "no_players": 0}
    assert {f["id"] for f in doc["failures"]} == {e.id for e in failed}
    ranked = {r["policy"] for r in doc["tables"][0]["rows"]}
    ranked |= {r["policy"] for r in doc["overall"]["bradley_terry"]["rows"]}
    ranked |= {r["policy"] for r in doc["overall"]["openskill"]["rows"]}
    assert "broken" not in ranked
    assert ranked == {"weak", "mid", "strong", "steady"}

    # a later run retries the failed episodes (they fail again) and counts the attempts
    again = runner.run(cfg, runner.make_backend("local", 1))
    assert again.played == len(failed)
    assert {e.attempts for e in store.load_episodes(cfg.store_url, status="failed")} == {2}


def test_standings_rank_the_known_order_with_intervals(
        write_league: Callable[..., Path]) -> None:
    cfg = league_config.load(write_league(episodes=60))
    runner.run(cfg, runner.make_backend("local", 1))
    doc = standings_json(cfg.store_url, league=cfg.name, resamples=500)
    (table,) = doc["tables"]
    order = [r["policy"] for r in table["rows"]]
    assert (order[0], order[-1]) == ("strong", "weak")
    for r in table["rows"]:
        assert r["low"] < r["mean"] < r["high"]
        assert r["author"] == "tests"
    assert table["rows"][0]["rank_label"] == "1"
    bt = [r["policy"] for r in doc["overall"]["bradley_terry"]["rows"]]
    assert bt[0] == "strong" and bt[-1] == "weak"


def test_server_tables_feed_the_same_standings(write_league: Callable[..., Path]) -> None:
    cfg = league_config.load(write_league(episodes=6))
    runner.run(cfg, runner.make_backend("local", 1))
    for t in range(3):
        store.record_episode(cfg.store_url, game="skill", variant="standard", seed=t,
                             policy_names=["remote-bot", "weak", "mid"],
                             results={"scores": [50.0, 1.0, 2.0], "reason": "complete"},
                             table_id=f"table-{t}")
    league_only = standings_json(cfg.store_url, league=cfg.name)
    both = standings_json(cfg.store_url, leagues=[cfg.name, store.SERVER_LEAGUE])
    assert "remote-bot" not in {r["policy"] for r in league_only["tables"][0]["rows"]}
    rows = {r["policy"]: r for r in both["tables"][0]["rows"]}
    assert rows["remote-bot"]["games"] == 3 and rows["remote-bot"]["kind"] == "server"
    assert both["episodes"]["ok"] == 9


@pytest.mark.parametrize(("snippet", "field"), [
    ("[league]\nseed = 1\n", "league.name"),
    ('[league]\nname = "x"\nepisodes = 0\n', "league.episodes"),
    ('[league]\nname = "x"\ncolour = 1\n', "colour"),
])
def test_config_errors_name_the_field(write_league: Callable[..., Path], snippet: str,
                                      field: str) -> None:
    text = league_text().replace('[league]\nname = "t"\nseed = 11\n', snippet, 1)
    with pytest.raises(ConfigError) as info:
        league_config.load(write_league(text))
    assert str(info.value).startswith(field)


@pytest.mark.parametrize(("old", "new", "message"), [
    ("seats = 3", "seats = 9", "games[0].seats must be an integer in 2..8 (got 9)"),
    ('baseline = "s2"', 'baseline = "s99"', "policies[0] (weak) plays none of the league's"),
    ('baseline = "s2"', 'baseline = { skill = "s99" }', "games[0]: seats: unknown baseline"),
    ('bot = "leaguegames:SteadyBot"', 'bot = "leaguegames:Nope"', "leaguegames has no class Nope"),
    ('variants = ["standard"]', 'variants = ["nope"]', "games[0].variants must be one of"),
    ('name = "mid"', 'name = "weak"', "used twice"),
    ('name = "mid"', 'name = "mid#2"', "must not contain"),
])
def test_bad_league_files_are_refused_before_running(write_league: Callable[..., Path],
                                                     old: str, new: str, message: str) -> None:
    text = league_text().replace(old, new, 1)
    with pytest.raises(ConfigError, match=re.escape(message)):
        league_config.load(write_league(text))


def test_backend_arguments_are_checked() -> None:
    with pytest.raises(ConfigError, match="backend must be one of local, ray"):
        runner.make_backend("spark", 2)
    with pytest.raises(ConfigError, match=re.escape("workers must be an integer in 1..1024")):
        runner.make_backend("local", 0)
    with pytest.raises(ConfigError, match="ray_address applies to the ray backend only"):
        runner.make_backend("local", 2, "auto")


def test_episode_ids_are_stable_and_depend_only_on_identity(
        write_league: Callable[..., Path]) -> None:
    a = league_config.load(write_league(filename="a.toml")).schedule()
    b = league_config.load(write_league(filename="b.toml")).schedule()
    assert [s.id for s in a] == [s.id for s in b]
    assert len({s.id for s in a}) == len(a)
    renamed = league_config.load(write_league(filename="c.toml", name="other")).schedule()
    assert not {s.id for s in a} & {s.id for s in renamed}
    assert os.path.basename(league_config.load(write_league()).store_url).endswith("league.db")
