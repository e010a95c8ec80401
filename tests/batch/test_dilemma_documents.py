"""The dilemma kernel's documents as text (`documents_json`, what the league stores) are byte for
byte the canonical encoding of its documents, and those are the rules engine's results, free
and paid tables alike; its alias draws are `draw_aliases`'."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cogleague
from cogleague.core import jsonio
from cogleague.core.batch import act_planned, seat_plan
from cogleague.games.dilemma.aliases import ALIAS_POOL, draw_aliases
from cogleague.games.dilemma.kernel import BATCH, BATCH_BASELINES, alias_indexes


def _played(options: dict[str, Any], seats: int, tables: int, rng: random.Random
            ) -> tuple[Any, list[int], list[list[str]], list[Any], Any]:
    kernel = BATCH.kernel("standard", options, seats)
    lineups = [[rng.choice(BATCH_BASELINES) for _ in range(seats)] for _ in range(tables)]
    seeds = [rng.randrange(2**31) for _ in range(tables)]
    seeds = [seeds[i - i % 2] for i in range(tables)]  # rotation blocks share a seed
    state = kernel.reset(seeds, lineups)
    plan = seat_plan(kernel, lineups, {})
    actions = np.zeros((tables, seats), dtype=np.int64)
    records = []
    for _ in range(kernel.steps_per_episode):
        state, _, _ = kernel.step(state, act_planned(plan, state, actions))
        records.append(kernel.record(state))
    return kernel, seeds, lineups, records, state


@pytest.mark.parametrize(("options", "seats"), [
    ({"rounds_total": 6}, 4),
    ({"rounds_total": 3, "stake": 7, "rake_bps": 250}, 3),
    ({"rounds_total": 4, "stake": 100, "rake_bps": 1000}, 5),
])
def test_documents_json_is_the_encoding_of_the_rules_engines_results(
        options: dict[str, Any], seats: int) -> None:
    kernel, seeds, lineups, records, state = _played(options, seats, 40, random.Random(seats))
    docs = kernel.documents(state, records, seeds, lineups)
    texts = kernel.documents_json(state, records, seeds, lineups)
    assert len(texts) == len(docs) == 40
    for (results, series), (results_text, series_text) in zip(docs, texts, strict=True):
        assert results_text == jsonio.dumps_reference(results, sort_keys=True)
        assert series_text == jsonio.dumps_reference(series, sort_keys=True)
    for i in (0, 1, 7):  # the rules engine's episode of that seed and line-up
        want = cogleague.play("dilemma", lineups[i], seed=seeds[i], **options)
        assert docs[i][0] == {k: want.results[k] for k in docs[i][0]}  # but its "faults"


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=20), st.integers(3, 8))
def test_alias_indexes_are_draw_aliases(seeds: list[int], seats: int) -> None:
    got = alias_indexes(seeds, seats).tolist()
    assert [[ALIAS_POOL[k] for k in row] for row in got] == [draw_aliases(s, seats)
                                                             for s in seeds]


@pytest.mark.parametrize(("options", "seats"), [({"rounds_total": 5}, 4), ({}, 3),
                                                ({"rounds_total": 3}, 6)])
def test_the_lineup_policy_acts_as_each_seats_baseline(options: dict[str, Any],
                                                        seats: int) -> None:
    """Every step of mixed line-ups (every baseline, draws included): the one look-up of
    `LineupPolicy` gives what each seat's `ArrayBaseline` gives."""
    kernel, seeds, lineups, _, _ = _played(options, seats, 60, random.Random(seats + 1))
    state = kernel.reset(seeds, lineups)
    plan = seat_plan(kernel, lineups, {})
    lineup = kernel.lineup_policy(lineups)
    actions = np.zeros((len(seeds), seats), dtype=np.int64)
    for _ in range(kernel.steps_per_episode):
        want = act_planned(plan, state, actions).copy()
        assert np.array_equal(lineup.act(state), want)
        state, _, _ = kernel.step(state, want)
    assert state.ptr.any()  # draws were taken
