"""The built-in scripted seats, one small class each. Each answers both phases: a pledge
(cheap talk, public, not binding) and a sealed contribution."""

from __future__ import annotations

import random
from collections.abc import Callable

from cogleague.core import rng
from cogleague.core.errors import ConfigError
from cogleague.core.game import Action, Turn

from cogleague_threshold.config import ThresholdConfig
from cogleague_threshold.state import Context


def _ctx(turn: Turn) -> Context:
    ctx = turn.context
    assert isinstance(ctx, Context)
    return ctx


class _Baseline:
    def __init__(self, config: ThresholdConfig, seat: int) -> None:
        self.config = config
        self.seat = seat

    def act(self, turn: Turn) -> Action:
        ctx = _ctx(turn)
        if ctx.phase == "pledge":
            return {"pledge": self.pledge(ctx)}
        return {"contribute": self.contribute(ctx)}

    def pledge(self, ctx: Context) -> int:
        return self.config.fair_share

    def contribute(self, ctx: Context) -> int:
        raise NotImplementedError


class FairShare(_Baseline):
    """Pledges and gives the threshold split evenly."""

    def contribute(self, ctx: Context) -> int:
        return self.config.fair_share


class FreeRider(_Baseline):
    """Pledges the fair share, gives nothing: talk is cheap."""

    def contribute(self, ctx: Context) -> int:
        return 0


class Keeper(_Baseline):
    """Pledges nothing and gives nothing (the fallback: a seat that did not answer)."""

    def pledge(self, ctx: Context) -> int:
        return 0

    def contribute(self, ctx: Context) -> int:
        return 0


class Altruist(_Baseline):
    """Pledges and gives everything."""

    def pledge(self, ctx: Context) -> int:
        return self.config.endowment

    def contribute(self, ctx: Context) -> int:
        return self.config.endowment


class Reciprocator(_Baseline):
    """Gives the fair share in the first round and after every round that met the threshold;
    nothing after a miss."""

    def contribute(self, ctx: Context) -> int:
        if not ctx.history or ctx.history[-1].met:
            return self.config.fair_share
        return 0


class Matcher(_Baseline):
    """Tops up what the others pledged (or, without pledges, gave last round) to the threshold,
    giving at least the fair share; gives nothing when the gap exceeds its endowment."""

    def contribute(self, ctx: Context) -> int:
        cfg = self.config
        if ctx.pledges is not None:
            others = sum(ctx.pledges) - ctx.pledges[self.seat]
        elif ctx.history:
            last = ctx.history[-1].contributions
            others = sum(last) - last[self.seat]
        else:
            return cfg.fair_share
        needed = cfg.threshold - others
        if needed > cfg.endowment:
            return 0
        return max(cfg.fair_share, needed)


class Random(_Baseline):
    """Uniform pledges and contributions from its own named stream."""

    def __init__(self, config: ThresholdConfig, seat: int) -> None:
        super().__init__(config, seat)
        self.rng: random.Random = rng.stream(f"threshold:{config.seed}:random:{seat}")

    def pledge(self, ctx: Context) -> int:
        return rng.below(self.rng, self.config.endowment + 1)

    def contribute(self, ctx: Context) -> int:
        return rng.below(self.rng, self.config.endowment + 1)


BASELINES: dict[str, Callable[[ThresholdConfig, int], _Baseline]] = {
    "fair_share": FairShare, "free_rider": FreeRider, "keeper": Keeper, "altruist": Altruist,
    "reciprocator": Reciprocator, "matcher": Matcher, "random": Random,
}
FALLBACK = "keeper"


def make_baseline(name: str, config: ThresholdConfig, seat: int) -> _Baseline:
    if name not in BASELINES:
        raise ConfigError("seats", f"seats: {name!r} is not a threshold baseline (known: "
                                   f"{', '.join(BASELINES)})")
    return BASELINES[name](config, seat)
