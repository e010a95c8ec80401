"""`core.mt19937` seeds and draws many streams in arrays; every word must be the one
`random.Random` gives for the same name, and `rng.first_draws` its first `random()`."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core import mt19937
from cogleague.core.batch import stream_ints
from cogleague.core.rng import first_draws, stream

NAMES = st.one_of(st.text(max_size=300), st.integers(min_value=-(2**200), max_value=2**200))


def _words(name: str | int, count: int) -> list[int]:
    raw = random.Random(name).getrandbits(32 * count).to_bytes(4 * count, "little")
    return np.frombuffer(raw, dtype="<u4").tolist()


@settings(max_examples=25, deadline=None)
@given(st.lists(NAMES, min_size=1, max_size=12), st.integers(min_value=1, max_value=624))
def test_words_are_random_randoms(names: list[str | int], count: int) -> None:
    got = mt19937.stream_words(names, count)
    assert got.shape == (len(names), count)
    for row, name in enumerate(names):
        assert got[row].tolist() == _words(name, count)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=8),
       st.integers(min_value=1, max_value=312))
def test_draws_are_the_streams_draws(names: list[str], draws: int) -> None:
    assert np.array_equal(mt19937.stream_ints(names, draws), stream_ints(names, draws))
    assert first_draws(names) == [stream(n).random() for n in names]


def test_twist_block_edges_and_bad_counts() -> None:
    names = ["ledger:5:schedule", "ledger:2147483647:seat:7:round:27", 0, 2**63 - 1, "\0x", "",
             "é", "ledger:12:schedule"]
    for count in (226, 227, 228, 453, 454, 455, 623, 624):
        got = mt19937.stream_words(names, count)
        assert [got[i].tolist() for i in range(len(names))] == [_words(n, count) for n in names]
    with pytest.raises(ValueError, match=r"0\.\.624"):
        mt19937.stream_words(names, 625)


def test_one_key_length_in_any_order() -> None:
    """Texts of different byte lengths but one key length share one array seeding, each
    stream's words back in its own column."""
    names = ["ledger:5:schedule", "ledger:12:schedule", "ledger:6:schedule", "ledger:7:schedule"]
    got = mt19937.stream_words(names, 8)
    assert [got[i].tolist() for i in range(len(names))] == [_words(n, 8) for n in names]
