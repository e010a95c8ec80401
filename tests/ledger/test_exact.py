"""Exact rules (issue 12 item 8) in Ledger: the halo threshold is decided in integers, at the
tie as elsewhere; rings and medians are exact already (see test_rings, test_payoffs_scoring)."""

from __future__ import annotations

from cogleague.games.ledger.conduct import halo, halo_at_least_half


def test_a_halo_of_exactly_one_half_is_trusted_and_not_weak() -> None:
    assert halo(3, 3) == 0.5 and halo_at_least_half(3, 3)
    assert halo_at_least_half(0, 0)  # no meetings: the neutral 0.5
    assert not halo_at_least_half(2, 3) and halo_at_least_half(3, 2)
    for kind in range(30):
        for harsh in range(30):
            assert halo_at_least_half(kind, harsh) == (halo(kind, harsh) >= 0.5)
