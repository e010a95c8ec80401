"""Ledger: eight aliases, seeded Dilemma / Trust / Ultimatum meetings, a gossip board, a halo,
median scoring and collusion-ring detection. See `rules.md` and `docs/ledger.md`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogleague.games.ledger.aliases import SEATS
from cogleague.games.ledger.baselines import BASELINES, FALLBACK_BASELINE
from cogleague.games.ledger.config import VARIANTS, LedgerConfig, build_config, default_lineup
from cogleague.games.ledger.game import RULES_VERSION, LedgerGame
from cogleague.games.registry import GameInfo

RULES_FILE = str(Path(__file__).with_name("rules.md"))


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str]) -> LedgerGame:
    """A ready game; raises `ConfigError` naming the field on any bad value."""
    return LedgerGame(build_config(variant, overrides, seed, policy_names))


GAME = GameInfo(
    name="ledger",
    rules_version=RULES_VERSION,
    title="Ledger",
    variants=list(VARIANTS),
    baselines=list(BASELINES),
    seat_range=(SEATS, SEATS),
    make=make,
    default_lineup=default_lineup,
    fallback_baseline=FALLBACK_BASELINE,
    rules_file=RULES_FILE,
)

__all__ = ["GAME", "LedgerConfig", "LedgerGame", "make"]
