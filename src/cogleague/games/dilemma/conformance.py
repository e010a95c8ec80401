"""What the conformance suite (`cogleague.testing`) may play at a dilemma table: random legal
replies, and the sealed part of a decision (the choice, hidden until both of the round's
steps are in; the promise is the opponent's to read, so it is never varied)."""

from __future__ import annotations

import random
from typing import Any

from cogleague.core import rng as streams
from cogleague.core.descriptor import Conformance
from cogleague.core.game import Action, Event, Turn
from cogleague.games.dilemma.payoffs import ACTIONS, COOPERATE, DEFECT

MESSAGE_SHARE = 0.3


def random_reply(turn: Turn, rng: random.Random) -> dict[str, Any]:
    """Cooperate or defect, 50/50; sometimes a promise where promises are on."""
    legal = turn.legal_actions[0]
    reply: dict[str, Any] = {"action": ACTIONS[streams.below(rng, len(ACTIONS))]}
    if "max_message_chars" in legal and rng.random() < MESSAGE_SHARE:
        reply["message"] = f"I will cooperate ({streams.below(rng, 100)})"
    return reply


def sealed_variants(turn: Turn, action: Action, rng: random.Random) -> list[tuple[Any, str]]:
    flipped = DEFECT if action["action"] == COOPERATE else COOPERATE
    return [({**action, "action": flipped}, "round")]


def step_payoffs(event: Event) -> dict[int, float] | None:
    """The points a reveal pays each seat of its pairing (a seat's score is their sum)."""
    if event.kind != "choices_revealed":
        return None
    return {int(s): float(p) for s, p in zip(event.data["seats"], event.data["points"],
                                            strict=True)}


CONFORMANCE = Conformance(random_reply=random_reply, sealed_variants=sealed_variants,
                          step_payoffs=step_payoffs)
