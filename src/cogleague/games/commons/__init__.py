"""Commons Family: six cogs, one destructible resource, four physics modules (rules in
`rules.md`, contract in ``spec/commons.md``).

Layout: `config.py` (settings, variants), `setup.py` (the seeded deal), `modules/` (pure
physics), `actions.py` (clamping), `game.py` (the engine on the core Game protocol),
`observation.py` (what a cog sees), `baselines/` (scripted seats), `replay.py` (replay
document and verifier), `simulate.py` (run a plan through the engine).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogleague.core.errors import ConfigError
from cogleague.games.commons.baselines import BASELINES, DEFAULT_BASELINE
from cogleague.games.commons.config import CERTIFICATION_SEATS, VARIANTS, make_config
from cogleague.games.commons.game import CommonsGame
from cogleague.games.registry import GameInfo

RULES_FILE = str(Path(__file__).with_name("rules.md"))
DEFAULT_VARIANT = "cleanup"


def make_game(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
              policy_names: Sequence[str]) -> CommonsGame:
    """A ready game. With a line-up whose length differs from the variant's six seats, the
    seat count follows the line-up (an experiment; the standard game has six)."""
    given = dict(overrides)
    if policy_names and "num_players" not in given and len(policy_names) != seats_for(
            variant, given):
        given["num_players"] = len(policy_names)
    config = make_config(variant if variant is not None or "module" in given
                         else DEFAULT_VARIANT, given, seed)
    if policy_names and len(policy_names) != config.num_players:
        raise ConfigError("seats", f"seats must list exactly {config.num_players} policies "
                                   f"(got {len(policy_names)})")
    return CommonsGame(config, list(policy_names) or None)


def default_lineup(variant: str | None) -> list[str]:
    if variant == "certification":
        return list(CERTIFICATION_SEATS)
    return [DEFAULT_BASELINE] * 6


def seats_for(variant: str | None, overrides: Mapping[str, Any]) -> int:
    n = overrides.get("num_players", 6)
    return n if isinstance(n, int) and not isinstance(n, bool) else 6


GAME = GameInfo(
    name="commons", rules_version=CommonsGame.rules_version, title="Commons Family",
    variants=list(VARIANTS), baselines=list(BASELINES), seat_range=(2, 12), make=make_game,
    default_lineup=default_lineup, fallback_baseline=DEFAULT_BASELINE, rules_file=RULES_FILE,
    extra={"seats_for": seats_for},
)

__all__ = ["GAME", "CommonsGame", "make_config", "make_game"]
