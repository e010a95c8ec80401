"""What every game's step-batch test needs: the three ways one line-up is played (the batch
path, seats asked turn by turn, an observer watching as the server does) and a check of which
path the runner took."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogleague.core.episode import EpisodeOutcome, play_headless
from cogleague.core.game import Game, StepDecisions
from cogleague.core.replay import LogEntry


def per_turn(seats: list[Any]) -> list[Any]:
    """The same seats without their step hook: the runner must ask them turn by turn."""
    for seat in seats:
        seat.decide_step = None
    return seats


async def _read_at_once(entry: LogEntry, _game: Game) -> None:
    entry.events  # noqa: B018 - read at once, as the server does


def play_path(game: Game, seats: Sequence[Any], path: str) -> EpisodeOutcome:
    """Play `game` with `seats` along `path`: "batch", "per_turn" or "observed"."""
    if path == "batch":
        return play_headless(game, list(seats))
    if path == "per_turn":
        return play_headless(game, per_turn(list(seats)))
    assert path == "observed", path
    return play_headless(game, list(seats), observer=_read_at_once)


def is_compact(outcome: EpisodeOutcome) -> bool:
    """Did the runner keep this log's apply entries as columns (the batch path)?"""
    applies = [e for e in outcome.log.entries if e.op == "apply"]
    return bool(applies) and all(isinstance(e._decisions, StepDecisions) for e in applies)
