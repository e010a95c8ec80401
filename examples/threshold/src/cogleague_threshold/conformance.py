"""What the conformance suite (`cogleague.testing`) may play at a threshold table: random legal
replies (sometimes out of range, which the rules clamp), and the sealed part of a decision — a
contribution, hidden until the round settles. A pledge is public as soon as its step ends,
before the round closes, so it is never varied."""

from __future__ import annotations

import random
from typing import Any

from cogleague.core import rng as streams
from cogleague.core.descriptor import Conformance
from cogleague.core.game import Action, Event, Turn

OUT_OF_RANGE_SHARE = 0.1


def random_reply(turn: Turn, rng: random.Random) -> dict[str, Any]:
    ((key, (lo, hi)),) = turn.legal_actions.items()
    if rng.random() < OUT_OF_RANGE_SHARE:
        return {key: hi + 1 + streams.below(rng, 5)}  # clamped to hi by `parse`
    return {key: lo + streams.below(rng, hi - lo + 1)}


def sealed_variants(turn: Turn, action: Action, rng: random.Random) -> list[tuple[Any, str]]:
    if "contribute" not in action:
        return []
    ((_, (lo, hi)),) = turn.legal_actions.items()
    other = [v for v in range(lo, hi + 1) if v != action["contribute"]]
    return [({"contribute": other[streams.below(rng, len(other))]}, "round")] if other else []


def step_payoffs(event: Event) -> dict[int, float] | None:
    """What a settled round pays each seat (a seat's score is their sum)."""
    if event.kind != "round_settled":
        return None
    return {seat: float(p) for seat, p in enumerate(event.data["payoffs"])}


CONFORMANCE = Conformance(random_reply=random_reply, sealed_variants=sealed_variants,
                          step_payoffs=step_payoffs)
