"""What the scripted baselines share (rules §10): quota, plurality, target patch, action shapes.

Every baseline reads only its own observation (rules §6), in the compact form of
`baselines.view` (the shared `RoundView` and the seat's `SeatView`), plus the slot it was built
for (two rules use it), so the same code plays in-process, in tests on fuzzed observations,
and could play remotely. Every returned dict is already legal: the validator leaves it
unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from cogleague.core import rng as streams
from cogleague.core.game import Action, Turn
from cogleague.games.commons.baselines.view import (
    POLLUTION_LATTICE,
    Patch,
    RoundView,
    SeatView,
    views_of_observation,
)
from cogleague.games.commons.modules.common import EFFORT_BUDGET

Obs = dict[str, Any]

__all__ = ["POLLUTION_LATTICE", "Baseline", "Obs", "RoundView", "SeatView"]


def pollution_centi(obs: Obs) -> int:
    """The cleanup pollution of an observation in hundredths, exactly (`POLLUTION_LATTICE`)."""
    return views_of_observation(obs)[0].pollution_centi


def sustainable_ratio(obs: Obs) -> tuple[int, int]:
    """The sustainable take an observation shows, as an exact ``(num, den)``
    (`view.sustainable_ratio`)."""
    return views_of_observation(obs)[0].sustainable


def quota(obs: Obs) -> int:
    """The quota an observation shows (`RoundView.quota`)."""
    return views_of_observation(obs)[0].quota


def fair_quota(obs: Obs) -> int:
    """fair_share's quota for the observing seat (`fair_share_quota`)."""
    return fair_share_quota(*views_of_observation(obs))


def fair_share_quota(v: RoundView, me: SeatView) -> int:
    """fair_share's rotating quota: ``floor(sustainable)`` split as evenly as ints allow,
    the extra units rotating by alias index and round."""
    n = v.num_players
    num, den = v.sustainable
    base, rem = divmod(num // den, n)
    k = v.aliases.index(me.alias)
    return max(0, min(EFFORT_BUDGET, base + (1 if (k + v.round) % n < rem else 0)))


def target_patch(v: RoundView, me: SeatView, slot: int) -> Patch | None:
    """The patch to fish: open → by stock descending then id, index ``slot % count``; closed
    / partnership → the allowed live patch with most stock (tie lowest id). None if none."""
    live = v.by_stock
    if v.rights == "open":
        return live[slot % len(live)] if live else None
    mine = me.mine
    for patch in live:
        if patch[0] in mine:
            return patch
    return None


def cleanup_move(harvest_units: int, clean: int) -> Action:
    return {"harvest": harvest_units, "clean": clean}


def harvest_move(patch: int, units: int) -> Action:
    return {"patch": patch, "harvest": units}


def eat_move(eat: int, color: str, plant: int = 0, plant_color: str | None = None) -> Action:
    return {"eat": eat, "eat_color": color, "plant": plant, "plant_color": plant_color or color}


def mushroom_move(eat: int, color: str) -> Action:
    return {"eat": eat, "eat_color": color}


def say(v: RoundView, move: Action, text: str) -> Action:
    """Attach one chat line (already cut as the validator would) when chat is on."""
    if v.chat:
        move["message"] = text.strip()[: v.chat_max].strip()
    return move


class Baseline:
    """A scripted policy bound to one seat: `choose(v, me)` maps the seat's views of its
    observation to a raw reply (`decide(obs)` reads them off an observation dict).

    In-process the turn's context is the engine, whose `baseline_views(slot)` gives the views
    without building the observation; any other turn is read through its `view`.

    `rng` is the seat's own stream (`core.rng.stream(policy_seed * 1000 + slot)`, rules §3);
    only `random` draws from it."""

    name = "baseline"

    def __init__(self, slot: int, rng: random.Random | int) -> None:
        self.slot = slot
        self._rng: random.Random | None = None
        self._stream = 0
        self.rng = rng

    @property
    def rng(self) -> random.Random:
        """The seat's stream, seeded on first use (most baselines never draw)."""
        if self._rng is None:
            self._rng = streams.stream(self._stream)
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random | int) -> None:
        """A stream, or the number naming it (`core.rng.stream`)."""
        if isinstance(rng, random.Random):
            self._rng = rng
        else:
            self._rng, self._stream = None, rng

    def act(self, turn: Turn) -> Action:
        views = getattr(turn.context, "baseline_views", None)
        if views is None:
            return self.decide(turn.view)
        return self.choose(*views(turn.seat))

    def act_step(self, contexts: Sequence[Any]) -> list[Action]:
        """`act` on each of the seat's turns of one step (the step-batch protocol), from their
        contexts (`game.SeatContext`), in order."""
        if len(contexts) == 1:  # Commons asks each seat once per step
            return [self.choose(*contexts[0].baseline_views())]
        choose = self.choose
        return [choose(*ctx.baseline_views()) for ctx in contexts]

    def decide(self, obs: Obs) -> Action:
        return self.choose(*views_of_observation(obs))

    def choose(self, v: RoundView, me: SeatView) -> Action:  # pragma: no cover - interface
        raise NotImplementedError
