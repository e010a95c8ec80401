"""The Ledger kernel's median scores, computed for all tables at once, are §9's median rule
(`scoring.median`) seat by seat: exact middle values and halves, ties, odd and even counts,
tables at different rounds and tables that have played none."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.games.ledger.batch_medians import medians
from cogleague.games.ledger.kernel import LedgerKernel
from cogleague.games.ledger.scoring import median
from cogleague.games.ledger.subgames import MAX_PAY


def _rules(pays: np.ndarray, t: np.ndarray) -> list[list[float]]:
    return [[median([int(v) for v in pays[b, s, :t[b]]]) for s in range(pays.shape[1])]
            for b in range(pays.shape[0])]


@st.composite
def _records(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """B tables of S seats over R rounds, each table at its own round (or all at one), payoffs
    from a few values (ties are the rule) or the whole range."""
    b, s, r = draw(st.integers(1, 6)), draw(st.integers(1, 8)), draw(st.integers(1, 28))
    values = draw(st.sampled_from([[0, 14], [3, 4, 5], list(range(MAX_PAY + 1)), [7]]))
    pays = np.array(draw(st.lists(st.sampled_from(values), min_size=b * s * r,
                                  max_size=b * s * r)), dtype=np.int8).reshape(b, s, r)
    if draw(st.booleans()):
        t = np.full(b, draw(st.integers(0, r)), dtype=np.int64)
    else:
        t = np.array(draw(st.lists(st.integers(0, r), min_size=b, max_size=b)), dtype=np.int64)
    return pays, t


@settings(max_examples=300, deadline=None)
@given(_records())
def test_medians_are_the_median_rule(record: tuple[np.ndarray, np.ndarray]) -> None:
    pays, t = record
    got = medians(pays, t)
    assert got.dtype == np.float64
    assert got.tolist() == _rules(pays, t)


def test_ties_halves_and_counts() -> None:
    """Odd counts take the middle; even counts the mean of the two middles (a half when their
    sum is odd); ties anywhere; a seat with no meetings scores 0.0; rounds past a table's
    count never enter."""
    pays = np.array([[[5, 1, 5, 9, 14], [2, 2, 2, 2, 0]],
                     [[0, 14, 3, 7, 7], [4, 3, 0, 0, 0]],
                     [[9, 9, 9, 9, 9], [1, 2, 3, 4, 5]]], dtype=np.int8)
    t = np.array([4, 2, 0])
    assert medians(pays, t).tolist() == [[5.0, 2.0], [7.0, 3.5], [0.0, 0.0]]
    assert medians(pays, np.array([5, 5, 5])).tolist() == [[5.0, 2.0], [7.0, 0.0], [9.0, 3.0]]
    assert medians(pays, np.array([3, 3, 3])).tolist() == [[5.0, 2.0], [3.0, 3.0], [9.0, 2.0]]
    assert medians(pays[:0], t[:0]).shape == (0, 2)


def test_the_kernel_scores_with_them() -> None:
    kernel = LedgerKernel(14)
    state = kernel.reset([3, 4])
    pays = np.arange(2 * 8 * 14, dtype=np.int64).reshape(2, 8, 14) % (MAX_PAY + 1)
    state = state._replace(pays=pays.astype(np.int8), t=np.array([14, 13]))
    assert kernel.scores(state).tolist() == _rules(pays, np.array([14, 13]))
