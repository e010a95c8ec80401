"""League episodes through a game's batch kernel (``extras["batch"]``, docs/batch.md).

An episode whose seats are all baselines with an array twin plays in the driver's process
with thousands of others of the same game, variant, options and line-up, chunk after chunk;
each record holds the results document and series the kernel builds, key for key what the
rules engine's episode of that seed writes (`tests/batch/test_league.py` compares the stored
records of both engines). Every other episode goes to the backend as before.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from cogleague.core import jsonio
from cogleague.core.batch import BatchGame, act_mixed, batch_of
from cogleague.core.errors import ConfigError
from cogleague.games import registry
from cogleague.league.episodes import EncodedRecord, EpisodeRecord, EpisodeSpec

ENGINES = ("auto", "batch", "rules")
CHUNK = 10_000  # tables stepped together


@functools.cache
def _batch(game: str) -> BatchGame | None:
    try:
        return batch_of(registry.get(game))
    except ConfigError:
        return None


def batchable(spec: EpisodeSpec) -> str | None:
    """None when the kernel can play `spec`, else why not (for ``--engine batch``)."""
    if spec.game_module is not None:
        return f"game {spec.game} is loaded from a module, not the registry"
    batch = _batch(spec.game)
    if batch is None:
        return f"game {spec.game} declares no batch kernel"
    for seat in spec.seats:
        if seat.model or seat.seat_ref not in batch.baselines:
            return f"seat {seat.seat_ref!r} has no batch twin"
    return None


def split(specs: Sequence[EpisodeSpec], engine: str) -> tuple[list[EpisodeSpec],
                                                                list[EpisodeSpec]]:
    """(through the kernel, through the rules engine) for ``--engine`` `engine`."""
    if engine not in ENGINES:
        raise ConfigError("engine", f"engine must be one of {', '.join(ENGINES)} "
                                    f"(got {engine!r})")
    if engine == "rules":
        return [], list(specs)
    fast, slow = [], []
    for spec in specs:
        why = batchable(spec)
        if why is None:
            fast.append(spec)
        elif engine == "batch":
            raise ConfigError("engine", f"engine batch: episode {spec.id} cannot play through "
                                        f"a batch kernel ({why}); use --engine auto or rules")
        else:
            slow.append(spec)
    return fast, slow


def play(specs: Sequence[EpisodeSpec], on_chunk: Callable[[list[EncodedRecord]], None]) -> None:
    """Play `specs` (all `batchable`) group by group, handing each chunk's records over."""
    groups: dict[tuple[Any, ...], list[EpisodeSpec]] = {}
    for spec in specs:
        key = (spec.game, spec.variant, jsonio.dumps(dict(spec.overrides), sort_keys=True),
               len(spec.seats))  # line-ups may differ table by table
        groups.setdefault(key, []).append(spec)
    for members in groups.values():
        for start in range(0, len(members), CHUNK):
            on_chunk(_play_group(members[start:start + CHUNK]))


def _play_group(specs: Sequence[EpisodeSpec]) -> list[EncodedRecord]:
    started = time.perf_counter()
    first = specs[0]
    lineups = [[s.seat_ref for s in spec.seats] for spec in specs]
    batch = _batch(first.game)
    assert batch is not None
    kernel: Any = batch.kernel(first.variant, dict(first.overrides), len(lineups[0]))
    seeds = [s.seed for s in specs]
    state = kernel.reset(seeds, lineups)
    cache: dict[tuple[str, int], Any] = {}
    actions = np.zeros((len(specs), len(lineups[0])), dtype=np.int64)
    records = []
    for _ in range(kernel.steps_per_episode):
        state, _, _ = kernel.step(state, act_mixed(kernel, state, lineups, actions, cache))
        records.append(kernel.record(state))
    documents = kernel.documents(state, records, seeds, lineups)
    each = (time.perf_counter() - started) / len(specs)
    out = []
    for spec, (results, series) in zip(specs, documents, strict=True):
        record = EpisodeRecord(id=spec.id, league=spec.league, game=spec.game,
                               variant=spec.variant, seed=spec.seed, policies=spec.policies,
                               index=spec.index, source=spec.source, duration_s=each)
        record.results = json.loads(jsonio.dumps(results, sort_keys=True))
        record.series = series
        out.append(record.encoded())
    return out
