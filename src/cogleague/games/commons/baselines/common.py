"""What the scripted baselines share (rules §10): quota, plurality, target patch, action shapes.

Every baseline reads only its own observation (`Turn.view`, rules §6) plus the slot it was
built for (two rules use it), so the same code plays in-process, in tests on fuzzed
observations, and could play remotely. Every returned dict is already legal: the validator
leaves it unchanged.
"""

from __future__ import annotations

import random
from typing import Any

from cogleague.core.game import Action, Turn
from cogleague.games.commons.modules import allelopathic, harvest, mushrooms
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET

Obs = dict[str, Any]


POLLUTION_LATTICE = 100
"""Pollution moves in steps of 0.01 (start 0.30, silt +0.12, cleaning −0.05 per unit, clamped
to 0..1), so its exact value is ``round(pollution * 100) / 100`` whatever float drift the
running sum picked up; thresholds compare that, in integers."""


def pollution_centi(obs: Obs) -> int:
    """The cleanup pollution in hundredths, exactly (see `POLLUTION_LATTICE`)."""
    pollution: float = obs["module_state"]["pollution"]
    return round(pollution * POLLUTION_LATTICE)


def sustainable_ratio(obs: Obs) -> tuple[int, int]:
    """The module's sustainable take per round as an exact fraction ``(num, den)``, from the
    seat's `module_state` (cleanup ``0.35 × (1 − pollution) × 100 / 4``; harvest 2 per live
    patch; allelopathic ``Σ 0.5 × planted² / 60``; mushrooms 3)."""
    ms = obs["module_state"]
    module = obs["module"]
    if module == "cleanup":  # 35/100 × (100 − P)/100 × 100/4
        return 35 * (POLLUTION_LATTICE - pollution_centi(obs)), 400
    if module == "harvest":
        return int(harvest.MAX_GROWTH) * sum(1 for p in ms["patches"] if not p["dead"]), 1
    if module == "allelopathic":  # ripen_amount(p) = 0.5 × p × p / 60
        return sum(ms["planted"][c] ** 2 for c in COLORS), 2 * allelopathic.FIELD_SIZE
    return mushrooms.SPAWN_PER_ROUND, 1


def quota(obs: Obs) -> int:
    """``clamp(floor(sustainable / N), 0, 3)``, in integers (a quota that sits exactly on a
    whole number is never floored one below by float rounding)."""
    num, den = sustainable_ratio(obs)
    n: int = obs["num_players"]
    return max(0, min(EFFORT_BUDGET, num // (den * n)))


def fair_quota(obs: Obs) -> int:
    """fair_share's rotating quota: ``floor(sustainable)`` split as evenly as ints allow,
    the extra units rotating by alias index and round."""
    n: int = obs["num_players"]
    num, den = sustainable_ratio(obs)
    base, rem = divmod(num // den, n)
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

    `rng` is the seat's own stream (`core.rng.stream(policy_seed * 1000 + slot)`, rules §3);
    only `random` draws from it."""

    name = "baseline"

    def __init__(self, slot: int, rng: random.Random) -> None:
        self.slot = slot
        self.rng = rng

    def act(self, turn: Turn) -> Action:
        return self.decide(turn.view)

    def decide(self, obs: Obs) -> Action:  # pragma: no cover - interface
        raise NotImplementedError
