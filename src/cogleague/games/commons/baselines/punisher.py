"""`punisher` — a steward that pays to sanction the biggest over-taker each round."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.baselines.steward import steward_move


def punish_target(v: c.RoundView, me: c.SeatView) -> str | None:
    """The other alias with the largest `total_extracted` strictly above
    ``quota * max(1, round)`` (ties: alias ascending), or None."""
    ledger = v.ledger
    if not v.sanctions or not ledger:
        return None
    limit = v.quota * max(1, v.round)
    best: str | None = None
    best_total = 0.0
    own = me.alias
    for alias, total in ledger:
        if alias != own and total > limit and (best is None or total > best_total):
            best, best_total = alias, total
    return best


class Punisher(c.Baseline):
    name = "punisher"

    def choose(self, v: c.RoundView, me: c.SeatView) -> Action:
        move = steward_move(v, me, self.slot, v.quota)
        target = punish_target(v, me)
        if target is not None:
            move["sanction"] = target
            c.say(v, move, f"Sanctioning {target} for over-taking.")
        return move
