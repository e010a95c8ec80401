"""`jsonio.int_texts`: the encoder's text of every integer, from its table or converted."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from cogleague.core import jsonio


@given(st.lists(st.integers(min_value=-10**20, max_value=10**20)))
def test_every_integer_is_written_as_the_encoder_writes_it(values: list[int]) -> None:
    assert jsonio.int_texts(values) == [json.dumps(v) for v in values]


def test_the_table_edges_and_beyond() -> None:
    values = [0, 1, 4094, 4095]
    assert jsonio.int_texts(values) == ["0", "1", "4094", "4095"]
    assert jsonio.int_texts([*values, 4096]) == ["0", "1", "4094", "4095", "4096"]
    assert jsonio.int_texts([-1, 7]) == ["-1", "7"]
    assert jsonio.int_texts([]) == []
