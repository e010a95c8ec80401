"""Payoffs (§6), conduct and halo (§7), and the median score (§9)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogleague.games.ledger.conduct import halo, is_kind
from cogleague.games.ledger.scoring import mean, median
from cogleague.games.ledger.subgames import (
    DILEMMA,
    LEGAL,
    MAX_PAY,
    MIN_PAY,
    SUBGAMES,
    TRUST,
    ULTIMATUM,
    payoff,
)


@pytest.mark.parametrize(("moves", "pays"), [
    ((0, 0), (6, 6)), ((0, 1), (0, 10)), ((1, 0), (10, 0)), ((1, 1), (2, 2)),
])
def test_dilemma_table(moves: tuple[int, int], pays: tuple[int, int]) -> None:
    assert payoff(DILEMMA, *moves) == pays


@pytest.mark.parametrize(("moves", "pays"), [
    ((4, 50), (6, 6)), ((6, 50), (6, 8)), ((6, 0), (0, 14)), ((1, 25), (6, 3)),
    ((5, 75), (9, 4)), ((3, 33), (5, 6)), ((6, 100), (12, 2)),
] + [((0, p), (6, 2)) for p in (0, 1, 50, 99, 100)])
def test_trust_examples(moves: tuple[int, int], pays: tuple[int, int]) -> None:
    assert payoff(TRUST, *moves) == pays


@pytest.mark.parametrize(("moves", "pays"), [
    ((2, 0), (10, 2)), ((2, 5), (0, 0)), ((5, 5), (7, 5)), ((4, 5), (0, 0)), ((12, 12), (0, 12)),
] + [((6, m), (6, 6)) for m in range(7)])
def test_ultimatum_examples(moves: tuple[int, int], pays: tuple[int, int]) -> None:
    assert payoff(ULTIMATUM, *moves) == pays


@pytest.mark.parametrize("subgame", SUBGAMES)
def test_every_legal_move_pair_pays_0_to_14_and_keeps_its_invariant(subgame: str) -> None:
    (lo_a, hi_a), (lo_b, hi_b) = LEGAL[subgame]
    for move_a in range(lo_a, hi_a + 1):
        for move_b in range(lo_b, hi_b + 1):
            pay_a, pay_b = payoff(subgame, move_a, move_b)
            assert MIN_PAY <= pay_a <= MAX_PAY and MIN_PAY <= pay_b <= MAX_PAY
            assert isinstance(pay_a, int) and isinstance(pay_b, int)
            if subgame == TRUST:
                assert pay_a + pay_b == 8 + move_a
            elif subgame == ULTIMATUM:
                assert pay_a + pay_b in (0, 12)


def test_fair_play_pays_six_everywhere() -> None:
    assert payoff(DILEMMA, 0, 0) == payoff(TRUST, 4, 50) == payoff(ULTIMATUM, 6, 6) == (6, 6)


def test_trust_return_rounds_half_up() -> None:
    # 2s·p/100 = 2.5 at s = 5, p = 25: half up gives 3 returned (investor 1 + 3 = 4)
    assert payoff(TRUST, 5, 25) == (4, 9)
    # 2·1·74/100 = 1.48 → 1; 2·1·75/100 = 1.5 → 2
    assert payoff(TRUST, 1, 74) == (6, 3) and payoff(TRUST, 1, 75) == (7, 2)


@pytest.mark.parametrize(("subgame", "side", "move", "kind"), [
    (DILEMMA, 0, 0, True), (DILEMMA, 1, 0, True), (DILEMMA, 0, 1, False), (DILEMMA, 1, 1, False),
    (TRUST, 0, 3, True), (TRUST, 0, 2, False), (TRUST, 0, 6, True), (TRUST, 0, 0, False),
    (TRUST, 1, 50, True), (TRUST, 1, 49, False), (TRUST, 1, 100, True),
    (ULTIMATUM, 0, 5, True), (ULTIMATUM, 0, 4, False), (ULTIMATUM, 0, 12, True),
    (ULTIMATUM, 1, 5, True), (ULTIMATUM, 1, 6, False), (ULTIMATUM, 1, 0, True),
])
def test_conduct_thresholds_on_both_sides(subgame: str, side: int, move: int,
                                          kind: bool) -> None:
    assert is_kind(subgame, side, move) is kind


def test_halo() -> None:
    assert halo(0, 0) == 0.5
    assert halo(3, 1) == 0.75
    assert halo(0, 4) == 0.0 and halo(2, 0) == 1.0


@pytest.mark.parametrize(("pays", "expected"), [
    ([], 0.0), ([7], 7.0), ([1, 9, 4], 4.0), ([6, 2, 10, 6, 0], 6.0),
    ([2, 6], 4.0), ([5, 6], 5.5), ([0, 14, 6, 7], 6.5), ([3, 3, 3, 3], 3.0),
])
def test_median(pays: list[int], expected: float) -> None:
    assert median(pays) == expected and isinstance(median(pays), float)


def test_fourteen_meetings_use_the_two_middle_values() -> None:
    pays = [2] * 12 + [14, 14]
    assert median(pays) == 2.0
    assert mean(pays) == pytest.approx(3.714, abs=1e-3)
    pays = [0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 14]
    assert median(pays) == (sorted(pays)[6] + sorted(pays)[7]) / 2 == 7.5


@given(st.lists(st.integers(0, 14), max_size=28))
def test_median_is_order_free_and_between_extremes(pays: list[int]) -> None:
    m = median(pays)
    assert m == median(list(reversed(pays)))
    if pays:
        assert min(pays) <= m <= max(pays) and (2 * m).is_integer()
