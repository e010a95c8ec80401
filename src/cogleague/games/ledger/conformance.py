"""What the conformance suite (`cogleague.testing`) may play at a Ledger table: random legal
replies, and the sealed parts of a decision (the move until the round settles, the memo for
ever)."""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from typing import Any

from cogleague.core import rng as streams
from cogleague.core.descriptor import Conformance
from cogleague.core.game import Action, Event, Turn

TEXT_SHARE = 0.3


def random_reply(turn: Turn, rng: random.Random) -> dict[str, Any]:
    """A move uniform in the turn's range; sometimes a note (from round 2, when it has a
    subject) and a memo."""
    move = turn.legal_actions["move"]
    reply: dict[str, Any] = {"move": move["min"] + streams.below(rng, move["max"] - move["min"]
                                                                 + 1)}
    if turn.round > 0 and rng.random() < TEXT_SHARE:
        reply["note"] = f"conformance note {streams.below(rng, 1000)}"
    if rng.random() < TEXT_SHARE:
        reply["memo"] = f"conformance memo {streams.below(rng, 1000)}"
    return reply


def sealed_variants(turn: Turn, action: Action, rng: random.Random) -> list[tuple[Any, str]]:
    """Another move (public once the round's meetings settle) and another memo (its author's
    alone, for ever)."""
    move = turn.legal_actions["move"]
    lo, hi = move["min"], move["max"]
    other = lo + (action["move"] - lo + 1 + streams.below(rng, hi - lo)) % (hi - lo + 1)
    return [({**action, "move": other}, "round"),
            ({**action, "memo": f"sealed memo {streams.below(rng, 1000)}"}, "never")]


def step_payoffs(event: Event) -> dict[int, float] | None:
    """What a meeting pays its two seats (a seat's score is the median of these)."""
    if event.kind != "meeting":
        return None
    data = event.data
    return {int(data["a"]): float(data["payA"]), int(data["b"]): float(data["payB"])}


def median(payoffs: Sequence[float]) -> float:
    return float(statistics.median(payoffs)) if payoffs else 0.0


CONFORMANCE = Conformance(random_reply=random_reply, sealed_variants=sealed_variants,
                          step_payoffs=step_payoffs, score_of=median)
