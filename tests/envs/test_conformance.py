"""The ecosystem's own checks, for every game (and every Commons module)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

from cogleague.envs import aec_env, parallel_env, single_agent_env
from envs.support import CHECKERS_DUMMY_OPTION

pytestmark = CHECKERS_DUMMY_OPTION

# (game, variant, options): short episodes so that every check plays several to the end.
TABLES: list[tuple[str, str | None, dict[str, Any]]] = [
    ("dilemma", None, {"rounds_total": 4}),
    ("dilemma", "classic200", {"rounds_total": 3, "seats": 5}),
    ("ledger", "quickfire", {}),
    ("ledger", "certification", {}),  # fixes its seed (7): the checkers reset with others
    ("commons", "cleanup", {"rounds": 4}),
    ("commons", "harvest-closed", {"rounds": 3}),
    ("commons", "allelopathic", {"rounds": 3}),
    ("commons", "mushrooms", {"rounds": 3, "sanctions_enabled": False}),
]
IDS = [f"{g}-{v}" for g, v, _ in TABLES]
# The single-agent face needs opponents where the variant's line-up has model seats.
OPPONENTS: dict[str, list[str]] = {
    "ledger-certification": ["mirror", "shark", "mirror", "mirror", "grim", "mirror", "shark"],
}


@pytest.mark.parametrize(("game", "variant", "options"), TABLES, ids=IDS)
def test_parallel_api(game: str, variant: str | None, options: dict[str, Any]) -> None:
    parallel_api_test(parallel_env(game, variant=variant, **options), num_cycles=400)


@pytest.mark.parametrize(("game", "variant", "options"), TABLES, ids=IDS)
def test_parallel_seed(game: str, variant: str | None, options: dict[str, Any]) -> None:
    parallel_seed_test(lambda: parallel_env(game, variant=variant, **options), num_cycles=100)


@pytest.mark.parametrize(("game", "variant", "options"), TABLES, ids=IDS)
def test_aec_api(game: str, variant: str | None, options: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        # a waiting seat's observation is all zeros by design (acting = 0)
        warnings.filterwarnings("ignore", message="Observation numpy array is all zeros")
        api_test(aec_env(game, variant=variant, **options), num_cycles=400)


@pytest.mark.parametrize(("game", "variant", "options"), TABLES, ids=IDS)
def test_single_agent_check_env(game: str, variant: str | None,
                                options: dict[str, Any]) -> None:
    opponents = OPPONENTS.get(f"{game}-{variant}")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*render modes.*")
        check_env(single_agent_env(game, variant=variant, opponents=opponents, **options),
                  skip_render_check=True)
