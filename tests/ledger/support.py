"""Shared helpers for the Ledger tests: games, seats that reply from a script, episodes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cogleague.core.episode import EpisodeOutcome, play_headless
from cogleague.core.game import Decision, Turn
from cogleague.games.ledger import GAME, LedgerGame
from cogleague.seats import ScriptedSeat

MIX = ["mirror", "shark", "grim", "saint", "opportunist", "mirror", "grim", "opportunist"]
SEED7_ALIASES = ["Bolt", "Gasket", "Gizmo", "Ratchet", "Sprocket", "Flywheel", "Rivet", "Piston"]

Reply = Callable[[Turn, str | None], Any]


def make_game(seed: int = 7, rounds: int = 14, lineup: Sequence[str] = MIX,
              variant: str | None = None, **overrides: Any) -> LedgerGame:
    game = GAME.make(variant, {"rounds": rounds, **overrides}, seed, list(lineup))
    assert isinstance(game, LedgerGame)
    return game


def scripted_seats(game: LedgerGame) -> list[ScriptedSeat]:
    return [ScriptedSeat(game.make_baseline(n, i), n) for i, n in enumerate(game.policy_names)]


def play(game: LedgerGame, seats: Sequence[Any] | None = None) -> EpisodeOutcome:
    return play_headless(game, list(seats) if seats is not None else scripted_seats(game))


class ScriptSeat:
    """A remote-kind seat whose raw reply comes from `reply(turn, hint)`; records hints."""

    kind = "remote"

    def __init__(self, reply: Reply, name: str = "script") -> None:
        self.reply = reply
        self.name = name
        self.hints: list[str | None] = []

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        self.hints.append(hint)
        return self.reply(turn, hint)


def seats_with(game: LedgerGame, overrides: dict[int, Any]) -> list[Any]:
    """Scripted seats, except the seats given in `overrides`."""
    seats: list[Any] = scripted_seats(game)
    for seat, replacement in overrides.items():
        seats[seat] = replacement
    return seats


def open_first_round(game: LedgerGame) -> list[Turn]:
    game.start()
    game.open_round()
    return game.pending()


def scripted_decisions(game: LedgerGame, turns: Sequence[Turn]) -> dict[str, Decision]:
    """Each seat's own baseline move as a scripted decision."""
    return {t.turn_id: Decision(game.make_baseline(game.policy_names[t.seat], t.seat).act(t),
                                source="scripted") for t in turns}


def seat_decisions(turns: Sequence[Turn], action: Callable[[Turn], dict[str, Any]]
                   ) -> dict[str, Decision]:
    """A seat-sourced decision per turn from `action(turn)`."""
    return {t.turn_id: Decision(action(t), source="seat") for t in turns}


def lowest_move(turn: Turn) -> dict[str, Any]:
    return {"move": turn.legal_actions["move"]["min"]}
