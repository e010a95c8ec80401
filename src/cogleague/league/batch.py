"""League episodes through a game's batch kernel (``extras["batch"]``, docs/batch.md).

An episode whose seats are all baselines with an array twin plays with hundreds or thousands of
others of the same game, variant, options and seat count (line-ups differ table by table), in a
kernel chunk the backend's workers play like any other chunk (`worker.play_chunk`); each
record holds the results document and series the kernel builds, byte for byte what the rules
engine's episode of that seed stores (`tests/batch/test_league.py` compares the stored text of
both engines), encoded where it was played — or written as text by the kernel itself
(`documents_json`). Every other episode plays through the rules engine.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from cogleague.core import jsonio
from cogleague.core.batch import BatchGame, act_planned, batch_of, seat_plan
from cogleague.core.errors import ConfigError
from cogleague.games import registry
from cogleague.league.episodes import (
    Chunk,
    EncodedRecord,
    EpisodeSpec,
    encoded_ok,
    encoded_rows,
)

ENGINES = ("auto", "batch", "rules")
CHUNK = 10_000  # tables stepped together, at most
MIN_CHUNK = 500  # below this the kernel's cost per step, not per table, dominates
CHUNKS_PER_WORKER = 2  # the driver stores one chunk while the workers play the next


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


def chunks(specs: Sequence[EpisodeSpec], workers: int) -> list[Chunk]:
    """`specs` (all `batchable`) grouped by game, variant, options and seat count (line-ups may
    differ table by table), each group cut into kernel chunks: a few per worker, so a pool's
    workers all play while the driver stores what came back, and at most `CHUNK` tables. A
    large group's first chunk per worker is `MIN_CHUNK` tables: the driver, whose store is the
    slower half, starts writing while the rest plays."""
    groups: dict[tuple[Any, ...], list[EpisodeSpec]] = {}
    options: dict[int, str] = {}  # a game's specs share one overrides mapping: encoded once
    for spec in specs:
        text = options.get(id(spec.overrides))
        if text is None:
            text = options[id(spec.overrides)] = jsonio.dumps(dict(spec.overrides),
                                                              sort_keys=True)
        key = (spec.game, spec.variant, text, len(spec.seats))
        groups.setdefault(key, []).append(spec)
    out = []
    for members in groups.values():
        # a pool's first chunks are small: the driver starts storing while the rest plays
        large = workers > 1 and len(members) > 4 * MIN_CHUNK * workers
        start = MIN_CHUNK * workers if large else 0
        out += [Chunk(tuple(members[i:i + MIN_CHUNK]), kernel=True)
                for i in range(0, start, MIN_CHUNK)]
        rest = len(members) - start
        size = max(MIN_CHUNK, min(CHUNK, -(-rest // (workers * CHUNKS_PER_WORKER))))
        out += [Chunk(tuple(members[i:i + size]), kernel=True)
                for i in range(start, len(members), size)]
    return out


def play_chunk(specs: Sequence[EpisodeSpec]) -> list[EncodedRecord]:
    """One chunk of a single group (`chunks`) through the kernel, as the store's rows: what a
    worker sends back, so the driver only inserts them."""
    started = time.perf_counter()
    first = specs[0]
    lineups = [[s.seat_ref for s in spec.seats] for spec in specs]
    batch = _batch(first.game)
    assert batch is not None
    kernel: Any = batch.kernel(first.variant, dict(first.overrides), len(lineups[0]))
    seeds = [s.seed for s in specs]
    state = kernel.reset(seeds, lineups)
    # every seat at once where the kernel can (a step's one look-up), else seat by seat
    lineup = kernel.lineup_policy(lineups) if hasattr(kernel, "lineup_policy") else None
    plan = None
    actions = np.zeros((len(specs), len(lineups[0])), dtype=np.int64)
    records = []
    for _ in range(kernel.steps_per_episode):
        acts = None if lineup is None else lineup.act(state)
        if acts is None:
            plan = plan or seat_plan(kernel, lineups, {})
            acts = act_planned(plan, state, actions)
        state, _, _ = kernel.step(state, acts)
        records.append(kernel.record(state))
    if hasattr(kernel, "documents_json"):  # the documents written as text from the arrays
        texts = kernel.documents_json(state, records, seeds, lineups)
        return encoded_rows(specs, texts, kernel.reasons(state), kernel.scores(state).tolist(),
                            (time.perf_counter() - started) / len(specs))
    documents = kernel.documents(state, records, seeds, lineups)
    return encoded_ok(specs, documents, (time.perf_counter() - started) / len(specs))
