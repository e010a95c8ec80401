"""Prisoner's Dilemma tables (rules `dilemma-0.1`): a round robin with promises, timeouts and
paid tables. `GAME` registers it; `DilemmaGame` is the pure rules object."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogleague.core.errors import ConfigError
from cogleague.games.dilemma.baselines import FALLBACK, NAMES
from cogleague.games.dilemma.config import (
    DEFAULT_SEATS,
    MAX_SEATS,
    MIN_SEATS,
    VARIANTS,
    make_config,
)
from cogleague.games.dilemma.game import DilemmaGame
from cogleague.games.registry import GameInfo

RULES_FILE = str(Path(__file__).with_name("rules.md"))
SEED_RANGE = 2**31  # a random seed when none is given (it is recorded in the replay)


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str]) -> DilemmaGame:
    """A ready game. The seat count is the line-up's length (3..8)."""
    if not MIN_SEATS <= len(policy_names) <= MAX_SEATS:
        raise ConfigError("seats", f"seats must list {MIN_SEATS}..{MAX_SEATS} policies "
                                   f"(got {len(policy_names)})")
    given = dict(overrides)
    if "seats" in given and given["seats"] != len(policy_names):
        raise ConfigError("seats", f"seats is {given['seats']!r} but the line-up names "
                                   f"{len(policy_names)} policies")
    given["seats"] = len(policy_names)
    chosen = seed if seed is not None else secrets.randbelow(SEED_RANGE)
    return DilemmaGame(make_config(variant, given, chosen), policy_names)


def default_lineup(variant: str | None) -> list[str]:
    if variant is not None and not VARIANTS.get(variant, {}).get("promises", True):
        return ["tit_for_tat", "grim_trigger", "pavlov", "always_defect"]
    return ["tit_for_tat", "promise_keeper", "silver_tongue", "always_defect"]


def _seats_for(variant: str | None, overrides: Mapping[str, Any]) -> int:
    return int(overrides.get("seats", DEFAULT_SEATS))


GAME = GameInfo(
    name="dilemma",
    rules_version=DilemmaGame.rules_version,
    title="Prisoner's Dilemma tables",
    variants=list(VARIANTS),
    baselines=NAMES,
    seat_range=(MIN_SEATS, MAX_SEATS),
    make=make,
    default_lineup=default_lineup,
    fallback_baseline=FALLBACK,
    rules_file=RULES_FILE,
    extra={"seats_for": _seats_for},
)

__all__ = ["GAME", "DilemmaGame", "make"]
