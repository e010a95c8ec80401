"""Shared helpers for the Commons Family tests (imported as `.support`)."""

from __future__ import annotations

from typing import Any

from cogleague.core.episode import play_headless
from cogleague.games.commons import make_game
from cogleague.games.commons.actions import pass_move
from cogleague.games.commons.game import CommonsGame
from cogleague.seats.factory import make_seats


def mv(**fields: Any) -> dict[str, Any]:
    """A clamped move with the given fields (the rest as a pass has them)."""
    return {**pass_move(), **fields}


def play(variant: str, lineup: list[str], overrides: dict[str, Any] | None = None,
         seed: int | None = None) -> tuple[CommonsGame, Any]:
    """Play one headless episode; return the game and the runner's outcome."""
    game = make_game(variant, overrides or {}, seed, lineup)
    return game, play_headless(game, make_seats(game, lineup))


def remote_game(variant: str | None = "cleanup", **overrides: Any) -> CommonsGame:
    """A game whose seats are remote players (decisions are applied by hand)."""
    from cogleague.games.commons.config import make_config

    config = make_config(variant, overrides)
    return CommonsGame(config, ["remote"] * config.num_players)


def step(game: CommonsGame, raws: list[dict[str, Any] | None]) -> list[Any]:
    """Open a round (starting the game if needed) and apply one raw reply per slot (None:
    no submission). Returns the round's events."""
    from cogleague.core.game import Decision

    if game.phase == "new":
        game.start()
    game.open_round()
    turns = game.pending()
    decisions = {t.turn_id: Decision(raw, source="seat")
                 for t, raw in zip(turns, raws, strict=True) if raw is not None}
    return game.apply(decisions)
