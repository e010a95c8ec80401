"""Shared helpers for the dilemma tests: build a table, play it headless, read events per seat."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogleague.core.episode import EpisodeOutcome, play_headless
from cogleague.core.game import Action, Event, Turn
from cogleague.games.dilemma import DilemmaGame, make
from cogleague.seats.factory import make_seats
from cogleague.seats.scripted import ScriptedSeat


def game(names: Sequence[str], seed: int = 1, variant: str | None = None,
         **overrides: Any) -> DilemmaGame:
    return make(variant, overrides, seed, list(names))


def play(names: Sequence[str], seed: int = 1, **overrides: Any) -> tuple[DilemmaGame,
                                                                         EpisodeOutcome]:
    g = game(names, seed, **overrides)
    return g, play_headless(g, make_seats(g, names))


def seen_by(events: Sequence[Event], seat: int) -> list[dict[str, Any]]:
    """The events `seat` could see, as it would receive them."""
    return [v for v in (e.view_for(seat) for e in events) if v is not None]


class Scripted:
    """A scripted seat from a plain function of the turn (decides synchronously)."""

    kind = "scripted"

    def __init__(self, fn: Any, name: str = "fn", record: bool = True) -> None:
        self.fn = fn
        self.name = name
        self.record = record  # keep each turn's view and prompt (quadratic in long matches)
        self.turns: list[Turn] = []
        self.views: list[dict[str, Any]] = []
        self.prompts: list[str | None] = []

    def decide_now(self, turn: Turn) -> Action:
        if self.record:
            self.turns.append(turn)
            self.views.append(turn.view)
            self.prompts.append(turn.prompt_text)
        result: Action = self.fn(turn)
        return result

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return self.decide_now(turn)


def seats_for(g: DilemmaGame, names: Sequence[str]) -> list[ScriptedSeat]:
    return make_seats(g, names)
