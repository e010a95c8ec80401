"""Rules §4 step 8 and §13: a settled round's record (what the replay document is built from)
and the episode's results document."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cogleague.games.commons.modules.common import Outcome

if TYPE_CHECKING:
    from cogleague.games.commons.game import CommonsGame

RECORD_FIELDS = ("slot", "harvest", "clean", "patch", "eat", "eat_color", "plant",
                 "plant_color", "sanction", "message", "src")
"""A round record's decision: the move's fields and its src (the decision event's dict without
``r`` and ``alias``)."""


def round_record(game: CommonsGame, state: Any, state_after: dict[str, Any],
                 moves: Sequence[dict[str, Any]], out: Outcome, scores: list[float],
                 messages: list[dict[str, str]]) -> dict[str, Any]:
    """The record of round `game.round`, settled into `state` (not yet committed)."""
    r, module = game.round, game.module
    round_effort = sum(out.effort)
    return {
        "r": r, "state_before": game.state_json,
        "decisions": [{k: m[k] for k in RECORD_FIELDS} for m in moves],
        "gains": out.gains, "extracted": out.extracted, "scores": scores,
        "state_after": state_after, "total_extracted": sum(out.extracted),
        "public_effort": round_effort, "seat_public_effort": out.effort,
        "collapsed": module.collapse_round(state) is not None,
        "series": {"total": module.residual(state), "maintenance": round_effort},
        "seat_frozen": module.frozen(state, r, game.num_seats),
        "messages": messages,
    }


def results(game: CommonsGame) -> dict[str, Any]:
    """The results document (rules §13), numbers shown to 3 decimals, arrays by slot."""
    module, state = game.module, game.state
    return {
        "reason": game.reason, "rounds": game.round,
        "scores": [round(x, 3) for x in game.scores],
        "total_extracted": [round(x, 3) for x in game.total_extracted],
        "public_effort": list(game.public_effort),
        "sanctions_given": list(game.sanctions_given),
        "sanctions_received": list(game.sanctions_received),
        "welfare": round(game.welfare(), 3), "residual_value": round(module.residual(state), 3),
        "collapse_round": module.collapse_round(state), "dead_patches": module.dead_patches(state),
        "fallbacks": list(game.fallbacks), "llm_requests": list(game.llm_requests),
        "names": list(game.config.names), "aliases": list(game.aliases),
        "disconnected": list(game.disconnected), "error": game.error,
    }
