"""Re-applying a logged episode one operation at a time, showing each step to a visitor.

The checks inspect a game between its operations (pending turns and their views before an
``apply``, the events after it) by walking the runner's log through a fresh game: the walk
sees exactly the states the live episode went through, without changing the runner.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cogleague.core.game import Decision, Event, Game, Turn
from cogleague.core.replay import apply_entry

BeforeApply = Callable[[int, Game, list[Turn], dict[str, Decision]], None]
"""(entry index, game, pending turns, decisions) — the decisions may be replaced in place."""
AfterOp = Callable[[int, Game, str, list[Event]], None]
"""(entry index, game, op, events)."""


class StopWalk(Exception):
    """Raised by a visitor to end the walk early (`walk` returns the game as it stands)."""


def decisions_of(entry: Mapping[str, Any]) -> dict[str, Decision] | None:
    raw = entry.get("decisions")
    if raw is None:
        return None
    return {k: Decision.from_json(v) for k, v in raw.items()}


def walk(game: Game, entries: Iterable[Mapping[str, Any]], *,
         before: BeforeApply | None = None, after: AfterOp | None = None,
         stop_at: int | None = None) -> Game:
    """Apply `entries` to `game` in order (up to, not including, index `stop_at`)."""
    try:
        for index, entry in enumerate(entries):
            if stop_at is not None and index >= stop_at:
                break
            op = entry["op"]
            decisions = decisions_of(entry)
            if decisions is not None and before is not None:
                before(index, game, game.pending(), decisions)
            events = apply_entry(game, op, decisions, entry.get("reason"), entry.get("detail"))
            if after is not None:
                after(index, game, op, events)
    except StopWalk:
        pass
    return game
