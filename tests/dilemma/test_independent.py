"""Spec §7: for deterministic strategies, total points equal an independent computation of the
same strategies over the same matrix and round count (written here from the rules alone)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from dilemma.support import play

# strategy(me, them, i_move_first, they_broke_a_promise) -> (cooperate?, promises?)
Strategy = Callable[[list[bool], list[bool], bool, bool], tuple[bool, bool]]

STRATEGIES: dict[str, Strategy] = {
    "tit_for_tat": lambda me, them, first, broke: (not them or them[-1], False),
    "always_cooperate": lambda me, them, first, broke: (True, False),
    "always_defect": lambda me, them, first, broke: (False, False),
    "grim_trigger": lambda me, them, first, broke: (False not in them, False),
    "pavlov": lambda me, them, first, broke: (not me or me[-1] == them[-1], False),
    "promise_keeper": lambda me, them, first, broke: (not broke, first and not broke),
    "silver_tongue": lambda me, them, first, broke: (first, True),
}


def expected_points(names: list[str], rounds: int, r: int, p: int, t: int, s: int) -> list[int]:
    pay = {(True, True): (r, r), (True, False): (s, t), (False, True): (t, s),
           (False, False): (p, p)}
    totals = [0] * len(names)
    for a, b in combinations(range(len(names)), 2):
        hist: dict[int, list[bool]] = {a: [], b: []}
        broke = {a: False, b: False}
        for rnd in range(1, rounds + 1):
            first = a if rnd % 2 == 1 else b
            moves = {}
            for me, other in ((a, b), (b, a)):
                coop, promised = STRATEGIES[names[me]](hist[me], hist[other], me == first,
                                                       broke[other])
                moves[me] = (coop, promised)
            for me in (a, b):
                coop, promised = moves[me]
                if promised and not coop:
                    broke[me] = True
                hist[me].append(coop)
            pa, pb = pay[(moves[a][0], moves[b][0])]
            totals[a] += pa
            totals[b] += pb
    return totals


@settings(max_examples=40, deadline=None)
@given(names=st.lists(st.sampled_from(sorted(STRATEGIES)), min_size=3, max_size=8),
       rounds=st.integers(1, 25),
       matrix=st.sampled_from([(3, 1, 5, 0), (4, 2, 6, 1), (10, 2, 12, 0), (2, 1, 3, 0)]))
def test_total_points_match_an_independent_computation(names: list[str], rounds: int,
                                                        matrix: tuple[int, int, int, int]) -> None:
    r, p, t, s = matrix
    payoffs = {"reward": r, "punishment": p, "temptation": t, "sucker": s}
    _, outcome = play(names, rounds_total=rounds, payoffs=payoffs)
    assert outcome.results["scores"] == expected_points(names, rounds, r, p, t, s)


def test_the_classic_five_over_200_rounds() -> None:
    names = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov"]
    _, outcome = play(names, rounds_total=200, promises=False)
    assert outcome.results["scores"] == expected_points(names, 200, 3, 1, 5, 0)
    assert outcome.results["scores"] == [1999, 1800, 2008, 1999, 1900]  # Axelrod's figures
