"""`punisher` — a steward that pays to sanction the biggest over-taker each round."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.baselines.steward import steward_move


def punish_target(obs: c.Obs) -> str | None:
    """The other alias with the largest `total_extracted` strictly above
    ``quota * max(1, round)`` (ties: alias ascending), or None."""
    ledger = obs.get("ledger")
    if not obs["sanctions_enabled"] or not ledger:
        return None
    limit = c.quota(obs) * max(1, obs["round"])
    best: str | None = None
    best_total = 0.0
    for alias in sorted(ledger):
        total = ledger[alias]["total_extracted"]
        if alias != obs["alias"] and total > limit and (best is None or total > best_total):
            best, best_total = alias, total
    return best


class Punisher(c.Baseline):
    name = "punisher"

    def decide(self, obs: c.Obs) -> Action:
        move = steward_move(obs, self.slot, c.quota(obs))
        target = punish_target(obs)
        if target is not None:
            move["sanction"] = target
            c.say(obs, move, f"Sanctioning {target} for over-taking.")
        return move
