"""What the scripted baselines share (rules §10): quota, plurality, target patch, action shapes.

Every baseline reads only its own observation (`Turn.view`, rules §6) plus the slot it was
built for (two rules use it), so the same code plays in-process, in tests on fuzzed
observations, and could play remotely. Every returned dict is already legal: the validator
leaves it unchanged.
"""

from __future__ import annotations

import math
import random
from typing import Any

from cogleague.core.game import Action, Turn
from cogleague.games.commons.modules import allelopathic, cleanup, harvest, mushrooms
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET

Obs = dict[str, Any]


def clamp_units(x: float) -> int:
    """floor, then clamp to 0..3 (the effort budget)."""
    return max(0, min(EFFORT_BUDGET, math.floor(x)))


def sustainable(obs: Obs) -> float:
    """The module's sustainable take per round, from the seat's `module_state`."""
    ms = obs["module_state"]
    module = obs["module"]
    if module == "cleanup":
        return float(ms["effective_regrowth"]) * cleanup.CAPACITY / 4
    if module == "harvest":
        return harvest.MAX_GROWTH * sum(1 for p in ms["patches"] if not p["dead"])
    if module == "allelopathic":
        total = 0.0
        for c in COLORS:
            total += allelopathic.ripen_amount(ms["planted"][c])
        return total
    return float(mushrooms.SPAWN_PER_ROUND)


def quota(obs: Obs) -> int:
    """``clamp(floor(sustainable / N), 0, 3)``."""
    return clamp_units(sustainable(obs) / obs["num_players"])


def fair_quota(obs: Obs) -> int:
    """fair_share's rotating quota: ``floor(sustainable)`` split as evenly as ints allow,
    the extra units rotating by alias index and round."""
    n: int = obs["num_players"]
    base, rem = divmod(math.floor(sustainable(obs)), n)
    k = sorted(obs["aliases"]).index(obs["alias"])
    return max(0, min(EFFORT_BUDGET, base + (1 if (k + obs["round"]) % n < rem else 0)))


def plurality(obs: Obs) -> str:
    """The most-planted colour (ties canonical)."""
    planted = obs["module_state"]["planted"]
    return COLORS[allelopathic.plurality([planted[c] for c in COLORS])]


def target_patch(obs: Obs, slot: int) -> dict[str, Any] | None:
    """The patch to fish: open → by stock descending then id, index ``slot % count``; closed
    / partnership → the allowed live patch with most stock (tie lowest id). None if none."""
    ms = obs["module_state"]
    live: list[dict[str, Any]] = [p for p in ms["patches"] if not p["dead"]]
    if ms["property_rights"] == "open":
        if not live:
            return None
        live.sort(key=lambda p: (-p["stock"], p["id"]))
        return live[slot % len(live)]
    mine = set(ms["your_patches"])
    allowed: list[dict[str, Any]] = [p for p in live if p["id"] in mine]
    if not allowed:
        return None
    return min(allowed, key=lambda p: (-p["stock"], p["id"]))


def digesting(obs: Obs) -> bool:
    return not obs["module_state"]["you_may_eat"]


def cleanup_move(harvest_units: int, clean: int) -> Action:
    return {"harvest": harvest_units, "clean": clean}


def harvest_move(patch: int, units: int) -> Action:
    return {"patch": patch, "harvest": units}


def eat_move(eat: int, color: str, plant: int = 0, plant_color: str | None = None) -> Action:
    return {"eat": eat, "eat_color": color, "plant": plant, "plant_color": plant_color or color}


def mushroom_move(eat: int, color: str) -> Action:
    return {"eat": eat, "eat_color": color}


def say(obs: Obs, move: Action, text: str) -> Action:
    """Attach one chat line (already cut as the validator would) when chat is on."""
    if obs["chat_enabled"]:
        move["message"] = text.strip()[: obs["chat_max_chars"]].strip()
    return move


class Baseline:
    """A scripted policy bound to one seat: `decide(obs)` maps an observation to a raw reply.

    `rng` is the seat's own stream (``random.Random(policy_seed * 1000 + slot)``, rules §3);
    only `random` draws from it."""

    name = "baseline"

    def __init__(self, slot: int, rng: random.Random) -> None:
        self.slot = slot
        self.rng = rng

    def act(self, turn: Turn) -> Action:
        return self.decide(turn.view)

    def decide(self, obs: Obs) -> Action:  # pragma: no cover - interface
        raise NotImplementedError
