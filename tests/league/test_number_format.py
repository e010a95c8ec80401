"""Numbers in the standings and the report read as numbers: no ``-0.00``."""

from __future__ import annotations


def test_a_centred_strength_of_zero_never_reads_minus_zero() -> None:
    """Bradley–Terry strengths are centred: a policy at the centre gets -0.0 or -1e-17, which
    read ``-0.00 [-0.00, 0.00]`` in the standings and the report."""
    from cogleague.cli.league import _interval
    from cogleague.league.report import _ci

    row = {"strength": -1e-17, "low": -0.0, "high": 1e-17}
    assert _interval(row, "strength") == "0.00 [0.00, 0.00]"
    assert "-0.00" not in _ci(row, "strength")
