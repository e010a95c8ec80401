"""Dilemma profiles: the classic strategies come out as the literature states them, intervals
are Wilson's, and `cogleague profile` prints and writes them for any seat kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core.errors import ConfigError
from cogleague.games.registry import get
from cogleague.profiles import Profile, profile
from cogleague.profiles.intervals import mean_interval, wilson
from helpers.model_toys import options_for
from helpers.provider_server import ProviderServer, Reply

EPISODES = 8


def verdicts(policy: str) -> dict[str, str | None]:
    p = profile(get("dilemma"), policy, episodes=EPISODES, seed=3)
    return {t.trait.name: t.verdict for t in p.traits}


def test_tit_for_tat_is_nice_retaliating_and_forgiving() -> None:
    v = verdicts("tit_for_tat")
    assert (v["nice"], v["retaliating"], v["forgiving"]) == ("yes", "yes", "yes")
    assert v["exploitable"] == "no" and v["coop_after_timeout"] == "yes"


def test_grim_trigger_is_nice_and_retaliating_but_not_forgiving() -> None:
    v = verdicts("grim_trigger")
    assert (v["nice"], v["retaliating"], v["forgiving"]) == ("yes", "yes", "no")


def test_always_defect_is_not_nice_and_never_cooperates() -> None:
    p = profile(get("dilemma"), "always_defect", episodes=EPISODES, seed=3)
    assert p.value("nice").verdict == "no" and p.value("nice").value == 0.0
    assert p.value("cooperation").value == 0.0
    # it never cooperated in the provocation round: retaliation is not observable
    assert p.value("retaliating").n == 0 and p.value("retaliating").verdict is None


def test_always_cooperate_is_nice_unretaliating_and_exploitable() -> None:
    v = verdicts("always_cooperate")
    assert (v["nice"], v["retaliating"], v["exploitable"]) == ("yes", "no", "yes")


def test_promise_keeping_rate_separates_keepers_from_silver_tongues() -> None:
    keeper = profile(get("dilemma"), "promise_keeper", episodes=EPISODES).value(
        "promise_keeping")
    liar = profile(get("dilemma"), "silver_tongue", episodes=EPISODES).value("promise_keeping")
    assert keeper.value == 1.0 and keeper.n > 0
    assert liar.value is not None and liar.value < 0.75 and liar.high is not None
    assert liar.high < 1.0


def test_profiles_are_deterministic_for_a_seed() -> None:
    a = profile(get("dilemma"), "generous_tit_for_tat", episodes=4, seed=9).to_json()
    b = profile(get("dilemma"), "generous_tit_for_tat", episodes=4, seed=9).to_json()
    assert a == b


def test_wilson_interval_matches_the_formula_and_stays_in_bounds() -> None:
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert mean_interval([1.0]) is None
    bounds = mean_interval([1.0, 2.0, 3.0])
    assert bounds is not None and bounds[0] < 2.0 < bounds[1]


def test_a_model_seat_is_profiled_through_the_provider(server: ProviderServer) -> None:
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    p: Profile = profile(get("dilemma"), "llm", episodes=2, model=options_for(server))
    assert p.value("nice").verdict == "yes" and p.value("cooperation").value == 1.0
    assert len(server.requests) == 2 * 10 * 4  # 2 episodes, 10 rounds, 4 pairings


def test_cli_profile_prints_the_table_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "tft.json"
    result = CliRunner().invoke(app, ["profile", "tit_for_tat", "--game", "dilemma",
                                      "--episodes", "3", "--out", str(out), "--explain"])
    assert result.exit_code == 0, result.output
    assert "retaliating" in result.output and "Against probe:provoker" in result.output
    doc = json.loads(out.read_text())
    assert doc["policy"] == "tit_for_tat" and doc["episodes"] == 3
    assert {t["trait"] for t in doc["traits"]} >= {"nice", "retaliating", "forgiving",
                                                   "exploitable", "promise_keeping",
                                                   "coop_after_timeout"}


def test_cli_profile_errors_name_the_option() -> None:
    bad = CliRunner().invoke(app, ["profile", "tit_for_tat", "--game", "nope"])
    assert bad.exit_code == 2 and "--game must be one of" in bad.output
    zero = CliRunner().invoke(app, ["profile", "tit_for_tat", "--game", "dilemma",
                                    "--episodes", "0"])
    assert zero.exit_code == 2 and "--episodes must be an integer in 1..10000" in zero.output
    many = CliRunner().invoke(app, ["profile", "tit_for_tat", "--game", "dilemma",
                                    "--opponents", "pavlov,pavlov,pavlov,pavlov"])
    assert many.exit_code == 2 and "--opponents may list 0..3" in many.output


@pytest.mark.parametrize("extra", ["probe:sleeper", "probe:provoker"])
def test_a_probe_is_not_seated_twice_so_per_episode_traits_count_episodes(extra: str) -> None:
    """'Share of episodes' traits (retaliating, cooperation after a timeout) have at most one
    observation per episode: a probe name among --opponents would count each episode twice
    and narrow the interval, so it is refused, naming the option."""
    with pytest.raises(ConfigError) as err:
        profile(get("dilemma"), "tit_for_tat", episodes=2, opponents=[extra])
    assert err.value.field == "opponents" and extra in str(err.value)
    cli = CliRunner().invoke(app, ["profile", "tit_for_tat", "--game", "dilemma",
                                   "--episodes", "2", "--opponents", f"pavlov,{extra}"])
    assert cli.exit_code == 2 and "--opponents" in cli.output and extra in cli.output
    ok = profile(get("dilemma"), "tit_for_tat", episodes=2, opponents=["pavlov"])
    assert ok.value("coop_after_timeout").n == 2 and ok.value("retaliating").n == 2
