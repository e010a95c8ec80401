"""The config (rules §2): defaults, the seven variants, and field-named errors."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core.errors import ConfigError
from cogleague.games.commons import GAME
from cogleague.games.commons.config import CLEANUP_NORM, VARIANTS, make_config


def test_defaults_and_required_module() -> None:
    cfg = make_config(None, {"module": "harvest"})
    assert (cfg.rounds, cfg.num_players, cfg.effort_budget, cfg.seed) == (20, 6, 3, 20260824)
    assert (cfg.round_seconds, cfg.min_round_seconds, cfg.decision_timeout_seconds) == (20, 3, 8)
    assert (cfg.connect_timeout_seconds, cfg.episode_timeout_seconds) == (180, 1200)
    assert cfg.ledger_public and cfg.chat_enabled and not cfg.sanctions_enabled
    assert (cfg.chat_max_chars, cfg.sanction_cost, cfg.sanction_burn) == (140, 1.0, 3.0)
    assert (cfg.max_sanctions_received, cfg.norm_text, cfg.property_rights) == (5, "", "open")
    assert cfg.patch_count == 6 and cfg.names[0] == "Cog Alpha" and cfg.names[5] == "Cog Foxtrot"
    with pytest.raises(ConfigError, match=r"^module"):
        make_config(None, {})


@pytest.mark.parametrize(("variant", "module", "rights", "sanctions", "norm", "seed"), [
    ("cleanup", "cleanup", "open", True, CLEANUP_NORM, 20260824),
    ("harvest-open", "harvest", "open", False, "", 20260825),
    ("harvest-closed", "harvest", "closed", False, "", 20260826),
    ("harvest-partnership", "harvest", "partnership", False, "", 20260827),
    ("allelopathic", "allelopathic", "open", True, "", 20260828),
    ("mushrooms", "mushrooms", "open", True, "", 20260829),
    ("certification", "cleanup", "open", True, CLEANUP_NORM, 20260824)])
def test_the_seven_variants(variant: str, module: str, rights: str, sanctions: bool, norm: str,
                            seed: int) -> None:
    cfg = make_config(variant)
    assert (cfg.module, cfg.property_rights, cfg.sanctions_enabled, cfg.norm_text, cfg.seed) == (
        module, rights, sanctions, norm, seed)
    assert cfg.num_players == 6 and cfg.ledger_public and cfg.chat_enabled
    assert (cfg.rounds, cfg.round_seconds) == ((8, 6) if variant == "certification" else (20, 20))
    assert list(VARIANTS) == list(GAME.variants)


@pytest.mark.parametrize(("field", "value"), [
    ("rounds", 0), ("rounds", 101), ("rounds", True), ("rounds", 2.0), ("num_players", 1),
    ("num_players", 13), ("effort_budget", 4), ("round_seconds", 0), ("round_seconds", 121),
    ("min_round_seconds", -1), ("decision_timeout_seconds", 121),
    ("connect_timeout_seconds", 0), ("episode_timeout_seconds", 59), ("seed", -1),
    ("seed", 2**63), ("seed", "7"), ("ledger_public", 1), ("chat_enabled", "yes"),
    ("chat_max_chars", 0), ("chat_max_chars", 1001), ("sanctions_enabled", None),
    ("sanction_cost", 10.5), ("sanction_burn", -1), ("sanction_burn", True),
    ("max_sanctions_received", 12), ("norm_text", 5), ("property_rights", "shared"),
    ("patch_count", 13), ("names", ["a"] * 5), ("names", ["a"] * 5 + [""]),
    ("names", ["a"] * 5 + ["x" * 65]), ("module", "forest"), ("variant", "nope")])
def test_bad_values_raise_a_config_error_naming_the_field(field: str, value: Any) -> None:
    with pytest.raises(ConfigError) as err:
        make_config(None, {"module": "cleanup", field: value})
    assert str(err.value).startswith(field) and err.value.field == field


def test_unknown_keys_are_refused_and_the_seed_argument_wins() -> None:
    with pytest.raises(ConfigError, match=r"^rouds"):
        make_config("cleanup", {"rouds": 3})
    assert make_config("cleanup", {"seed": 5}, seed=9).seed == 9


def test_norm_is_cut_to_400_code_points_and_names_follow_the_seat_count() -> None:
    assert make_config("cleanup", {"norm_text": "é" * 500}).norm_text == "é" * 400
    cfg = make_config("cleanup", {"num_players": 8})
    assert cfg.names[5:] == ("Cog Foxtrot", "Seat 6", "Seat 7")


def test_game_info_builds_games_and_sizes_tables() -> None:
    game = GAME.make("mushrooms", {}, 3, ["steward"] * 4)
    assert game.num_seats == 4 and game.config.seed == 3
    assert GAME.seats_for("cleanup", {}) == 6 and GAME.default_lineup("certification")[0] == "llm"
    with pytest.raises(ConfigError, match=r"^seats"):
        GAME.make("cleanup", {"num_players": 6}, None, ["steward"] * 5)
