"""What the conformance suite (`cogleague.testing`) may play in Commons Family: random legal
replies for each module, and the sealed parts of a decision (the move, public when the round
resolves; a note, its author's alone for ever)."""

from __future__ import annotations

import random
from typing import Any

from cogleague.core import rng as streams
from cogleague.core.descriptor import Conformance
from cogleague.core.game import Action, Turn
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET

SANCTION_SHARE = 0.15
TEXT_SHARE = 0.3
EXTRACTIVE = {"cleanup": ("harvest", "clean"), "harvest": ("harvest", None),
              "allelopathic": ("eat", "plant"), "mushrooms": ("eat", None)}
"""Per module: the extractive field and the field sharing its effort budget (if any)."""


def _units(rng: random.Random, top: int) -> int:
    return streams.below(rng, top + 1)


def random_reply(turn: Turn, rng: random.Random) -> dict[str, Any]:
    """A uniform split of the effort budget, colours and a live patch where the module has
    them; sometimes a sanction of another cog, a chat line and a note."""
    legal, obs = turn.legal_actions, turn.view
    reply: dict[str, Any] = {}
    if "clean" in legal:
        reply["harvest"] = _units(rng, EFFORT_BUDGET)
        reply["clean"] = _units(rng, EFFORT_BUDGET - reply["harvest"])
    elif "patch" in legal:
        live = [p["id"] for p in obs["module_state"]["patches"] if not p["dead"]] or [0]
        reply["patch"] = live[streams.below(rng, len(live))]
        reply["harvest"] = _units(rng, EFFORT_BUDGET)
    else:
        reply["eat"] = _units(rng, EFFORT_BUDGET)
        reply["eat_color"] = COLORS[streams.below(rng, len(COLORS))]
        if "plant" in legal:
            reply["plant"] = _units(rng, EFFORT_BUDGET - reply["eat"])
            reply["plant_color"] = COLORS[streams.below(rng, len(COLORS))]
    others = [a for a in obs["aliases"] if a != obs["alias"]]
    if obs["sanctions_enabled"] and others and rng.random() < SANCTION_SHARE:
        reply["sanction"] = others[streams.below(rng, len(others))]
    if obs["chat_enabled"] and rng.random() < TEXT_SHARE:
        reply["message"] = f"conformance line {streams.below(rng, 1000)}"
    if rng.random() < TEXT_SHARE:
        reply["note"] = f"conformance note {streams.below(rng, 1000)}"
    return reply


def sealed_variants(turn: Turn, action: Action, rng: random.Random) -> list[tuple[Any, str]]:
    """Another extractive demand within the budget (or the other field when the demand has
    no room), and a note."""
    module = "cleanup" if "clean" in turn.legal_actions else (
        "harvest" if "patch" in turn.legal_actions else
        "allelopathic" if "plant" in turn.legal_actions else "mushrooms")
    field, partner = EXTRACTIVE[module]
    used = action.get(partner) or 0 if partner else 0
    top = EFFORT_BUDGET - used
    value = action[field]
    if top == 0 and partner is not None:
        field, top, value = partner, EFFORT_BUDGET, used
    moved = {**action, field: (value + 1 + streams.below(rng, top)) % (top + 1)}
    return [(moved, "round"),
            ({**action, "note": f"sealed note {streams.below(rng, 1000)}"}, "never")]


CONFORMANCE = Conformance(random_reply=random_reply, sealed_variants=sealed_variants)
