"""Conduct and the halo (spec §7): each meeting classes each seat as kind or harsh.

The halo is a display and observation statistic, never a score input.
"""

from __future__ import annotations

from cogleague.games.ledger.subgames import COOPERATE, DILEMMA, LEGAL, TRUST

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


KIND_BY_MOVE: dict[str, tuple[dict[int, bool], dict[int, bool]]] = {
    subgame: ({move: is_kind(subgame, 0, move) for move in range(lo_a, hi_a + 1)},
              {move: is_kind(subgame, 1, move) for move in range(lo_b, hi_b + 1)})
    for subgame, ((lo_a, hi_a), (lo_b, hi_b)) in LEGAL.items()}
"""`is_kind` for every legal move, by subgame and side: the table folds a meeting with two
lookups instead of two calls (a move outside it is decided by `is_kind` itself)."""


def kinds(subgame: str, move_a: int, move_b: int) -> tuple[bool, bool]:
    """Whether each side of a meeting was kind: two `KIND_BY_MOVE` lookups, `is_kind` for a
    move the table lacks (the table and the frames class every meeting by this)."""
    kind_a, kind_b = KIND_BY_MOVE[subgame]
    a = kind_a.get(move_a)
    b = kind_b.get(move_b)
    return (is_kind(subgame, 0, move_a) if a is None else a,
            is_kind(subgame, 1, move_b) if b is None else b)
