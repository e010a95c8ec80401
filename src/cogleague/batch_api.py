"""`cogleague.play_batch`: one line-up of baselines over many seeds through the game's batch
kernel (``extras["batch"]``, `core/batch.py`), for sweeps that need thousands of episodes.

    import cogleague
    run = cogleague.play_batch(game, [baseline, baseline, baseline], seeds=range(10_000))
    run.scores        # (10000, 3) float64: episode i is `cogleague.play(..., seed=i)`'s

(docs/batch.md plays the dilemma and Ledger.) `play_episode` plays one seed and returns its
results document, as ``cogleague.play(..., engine="batch")``.

Every seat must be a baseline with an array twin (the kernel's `baselines`); options are the
game's own, validated as `cogleague.play` validates them. The scores and end reasons are the
rules engine's for the same seeds (the conformance suite's differential check holds the two
engines equal); results documents and replays come from `cogleague.play`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cogleague.api import check_seat_count, lineup_of
from cogleague.core.batch import Array, batch_of, play_lineup
from cogleague.core.config import check_int
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError
from cogleague.core.options import validate_options
from cogleague.core.rng import SEED_MAX
from cogleague.games import registry

MAX_CHUNK = 10_000
"""Tables stepped together (bounds memory; larger runs are played chunk after chunk)."""


@dataclass(frozen=True)
class BatchResult:
    """Episodes of one line-up, by seed: `scores` (episodes, seats), `totals`: the rewards
    summed per seat (the encoding's tally at the end), `reasons` and the `seeds` played."""

    game: str
    lineup: list[str]
    seeds: list[int]
    scores: Array
    totals: Array
    reasons: list[str]


@dataclass(frozen=True)
class BatchEpisode:
    """One episode played through the kernel (`cogleague.play(..., engine="batch")`): its
    `results` document is key for key the rules engine's for the same seed and line-up (as
    the league stores it; no ``faults``: baselines never fall back), `series` the game's
    per-round series; replays come from the rules engine (`engine="rules"`)."""

    game: str
    lineup: list[str]
    seed: int
    results: dict[str, Any]
    series: dict[str, Any]

    @property
    def scores(self) -> list[float]:
        """One number per seat, by seat (what the league ranks by)."""
        return [float(s) for s in self.results["scores"]]


def play_episode(game: str | GameDescriptor, seats: Sequence[str] | None = None, *,
                 seed: int | None, variant: str | None = None,
                 **options: Any) -> BatchEpisode:
    """One episode of baselines through the batch kernel, with its results document."""
    if seed is None:
        raise ConfigError("seed", "seed is required with engine='batch' (an int "
                                  f"0..{SEED_MAX}, or the game's narrower range)")
    desc, kernel, lineup, seed_list = _prepare(game, seats, [seed], variant, options, "seed")
    make_documents = getattr(kernel, "documents", None)
    if make_documents is None:
        raise ConfigError("engine", f"engine: game {desc.name!r}'s batch kernel builds no "
                                    "results documents; use engine='rules'")
    state = kernel.reset(seed_list, lineup)
    policies = [kernel.policy(name, s) for s, name in enumerate(lineup)]
    actions = np.zeros((1, len(lineup)), dtype=np.int64)
    records = []
    for _ in range(kernel.steps_per_episode):
        for s, policy in enumerate(policies):
            actions[:, s] = np.asarray(policy.act(state))
        state, _, _ = kernel.step(state, actions)
        records.append(kernel.record(state))
    results, series = make_documents(state, records, seed_list, lineup)[0]
    return BatchEpisode(desc.name, lineup, seed_list[0], results, series)


def check_seeds(desc: GameDescriptor, variant: str | None, overrides: dict[str, Any],
                names: Sequence[str], seeds: Sequence[int], field: str) -> list[int]:
    """`seeds` when the rules engine plays every one of them, or a `ConfigError`: each in the
    game's range, and the lowest and highest taken by its `make` (a variant may fix its own
    seed, as Ledger's certification does; one that takes two different seeds fixes none). A
    batch table then always is the rules engine's episode of its seed."""
    checked = [check_int(field, s, 0, desc.seed_max) for s in seeds]
    for s in sorted({min(checked), max(checked)}) if checked else []:
        try:
            desc.make(variant, dict(overrides), s, list(names), None)
        except ConfigError as exc:  # the game names `seed`; the caller gave `field`
            if exc.field != "seed" or field == "seed":
                raise
            raise exc.renamed(field) from None
    return checked


def _prepare(game: str | GameDescriptor, seats: Sequence[str] | None, seeds: Iterable[int],
             variant: str | None, options: dict[str, Any], field: str = "seeds"
             ) -> tuple[GameDescriptor, Any, list[str], list[int]]:
    """The descriptor, the kernel, the line-up and the seeds, each validated by field."""
    desc = game if isinstance(game, GameDescriptor) else registry.get(game)
    batch = batch_of(desc)
    if batch is None:
        raise ConfigError("game", f"game {desc.name!r} declares no batch kernel "
                                  "(descriptor extras['batch'])")
    if variant is not None and variant not in desc.variants:
        raise ConfigError("variant", f"variant must be one of {', '.join(desc.variants)} "
                                     f"(got {variant!r})")
    chosen = variant if variant is not None else desc.default_variant
    given = lineup_of(seats) if seats is not None else None  # []: no seats, not "not given"
    if given is not None:
        check_seat_count(desc, given)
    lineup = given if given is not None else list(desc.default_lineup(chosen))
    unknown = [s for s in lineup if not isinstance(s, str) or s not in batch.baselines]
    if unknown:
        twins = (f"seats must be baselines with a batch twin ({', '.join(batch.baselines)}; "
                 f"got {unknown[0]!r})")
        if given is not None:
            raise ConfigError("seats", twins)
        raise ConfigError("seats", f"seats: not given, and the {chosen or 'default'} variant's "
                                   f"line-up cannot play through the batch kernel ({twins}); "
                                   "give seats=[…]")
    if isinstance(seeds, str | bytes) or not isinstance(seeds, Iterable):
        raise ConfigError(field, f"{field} must be a collection of integer seeds (got "
                                 f"{seeds!r})")
    seed_list = list(seeds)
    if not seed_list:
        raise ConfigError("seeds", "seeds must list at least one seed (got none)")
    overrides = validate_options(desc.options, options, section=f"{desc.name} option")
    kernel = batch.kernel(chosen, overrides, len(lineup))
    return desc, kernel, lineup, check_seeds(desc, chosen, overrides, lineup, seed_list, field)


def play_batch(game: str | GameDescriptor, seats: Sequence[str] | None = None, *,
               seeds: Iterable[int], variant: str | None = None,
               **options: Any) -> BatchResult:
    """Play `seats` (baseline names) once per seed through the batch kernel."""
    desc, kernel, lineup, seed_list = _prepare(game, seats, seeds, variant, options)
    scores, totals, reasons = [], [], []
    for start in range(0, len(seed_list), MAX_CHUNK):
        chunk = seed_list[start:start + MAX_CHUNK]
        state, rewards = play_lineup(kernel, chunk, lineup)
        scores.append(np.asarray(kernel.scores(state)))
        totals.append(rewards.sum(axis=0))
        reasons += kernel.reasons(state)
    return BatchResult(desc.name, lineup, seed_list, np.concatenate(scores),
                       np.concatenate(totals), reasons)
