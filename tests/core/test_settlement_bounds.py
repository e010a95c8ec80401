"""`split_pot` is the one place a rake is taken: a rake outside 0..10000 basis points (more
than the pot, or negative) or a negative stake paid out nonsense (negative payouts summing to
a pot the house overdrew) instead of refusing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogleague.core.settlement import split_pot


@pytest.mark.parametrize(("stake", "rake_bps", "says"), [
    (10, 10001, "rake_bps must be an integer in 0..10000 (got 10001)"),
    (10, -1, "rake_bps must be an integer in 0..10000 (got -1)"),
    (-10, 500, "stake must be an integer of 0 or more (got -10)"),
])
def test_out_of_range_is_refused(stake: int, rake_bps: int, says: str) -> None:
    with pytest.raises(ValueError, match=f"^{says.replace('(', '[(]').replace(')', '[)]')}$"):
        split_pot(stake, rake_bps, [1, 2, 3])


@given(st.integers(0, 10**9), st.integers(0, 10000),
       st.lists(st.integers(0, 10**6), min_size=1, max_size=8))
def test_the_split_conserves_the_pot_and_pays_no_one_less_than_nothing(
        stake: int, rake_bps: int, points: list[int]) -> None:
    split = split_pot(stake, rake_bps, points)
    assert split.rake + sum(split.payouts) == split.pot == stake * len(points)
    assert 0 <= split.rake <= split.pot and all(p >= 0 for p in split.payouts)
