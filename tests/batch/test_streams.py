"""The kernels' view of a named stream is `random()`'s, bit for bit."""

from __future__ import annotations

from cogleague.core.batch import TWO_53, stream_ints, stream_uniforms
from cogleague.core.rng import stream


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
