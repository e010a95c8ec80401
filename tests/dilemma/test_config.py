"""Spec §1: defaults, variants and validation (a clear error naming the field)."""

from __future__ import annotations

import pytest

from cogleague.core.errors import ConfigError
from cogleague.games.dilemma import GAME
from cogleague.games.dilemma.config import Payoffs, make_config
from cogleague.games.registry import get


def test_defaults_are_the_spec_table() -> None:
    cfg = make_config(None, {}, 5)
    assert (cfg.seats, cfg.rounds_total, cfg.promises, cfg.turn_deadline_ms) == (4, 20, True,
                                                                                 10_000)
    assert cfg.max_message_chars == 280
    assert cfg.payoffs == Payoffs(reward=3, punishment=1, temptation=5, sucker=0)
    assert (cfg.stake, cfg.rake_bps, cfg.seed) == (0, 500, 5)


def test_classic200_is_a_configuration() -> None:
    cfg = make_config("classic200", {}, 1)
    assert cfg.rounds_total == 200 and cfg.promises is False
    assert make_config("classic200", {"rounds_total": 50}, 1).rounds_total == 50


@pytest.mark.parametrize(("overrides", "field", "text"), [
    ({"seats": 2}, "seats", "3..8"),
    ({"seats": 9}, "seats", "3..8"),
    ({"rounds_total": 0}, "rounds_total", "1..1000"),
    ({"rounds_total": 1001}, "rounds_total", "1..1000"),
    ({"rounds_total": 2.5}, "rounds_total", "1..1000"),
    ({"promises": "yes"}, "promises", "true or false"),
    ({"turn_deadline_ms": 99}, "turn_deadline_ms", "100..600000"),
    ({"turn_deadline_ms": 600_001}, "turn_deadline_ms", "100..600000"),
    ({"stake": -1}, "stake", "0..1000000000"),
    ({"stake": 10**9 + 1}, "stake", "0..1000000000"),
    ({"rake_bps": 2001}, "rake_bps", "0..2000"),
    ({"max_message_chars": 100}, "max_message_chars", "fixed at 280"),
    ({"rounds": 5}, "rounds", "not a dilemma config setting"),
    ({"payoffs": {"reward": 5, "temptation": 5}}, "payoffs", "temptation > reward"),
    ({"payoffs": {"punishment": 3}}, "payoffs", "temptation > reward > punishment"),
    ({"payoffs": {"sucker": 2}}, "payoffs", "punishment >= sucker"),
    ({"payoffs": {"temptation": 7}}, "payoffs", "2 × reward > temptation + sucker"),
    ({"payoffs": {"reward": 3.5}}, "payoffs.reward", "integer"),
    ({"payoffs": {"bonus": 1}}, "bonus", "not a payoffs setting"),
    ({"payoffs": [3, 1, 5, 0]}, "payoffs", "an object"),
])
def test_bad_values_name_the_field_and_range(overrides: dict, field: str, text: str) -> None:
    with pytest.raises(ConfigError) as info:
        make_config(None, overrides, 1)
    assert info.value.field == field
    assert str(info.value).startswith(field.split(".")[0])
    assert text in str(info.value)


def test_unknown_variant() -> None:
    with pytest.raises(ConfigError, match="variant must be one of standard, classic200"):
        make_config("blitz", {}, 1)


def test_valid_custom_payoffs_are_accepted() -> None:
    cfg = make_config(None, {"payoffs": {"reward": 4, "punishment": 2, "temptation": 6,
                                         "sucker": 1}}, 1)
    assert cfg.payoffs == Payoffs(4, 2, 6, 1)


def test_registry_entry() -> None:
    info = get("dilemma")
    assert info.name == GAME.name and info.make is GAME.make and "entry point" in info.origin
    assert (info.name, info.version, info.title) == ("dilemma", "dilemma-0.1",
                                                           "Prisoner's Dilemma tables")
    assert list(info.variants) == ["standard", "classic200"]
    assert info.seat_range == (3, 8) and info.fallback_baseline == "always_cooperate"
    assert set(info.baselines) == {"tit_for_tat", "always_cooperate", "always_defect",
                                   "grim_trigger", "pavlov", "generous_tit_for_tat", "random",
                                   "promise_keeper", "silver_tongue"}
    assert str(info.rules_file).endswith("rules.md")
    with open(info.rules_file, encoding="utf-8") as f:
        assert "# Prisoner's Dilemma — rules (dilemma-0.1)" in f.read()
    for variant in info.variants:
        lineup = info.default_lineup(variant)
        assert set(lineup) <= set(info.baselines)
        assert info.make(variant, {}, 3, lineup).num_seats == len(lineup)
    assert info.seats_for(None, {}) == 4


def test_make_uses_the_lineup_length_for_seats() -> None:
    with pytest.raises(ConfigError, match=r"seats must list 3\.\.8 policies \(got 2\)"):
        GAME.make(None, {}, 1, ["tit_for_tat", "pavlov"])
    with pytest.raises(ConfigError, match="seats is 5 but the line-up names 3"):
        GAME.make(None, {"seats": 5}, 1, ["tit_for_tat"] * 3)
    assert GAME.make(None, {}, None, ["pavlov"] * 3).config.seed >= 0  # a seed is drawn
