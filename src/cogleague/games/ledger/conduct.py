"""Conduct and the halo (spec §7): each meeting classes each seat as kind or harsh.

The halo is a display and observation statistic, never a score input.
"""

from __future__ import annotations

from cogleague.games.ledger.subgames import COOPERATE, DILEMMA, TRUST

TRUST_KIND_SEND = 3  # an investor sending at least this is kind
TRUST_KIND_PERCENT = 50  # a trustee committing at least this return percent is kind
ULTIMATUM_KIND_OFFER = 5  # a proposer offering at least this is kind
ULTIMATUM_KIND_FLOOR = 5  # a responder whose floor is at most this is kind
NEUTRAL_HALO = 0.5  # the halo before a seat's first meeting


def is_kind(subgame: str, side: int, move: int) -> bool:
    """Whether a move is kind. Side 0 is the first mover (or either DILEMMA player)."""
    if subgame == DILEMMA:
        return move == COOPERATE
    if subgame == TRUST:
        return move >= (TRUST_KIND_SEND if side == 0 else TRUST_KIND_PERCENT)
    if side == 0:
        return move >= ULTIMATUM_KIND_OFFER
    return move <= ULTIMATUM_KIND_FLOOR


def halo_at_least_half(kind: int, harsh: int) -> bool:
    """``halo >= 0.5`` in integers: kind / (kind + harsh) >= 1/2 ⟺ kind >= harsh (and the
    neutral 0.5 with no meetings counts as at least half)."""
    return kind >= harsh


def halo(kind: int, harsh: int) -> float:
    """kind / (kind + harsh); exactly 0.5 with no meetings."""
    n = kind + harsh
    return kind / n if n else NEUTRAL_HALO
