"""The kernels' view of a named stream is `random()`'s, bit for bit."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core.batch import TWO_53, stream_ints, stream_uniforms
from cogleague.core.rng import first_bits, stream


def test_stream_uniforms_are_random_bit_for_bit() -> None:
    names = ["ledger:5:schedule", "dilemma:0:seat2:random", 12345]
    got = stream_uniforms(names, 40)
    ints = stream_ints(names, 40)
    for row, name in enumerate(names):
        rng = stream(name)
        want = [rng.random() for _ in range(40)]
        assert got[row].tolist() == want
        assert [int(k) for k in ints[row]] == [int(u * TWO_53) for u in want]
    assert stream_ints([], 3).shape == (0, 3)


class _Name(str):
    pass


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=60), st.integers(-(2**90), 2**90)), max_size=8),
       st.integers(0, 700))
def test_first_bits_are_a_fresh_streams_bits(names: list[str | int], bits: int) -> None:
    """One reseeded generator gives what a fresh `random.Random(name)` gives, for text and
    int names (negative and wide ones too)."""
    assert first_bits(names, bits) == [random.Random(n).getrandbits(bits) for n in names]


def test_first_bits_names_as_stream_does() -> None:
    assert first_bits([_Name("x")], 64) == [stream("x").getrandbits(64)]
    with pytest.raises(TypeError):
        first_bits([True], 64)
    with pytest.raises(TypeError):
        first_bits([1.5], 64)  # type: ignore[list-item]
