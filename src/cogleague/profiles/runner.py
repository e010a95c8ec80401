"""Play a policy against its game's probe battery and aggregate the traits."""

from __future__ import annotations

import asyncio
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cogleague.core.config import check_int
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.episode import run_episode
from cogleague.core.errors import ConfigError
from cogleague.profiles.battery import Trait, probes_for
from cogleague.profiles.intervals import mean_interval, wilson
from cogleague.seats.factory import ModelOptions, make_seat

EPISODES_MAX = 10_000
YES_BELOW = 0.5
"""A rate trait reads ``yes`` when its whole interval lies above 1/2, ``no`` when it lies
below, and ``mixed`` otherwise."""


@dataclass(frozen=True)
class TraitValue:
    trait: Trait
    n: int
    value: float | None
    low: float | None
    high: float | None

    @property
    def verdict(self) -> str | None:
        """For rates: yes / no / mixed by where the interval lies; None without data."""
        if self.trait.kind != "rate" or self.value is None or self.low is None:
            return None
        if self.low > YES_BELOW:
            return "yes"
        if self.high is not None and self.high < YES_BELOW:
            return "no"
        return "mixed"

    def to_json(self) -> dict[str, Any]:
        return {"trait": self.trait.name, "label": self.trait.label, "kind": self.trait.kind,
                "n": self.n, "value": self.value, "low": self.low, "high": self.high,
                "verdict": self.verdict}


@dataclass
class Profile:
    policy: str
    game: str
    episodes: int
    seed: int
    traits: list[TraitValue] = field(default_factory=list)
    fallbacks: dict[str, int] = field(default_factory=dict)
    """The subject's decisions the game's fallback played, by cause: where there are any, the
    traits measure the fallback as much as the policy."""

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "game": self.game, "episodes": self.episodes,
                "seed": self.seed, "traits": [t.to_json() for t in self.traits],
                "fallbacks": dict(sorted(self.fallbacks.items()))}

    def value(self, name: str) -> TraitValue:
        return next(t for t in self.traits if t.trait.name == name)


def aggregate(trait: Trait, values: Sequence[float]) -> TraitValue:
    n = len(values)
    if n == 0:
        return TraitValue(trait, 0, None, None, None)
    if trait.kind == "rate":
        lo, hi = wilson(sum(values), n)
        return TraitValue(trait, n, sum(values) / n, lo, hi)
    bounds = mean_interval(values)
    return TraitValue(trait, n, statistics.fmean(values), *(bounds or (None, None)))


def _seat(game: Any, seat: int, name: str, model: ModelOptions | None, *,
          opponent: bool) -> Any:
    """`make_seat`; a bad opponent's error names `opponents` (the subject's names `seats`)."""
    try:
        return make_seat(game, seat, name, model)
    except ConfigError as exc:
        if not opponent or exc.field != "seats":
            raise
        raise exc.renamed("opponents") from None


def profile(desc: GameDescriptor, policy: str, *, episodes: int = 10, seed: int = 0,
            model: ModelOptions | None = None, opponents: Sequence[str] = ()) -> Profile:
    """Play `policy` (any seat string) through `desc`'s battery: `episodes` episodes."""
    check_int("episodes", episodes, 1, EPISODES_MAX)
    # episode i plays seed + i: every one must be a seed the game plays, checked before any
    check_int("seed", seed, 0, desc.seed_max - (episodes - 1))
    if (isinstance(opponents, str | bytes) or not isinstance(opponents, list | tuple)
            or not all(isinstance(n, str) and n for n in opponents)):
        # a set would seat them in hash order, which changes between processes
        raise ConfigError("opponents", f"opponents must be a list of seat strings, in seat "
                                       f"order (got {opponents!r})")
    probes = probes_for(desc)
    for name in opponents:  # a second probe would count its per-episode traits twice
        if name in probes.probes:
            raise ConfigError("opponents", f"opponents: {name} is a probe of the battery, "
                                           "already seated in every episode")
    observed: dict[str, list[float]] = defaultdict(list)
    fallbacks: dict[str, int] = defaultdict(int)
    for spec in probes.episodes(policy, episodes, seed, list(opponents)):
        game = desc.make(spec.variant, dict(spec.overrides), spec.seed, list(spec.lineup), None)
        seats = []
        for i, name in enumerate(spec.lineup):
            probe = probes.probe_seat(game, i, name) if i != spec.subject_seat else None
            seats.append(probe if probe is not None else _seat(game, i, name, model,
                                                                opponent=i != spec.subject_seat))
        outcome = asyncio.run(run_episode(game, seats))
        if spec.subject_seat < len(outcome.faults):
            for cause, count in outcome.faults[spec.subject_seat].items():
                fallbacks[cause] += count
        for name, values in probes.measure(game, outcome, spec).items():
            observed[name].extend(values)
    return Profile(policy, desc.name, episodes, seed,
                   [aggregate(t, observed.get(t.name, [])) for t in probes.traits],
                   {cause: n for cause, n in fallbacks.items() if n})
