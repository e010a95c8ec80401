"""Which games exist, and how to build one from a variant, overrides, a seed and a line-up.

Each game package exposes a module-level `GAME: GameInfo`. Entries are import paths so that
importing the registry stays cheap and a game under construction cannot break the others.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cogleague.core.errors import ConfigError
from cogleague.core.game import Game

_GAMES: dict[str, str] = {
    "ledger": "cogleague.games.ledger",
    "commons": "cogleague.games.commons",
    "dilemma": "cogleague.games.dilemma",
}


@dataclass(frozen=True)
class GameInfo:
    """What the CLI, server, league and viewer need to know about one game.

    `make(variant, overrides, seed, policy_names)` builds a ready game; it raises `ConfigError`
    on a bad value. `seat_range` is (min, max) seats; `default_lineup(variant)` names
    baselines for a quick headless episode.
    """

    name: str
    rules_version: str
    title: str
    variants: Sequence[str]
    baselines: Sequence[str]
    seat_range: tuple[int, int]
    make: Callable[[str | None, Mapping[str, Any], int | None, Sequence[str]], Game]
    default_lineup: Callable[[str | None], list[str]]
    fallback_baseline: str
    rules_file: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def seats_for(self, variant: str | None, overrides: Mapping[str, Any]) -> int:
        """How many seats a table of this variant has (used before the line-up is known)."""
        n = self.extra.get("seats_for")
        if n is not None:
            return int(n(variant, overrides))
        return self.seat_range[0]


def names() -> list[str]:
    return list(_GAMES)


def get(name: str) -> GameInfo:
    if name not in _GAMES:
        raise ConfigError("game", f"game must be one of {', '.join(_GAMES)} (got {name!r})")
    module = importlib.import_module(_GAMES[name])
    info: GameInfo = module.GAME
    return info
