"""Config (spec §2): ranges named in errors, booleans refused, nothing clamped; variants."""

from __future__ import annotations

import pytest

from cogleague.core.errors import ConfigError
from cogleague.games.ledger import GAME, LedgerGame
from cogleague.games.ledger.config import CERTIFICATION_LINEUP, build_config

from .support import MIX, make_game


@pytest.mark.parametrize("rounds", [3, 29, 0, -1])
def test_rounds_out_of_range_are_rejected_with_field_and_range(rounds: int) -> None:
    with pytest.raises(ConfigError) as err:
        make_game(rounds=rounds)
    assert err.value.field == "rounds"
    assert str(err.value) == f"rounds must be an integer in 4..28 (got {rounds})"


@pytest.mark.parametrize("rounds", [4, 28])
def test_rounds_at_the_bounds_are_accepted(rounds: int) -> None:
    game = make_game(rounds=rounds)
    assert game.config.rounds == rounds and len(game.schedule) == rounds


@pytest.mark.parametrize("rounds", [True, False, 7.0, 7.5, "7", None])
def test_bool_fractional_and_non_integer_rounds_are_rejected(rounds: object) -> None:
    with pytest.raises(ConfigError, match=r"^rounds must be an integer in 4\.\.28"):
        make_game(rounds=rounds)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [7, 9, 1])
def test_seat_counts_other_than_eight_are_rejected(count: int) -> None:
    with pytest.raises(ConfigError) as err:
        GAME.make("standard", {}, 1, ["mirror"] * count)
    assert err.value.field == "seats"
    assert "exactly 8" in str(err.value) and f"got {count}" in str(err.value)


def test_no_line_up_means_the_variant_default() -> None:
    assert GAME.make("standard", {}, 1, []).policy_names == GAME.default_lineup("standard")


def test_unknown_baseline_is_rejected_naming_seats() -> None:
    with pytest.raises(ConfigError) as err:
        GAME.make("standard", {}, 1, ["mirror"] * 7 + ["pirate"])
    assert err.value.field == "seats" and "pirate" in str(err.value)
    assert "mirror, shark, grim, saint, opportunist" in str(err.value)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("seed", -1, "seed must be an integer in 0..2147483647 (got -1)"),
    ("seed", 2_147_483_648, "seed must be an integer in 0..2147483647 (got 2147483648)"),
    ("seed", True, "seed must be an integer in 0..2147483647 (got True)"),
    ("episode_timeout_s", 59, "episode_timeout_s must be a number in 60..6000 (got 59)"),
    ("episode_timeout_s", 6001, "episode_timeout_s must be a number in 60..6000 (got 6001)"),
    ("play_budget_fraction", 0.95, "play_budget_fraction must be a number in 0.1..0.9 "
                                   "(got 0.95)"),
    ("play_budget_fraction", False, "play_budget_fraction must be a number in 0.1..0.9 "
                                    "(got False)"),
    ("decision_timeout_s", 4, "decision_timeout_s must be a number in 5..300 (got 4)"),
    ("decision_timeout_s", 301.5, "decision_timeout_s must be a number in 5..300 (got 301.5)"),
])
def test_each_setting_names_field_range_and_value(field: str, value: object,
                                                  message: str) -> None:
    with pytest.raises(ConfigError) as err:
        GAME.make("standard", {field: value}, None, MIX)
    assert err.value.field == field and str(err.value) == message


def test_edge_values_are_kept_exactly_not_clamped() -> None:
    c = GAME.make("standard", {"episode_timeout_s": 60, "play_budget_fraction": 0.9,
                               "decision_timeout_s": 300}, 2_147_483_647, MIX).config
    assert (c.seed, c.episode_timeout_s, c.play_budget_fraction, c.decision_timeout_s) == (
        2_147_483_647, 60.0, 0.9, 300.0)


def test_unknown_settings_and_variants_are_errors() -> None:
    with pytest.raises(ConfigError, match=r"^round is not a ledger setting"):
        GAME.make("standard", {"round": 5}, 1, MIX)
    with pytest.raises(ConfigError, match=r"^variant must be one of standard, quickfire, "
                                          "certification"):
        GAME.make("blitz", {}, 1, MIX)


def test_variants_and_defaults() -> None:
    standard = GAME.make(None, {}, 3, MIX).config
    assert (standard.variant, standard.rounds, standard.episode_timeout_s,
            standard.play_budget_fraction, standard.decision_timeout_s) == (
        "standard", 14, 1200.0, 0.6, 30.0)
    assert GAME.make("quickfire", {}, 3, MIX).config.rounds == 7
    cert = GAME.make("certification", {}, None, [])
    assert (cert.config.seed, cert.config.rounds) == (7, 6)
    assert cert.policy_names == list(CERTIFICATION_LINEUP)
    assert [s.driver for s in cert.config.seats] == [
        "model", "scripted:mirror", "scripted:shark", "model", "scripted:mirror", "model",
        "scripted:mirror", "scripted:shark"]


def test_certification_fixes_its_seed_and_rounds() -> None:
    with pytest.raises(ConfigError, match=r"^seed must be 7 in the certification variant"):
        GAME.make("certification", {}, 8, [])
    with pytest.raises(ConfigError, match=r"^rounds must be 6 in the certification variant"):
        GAME.make("certification", {"rounds": 14}, None, [])


def test_seed_defaults_to_recorded_os_entropy() -> None:
    seeds = {GAME.make("standard", {}, None, MIX).config.seed for _ in range(5)}
    assert all(0 <= s <= 2_147_483_647 for s in seeds) and len(seeds) > 1


def test_seats_may_be_given_as_policy_name_and_driver() -> None:
    specs = [{"policy_name": f"team-{i}", "driver": "remote"} for i in range(7)]
    specs.append({"policy_name": "house", "driver": "scripted:Mirror"})
    config = build_config("standard", {"seats": specs}, 5, [])
    assert config.policy_names[7] == "house" and config.seats[7].driver == "scripted:mirror"
    with pytest.raises(ConfigError, match=r"seats\[0\]\.driver must be"):
        build_config("standard", {"seats": [{"policy_name": "x", "driver": "human"}] * 8}, 5, [])


def test_line_up_names_classify_drivers_case_insensitively() -> None:
    names = ["MIRROR", "Shark", "llm", "llm:prompts/fair.txt", "tests.bots:Greedy", "grim",
             "saint", "opportunist"]
    drivers = [s.driver for s in build_config("standard", {}, 5, names).seats]
    assert drivers == ["scripted:mirror", "scripted:shark", "model", "model", "remote",
                       "scripted:grim", "scripted:saint", "scripted:opportunist"]


def test_game_info() -> None:
    assert (GAME.name, GAME.version, GAME.title) == ("ledger", "ledger-1", "Ledger")
    assert list(GAME.variants) == ["standard", "quickfire", "certification"]
    assert list(GAME.baselines) == ["mirror", "shark", "grim", "saint", "opportunist"]
    assert GAME.seat_range == (8, 8) and GAME.fallback_baseline == "mirror"
    assert sorted(set(GAME.default_lineup("standard"))) == sorted(GAME.baselines)
    with open(GAME.rules_file, encoding="utf-8") as f:
        rules = f.read()
    assert "| **a defects** | 10 / 0 | 2 / 2 |" in rules


def test_make_baseline_is_case_insensitive_and_names_seats() -> None:
    game = make_game()
    assert type(game.make_baseline("SaInT", 3)).__name__ == "Saint"
    with pytest.raises(ConfigError) as err:
        game.make_baseline("nobody", 2)
    assert err.value.field == "seats"


def test_timing_follows_the_config() -> None:
    game: LedgerGame = make_game(decision_timeout_s=30, episode_timeout_s=1200,
                                 play_budget_fraction=0.6)
    t = game.timing()
    assert (t.decision_timeout_s, t.retries, t.play_budget_s, t.reserve_s,
            t.reserve_scripted_s) == (30.0, 1, 720.0, 70.0, 2.0)


def test_public_config_hides_the_seed() -> None:
    public = make_game(seed=1234).public_config()
    assert "seed" not in public and 1234 not in public.values()
    assert public["rounds"] == 14
