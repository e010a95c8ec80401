"""Aliases (§3) and the schedule (§5), including the seed-7 vectors (§4)."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.games.ledger.aliases import ALIAS_POOL, draw_aliases
from cogleague.games.ledger.schedule import PASS_LENGTH, draw_schedule, matching
from cogleague.games.ledger.subgames import DILEMMA, TRUST, ULTIMATUM

from .support import SEED7_ALIASES

SEEDS = range(200)
FULL = {seed: draw_schedule(seed, 28) for seed in SEEDS}


def _short(round_pairs: list) -> str:
    return ", ".join(f"{p.a}-{p.b} {p.subgame[0]}" for p in round_pairs)


def test_seed7_aliases() -> None:
    assert draw_aliases(7) == SEED7_ALIASES


def test_seed7_first_two_rounds() -> None:
    schedule = draw_schedule(7, 14)
    assert _short(schedule[0]) == "0-1 D, 2-4 T, 5-7 D, 3-6 D"
    assert _short(schedule[1]) == "0-2 D, 1-7 T, 4-6 U, 3-5 D"


@given(st.integers(0, 2_147_483_647))
@settings(max_examples=50, deadline=None)
def test_aliases_are_distinct_pool_names_and_stable(seed: int) -> None:
    aliases = draw_aliases(seed)
    assert len(aliases) == 8 == len(set(aliases)) and set(aliases) <= set(ALIAS_POOL)
    assert draw_aliases(seed) == aliases


def test_matchings_form_a_one_factorization() -> None:
    seen: set[frozenset[int]] = set()
    for k in range(PASS_LENGTH):
        pairs = matching(k)
        assert sorted(x for p in pairs for x in p) == list(range(8))
        seen |= {frozenset(p) for p in pairs}
    assert len(seen) == 28  # every pair of positions exactly once


@pytest.mark.parametrize("seed", SEEDS)
def test_schedule_properties_for_every_length(seed: int) -> None:
    full = FULL[seed]
    for rounds in range(4, 29):
        schedule = draw_schedule(seed, rounds) if rounds in (4, 14, 28) else full[:rounds]
        assert schedule == full[:rounds]  # an r-round schedule is a prefix of the 28-round one
        meets: Counter[tuple[int, int]] = Counter()
        for r, round_pairs in enumerate(schedule):
            seats = [s for p in round_pairs for s in (p.a, p.b)]
            assert sorted(seats) == list(range(8))  # a perfect matching: everyone plays
            for p in round_pairs:
                meets[min(p.a, p.b), max(p.a, p.b)] += 1
            if r:
                before = {frozenset((p.a, p.b)) for p in schedule[r - 1]}
                assert not before & {frozenset((p.a, p.b)) for p in round_pairs}
        lo, hi = rounds // PASS_LENGTH, math.ceil(rounds / PASS_LENGTH)
        assert all(lo <= meets[pair] <= hi for pair in combinations(range(8), 2))
        if rounds in (7, 14, 21, 28):
            assert set(meets.values()) == {rounds // PASS_LENGTH}
            assert len(meets) == 28


@pytest.mark.parametrize("seed", SEEDS)
def test_roles_dilemma_order_and_first_mover_balance(seed: int) -> None:
    counts = [0] * 8
    for round_pairs in FULL[seed]:
        for p in round_pairs:
            if p.subgame == DILEMMA:
                assert p.a < p.b and p.first is None
            else:
                assert p.first == p.a
                assert counts[p.a] <= counts[p.b]  # fewer (or equal) prior first moves
                counts[p.a] += 1


def test_subgame_mix_is_within_three_points_of_50_30_20() -> None:
    drawn = Counter(p.subgame for s in FULL.values() for r in s for p in r)
    total = sum(drawn.values())
    for subgame, share in ((DILEMMA, 0.5), (TRUST, 0.3), (ULTIMATUM, 0.2)):
        assert abs(drawn[subgame] / total - share) <= 0.03


def test_schedules_differ_between_seeds() -> None:
    assert len({_short(FULL[s][0]) for s in SEEDS}) > 50
