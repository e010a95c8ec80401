"""Who plays whom, and who moves first (spec §1, §2.1).

Every unordered pair of seats is a pairing, listed in ascending (lower, higher) order. Rounds are
numbered from 1: in odd rounds the lower seat moves first, in even rounds the higher seat.
"""

from __future__ import annotations

from itertools import combinations

Pairing = tuple[int, int]


def pairings(seats: int) -> list[Pairing]:
    """All pairings of a round robin over `seats` seats, in ascending order."""
    return list(combinations(range(seats), 2))


def first_mover(pairing: Pairing, round_no: int) -> int:
    """The seat that chooses first in `pairing` in round `round_no` (1-based)."""
    lower, higher = pairing
    return lower if round_no % 2 == 1 else higher


def second_mover(pairing: Pairing, round_no: int) -> int:
    lower, higher = pairing
    return higher if round_no % 2 == 1 else lower


def opponent(pairing: Pairing, seat: int) -> int:
    lower, higher = pairing
    return higher if seat == lower else lower
