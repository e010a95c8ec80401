"""`jsonio.int_bytes`: the encoder's bytes of every integer, from its table or converted."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from cogleague.core import jsonio


@given(st.lists(st.integers(min_value=-10**20, max_value=10**20)))
def test_every_integer_is_written_as_the_encoder_writes_it(values: list[int]) -> None:
    assert jsonio.int_bytes(values) == [json.dumps(v).encode() for v in values]


@given(st.lists(st.integers(min_value=0, max_value=10**6)))
def test_ascending_values_are_bounded_by_their_ends(values: list[int]) -> None:
    ascending = sorted(values)
    assert jsonio.int_bytes(ascending, ascending=True) == [json.dumps(v).encode()
                                                           for v in ascending]


def test_the_table_edges_and_beyond() -> None:
    values = [0, 1, 4094, 4095]
    assert jsonio.int_bytes(values) == [b"0", b"1", b"4094", b"4095"]
    assert jsonio.int_bytes([*values, 4096]) == [b"0", b"1", b"4094", b"4095", b"4096"]
    assert jsonio.int_bytes([*values, 4096], ascending=True) == [b"0", b"1", b"4094", b"4095",
                                                                 b"4096"]
    assert jsonio.int_bytes([-1, 7]) == [b"-1", b"7"]
    assert jsonio.int_bytes([]) == []
