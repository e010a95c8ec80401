"""The eight scripted baselines of Commons Family (rules §10), one small class each.

`make_baseline(name, slot, policy_seed)` builds one for a seat; an unknown name plays
`steward` (the rules' choice — the CLI and `GameDescriptor` reject unknown names before that).
"""

from __future__ import annotations

from cogleague.games.commons.baselines.cleaner import Cleaner
from cogleague.games.commons.baselines.common import Baseline
from cogleague.games.commons.baselines.deterrable import Deterrable
from cogleague.games.commons.baselines.fair_share import FairShare
from cogleague.games.commons.baselines.free_rider import FreeRider
from cogleague.games.commons.baselines.punisher import Punisher
from cogleague.games.commons.baselines.random_policy import RandomPolicy
from cogleague.games.commons.baselines.reciprocator import Reciprocator
from cogleague.games.commons.baselines.steward import Steward

BASELINES: dict[str, type[Baseline]] = {
    "steward": Steward,
    "free_rider": FreeRider,
    "cleaner": Cleaner,
    "punisher": Punisher,
    "reciprocator": Reciprocator,
    "deterrable": Deterrable,
    "random": RandomPolicy,
    "fair_share": FairShare,
}
DEFAULT_BASELINE = "steward"
SEAT_STREAM_FACTOR = 1000
"""Scripted seat s draws from the stream ``policy_seed * 1000 + s`` (rules §3; `core.rng`)."""


def make_baseline(name: str, slot: int, policy_seed: int) -> Baseline:
    """Baseline `name` for `slot` (unknown names → steward, per the rules)."""
    cls = BASELINES.get(name, Steward)
    return cls(slot, policy_seed * SEAT_STREAM_FACTOR + slot)  # the stream is seeded on use


__all__ = ["BASELINES", "DEFAULT_BASELINE", "Baseline", "make_baseline"]
