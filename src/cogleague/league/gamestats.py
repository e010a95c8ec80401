"""A game's extra standings columns and per-round curves, read from its descriptor.

The seeds rank by the mean episode score; these columns are context, declared by each game
(`GameDescriptor.standings_columns`, `seat_extras`, `series`). Standings may name a game that
is not installed here any more (episodes stored earlier): it simply has no extra columns.
"""

from __future__ import annotations

from typing import Any

from cogleague.core.descriptor import Column, GameDescriptor
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.games import registry


def _game(name: str) -> GameDescriptor | None:
    try:
        return registry.get(name)
    except ConfigError:
        return None


def played_variant(game: str, variant: str | None) -> str | None:
    """The variant an episode played: the recorded one, else (a table created without naming
    one) the game's default; None only when neither is known (no default, or the game is not
    installed here)."""
    if variant:
        return variant
    desc = _game(game)
    return desc.default_variant if desc else None


def columns(game: str) -> tuple[Column, ...]:
    desc = _game(game)
    return desc.standings_columns if desc else ()


def seat_extras(game: str, results: dict[str, Any], seat: int) -> dict[str, float | None]:
    desc = _game(game)
    if desc is None or desc.seat_extras is None:
        return {}
    return desc.seat_extras(results, seat)


def series(name: str, game: Game, outcome: EpisodeOutcome, seats: int) -> dict[str, Any] | None:
    """``{"label": …, "group": [per round]}`` or ``{"label": …, "seats": [[…] per seat]}``,
    from the finished `game`'s own records (the log's events stay unrendered)."""
    desc = _game(name)
    if desc is None or desc.series is None:
        return None
    return desc.series(game, outcome, seats)


def nobody_came(game: str, results: dict[str, Any] | None) -> bool:
    """The episode ended by the game's connect timeout (`core/connect.py`): nobody played, so
    it is counted apart and never ranked."""
    desc = _game(game)
    return (desc is not None and desc.connect_timeout is not None and results is not None
            and results.get("reason") == desc.connect_timeout.reason)
