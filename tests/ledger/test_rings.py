"""Ring detection (§10): measured from meetings, published, never scored."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.games.ledger.rings import (
    detect_rings,
    half_up,
    may_flag,
    outpaces,
    outpacing_line,
)
from cogleague.games.ledger.schedule import draw_schedule

from .support import make_game, play

Pay = Callable[[int, int], tuple[int, int]]


def _meetings(rounds: int, pay: Pay, seed: int = 7) -> list[tuple[int, int, int, int]]:
    """Synthetic meetings on a real schedule; `pay(a, b)` gives (pay_a, pay_b)."""
    return [(p.a, p.b, *pay(p.a, p.b)) for r in draw_schedule(seed, rounds) for p in r]


def _ring_pay(members: set[int], inside: int = 10, outside: int = 2) -> Pay:
    return lambda a, b: (inside, inside) if {a, b} <= members else (outside, outside)


def test_one_fed_pair_is_flagged_with_delta_eight() -> None:
    rings = detect_rings(_meetings(14, _ring_pay({1, 5})))
    assert [(p.a, p.b) for p in rings.pairs] == [(1, 5)]
    pair = rings.pairs[0]
    assert (pair.in_mean, pair.out_mean, pair.delta) == (10, 2, 8)
    assert pair.to_json() == {"a": 1, "b": 5, "inMean": 10.0, "outMean": 2.0, "delta": 8.0}
    assert rings.components == []  # two seats are a pair, not a ring


def test_uniform_sixes_flag_nothing() -> None:
    assert detect_rings(_meetings(14, lambda a, b: (6, 6))).to_json() == {
        "pairs": [], "components": []}


def test_a_flagged_triangle_is_one_component() -> None:
    rings = detect_rings(_meetings(14, _ring_pay({0, 3, 6})))
    assert [(p.a, p.b) for p in rings.pairs] == [(0, 3), (0, 6), (3, 6)]
    assert rings.components == [[0, 3, 6]]


def test_two_separate_rings_are_sorted_components() -> None:
    members = ({4, 5, 7}, {0, 1, 2})
    rings = detect_rings(_meetings(14, lambda a, b: (
        (10, 10) if any({a, b} <= m for m in members) else (2, 2))))
    assert rings.components == [[0, 1, 2], [4, 5, 7]]


def test_seven_rounds_or_fewer_flag_nothing() -> None:
    for rounds in range(4, 8):
        assert detect_rings(_meetings(rounds, _ring_pay({1, 5}, 14, 0))).pairs == []


def test_thresholds_are_inclusive_and_exact() -> None:
    # pair (0, 1) met twice at 6/6; everything else pays 3: inMean 6, outMean 3, delta 3.
    meetings = [(0, 1, 6, 6), (0, 1, 6, 6), (0, 2, 3, 3), (1, 3, 3, 3)]
    assert [(p.a, p.b) for p in detect_rings(meetings).pairs] == [(0, 1)]
    below_mean = [(0, 1, 6, 5), (0, 1, 6, 6), (0, 2, 0, 0)]  # inMean 5.75
    assert detect_rings(below_mean).pairs == []
    below_delta = [(0, 1, 6, 6), (0, 1, 6, 6), (0, 2, 4, 4), (1, 3, 3, 3)]  # delta 2.5
    assert detect_rings(below_delta).pairs == []
    # outMean 10/3: delta 8/3 just under 3 — exact fractions, no float luck
    thirds = [(0, 1, 6, 6), (0, 1, 6, 6), (0, 2, 3, 0), (0, 2, 3, 0), (1, 3, 4, 0)]
    assert detect_rings(thirds).pairs == []


def _fed_pair(out_pays: list[int]) -> dict[str, object]:
    """Seats 0 and 1 meet twice at 8/8; their other meetings pay `out_pays` (alternating
    between them, each against a fresh partner): the pair's reported figures."""
    meetings = [(0, 1, 8, 8), (0, 1, 8, 8)]
    meetings += [(k % 2, 2 + k % 6, pay, pay) for k, pay in enumerate(out_pays)]
    (pair,) = detect_rings(meetings).pairs
    return pair.to_json()


def test_reported_figures_round_half_up_from_the_exact_value() -> None:
    # delta exactly 13/4 (outMean 19/4): half up 3.3; Python's round(3.25, 1) says 3.2
    doc = _fed_pair([5, 5, 5, 4])
    assert (doc["inMean"], doc["outMean"], doc["delta"]) == (8.0, 4.75, 3.3)
    assert round(8 - 4.75, 1) == 3.2  # what the float rounding would have published
    # delta exactly 61/20 (outMean 99/20): half up 3.1; the float 3.0499999… rounds to 3.0
    doc = _fed_pair([5] * 19 + [4])
    assert (doc["outMean"], doc["delta"]) == (4.95, 3.1)
    assert round(float(Fraction(61, 20)), 1) == 3.0
    # outMean exactly 1/32 = 0.03125 at 4 dp: half up 0.0313 (the float rounds to 0.0312)
    doc = _fed_pair([1] + [0] * 31)
    assert (doc["outMean"], doc["delta"]) == (0.0313, 8.0)
    assert round(1 / 32, 4) == 0.0312
    assert [half_up(Fraction(v), 1) for v in ("-13/4", "1/3", "2/3", "0", "15/4")] == [
        -3.3, 0.3, 0.7, 0.0, 3.8]


def test_no_other_meetings_gives_out_mean_zero() -> None:
    rings = detect_rings([(2, 3, 7, 7), (3, 2, 7, 7)])
    assert rings.pairs[0].out_mean == Fraction(0) and rings.pairs[0].to_json()["delta"] == 7.0


def test_rings_are_reported_but_never_change_scores() -> None:
    """Two saints among sharks pay each other well and are flagged; scores stay plain medians."""
    game = make_game(seed=7, lineup=["shark", "saint", "shark", "shark", "shark", "saint",
                                     "shark", "shark"])
    results = play(game).results
    assert [(p["a"], p["b"]) for p in results["rings"]["pairs"]] == [(1, 5)]
    assert results["ringPairs"] == 1 and results["rings"]["components"] == []
    assert results["scores"] == [game.table.median(s) for s in range(8)]
    assert results["scores"] == [
        (sorted(pays)[6] + sorted(pays)[7]) / 2 for pays in game.table.pays]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(1, 14), st.integers(0, 40), st.integers(0, 30), st.integers(-50, 400),
       st.integers(-50, 400))
def test_the_outpacing_line_is_outpaces_for_pairs_that_may_be_flagged(
        met: int, per_meeting: int, out_count: int, out_sum: int, swing: int) -> None:
    """`outpacing_line` (what the frames check after every meeting) decides as `outpaces`
    for every pair `may_flag` lets through: with or without other meetings, either sign."""
    inside = per_meeting * met + swing % (met + 1)
    if not may_flag(met, inside):
        return
    out_sum = out_sum if out_count else 0  # no other meetings: nothing paid in them
    slope_c, slope_s, bound = outpacing_line(met, inside)
    counts, sums = out_count + 2 * met, out_sum + inside
    assert (slope_c * counts - slope_s * sums >= bound) == outpaces(met, inside, out_sum,
                                                                    out_count)
