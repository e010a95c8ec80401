"""The three subgames (spec §6): names, roles, legal moves, payoffs, and the rules seats read.

Every payoff is a whole number of coins in 0..14 and fair play pays 6 in all three games.
Moves are ints: DILEMMA 0/1, TRUST coins sent / return percent, ULTIMATUM offer / floor.
Side 0 is seat `a` of a meeting (the first mover), side 1 is seat `b`.
"""

from __future__ import annotations

from typing import Any

DILEMMA = "DILEMMA"
TRUST = "TRUST"
ULTIMATUM = "ULTIMATUM"
SUBGAMES = (DILEMMA, TRUST, ULTIMATUM)

# The draw (§6): u = below(DRAW_SCALE); u < 50 → DILEMMA, u < 80 → TRUST, else ULTIMATUM.
DRAW_SCALE = 100
DILEMMA_BELOW = 50
TRUST_BELOW = 80

EITHER = "EITHER"
INVESTOR = "INVESTOR"
TRUSTEE = "TRUSTEE"
PROPOSER = "PROPOSER"
RESPONDER = "RESPONDER"
ROLES: dict[str, tuple[str, str]] = {
    DILEMMA: (EITHER, EITHER),
    TRUST: (INVESTOR, TRUSTEE),
    ULTIMATUM: (PROPOSER, RESPONDER),
}

# DILEMMA: 0 = cooperate, 1 = defect; payoffs a / b indexed [move_a][move_b].
COOPERATE = 0
DEFECT = 1
DILEMMA_PAYOFFS: tuple[tuple[tuple[int, int], ...], ...] = (
    ((6, 6), (0, 10)),
    ((10, 0), (2, 2)),
)

# TRUST: the investor sends s, the trustee receives MULTIPLIER·s and returns a committed percent.
TRUST_INVESTOR_ENDOWMENT = 6
TRUST_TRUSTEE_ENDOWMENT = 2
TRUST_MULTIPLIER = 2
TRUST_MAX_PERCENT = 100

# ULTIMATUM: a 12-coin pie; the deal stands when offer >= the responder's committed floor.
ULTIMATUM_PIE = 12

MIN_PAY = 0
MAX_PAY = 14

LEGAL: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    DILEMMA: ((0, 1), (0, 1)),
    TRUST: ((0, TRUST_INVESTOR_ENDOWMENT), (0, TRUST_MAX_PERCENT)),
    ULTIMATUM: ((0, ULTIMATUM_PIE), (0, ULTIMATUM_PIE)),
}


def legal_range(subgame: str, side: int) -> tuple[int, int]:
    """(min, max) of a legal move for side 0 (a, first mover) or 1 (b, second mover)."""
    return LEGAL[subgame][side]


def trust_returned(sent: int, percent: int) -> int:
    """round(2s·p/100) half up, clamped to 0..2s (integer arithmetic, no float rounding)."""
    received = TRUST_MULTIPLIER * sent
    returned = (received * percent + TRUST_MAX_PERCENT // 2) // TRUST_MAX_PERCENT
    return min(max(returned, 0), received)


def payoff(subgame: str, move_a: int, move_b: int) -> tuple[int, int]:
    """Coins for a and b. Moves must already be legal."""
    if subgame == DILEMMA:
        return DILEMMA_PAYOFFS[move_a][move_b]
    if subgame == TRUST:
        returned = trust_returned(move_a, move_b)
        return (TRUST_INVESTOR_ENDOWMENT - move_a + returned,
                TRUST_TRUSTEE_ENDOWMENT + TRUST_MULTIPLIER * move_a - returned)
    if move_a >= move_b:
        return ULTIMATUM_PIE - move_a, move_a
    return 0, 0


def move_text(subgame: str, side: int, move: int) -> str:
    """`cooperate`, `defect`, `sent N`, `returned N%`, `offered N` or `floor N` (§12)."""
    if subgame == DILEMMA:
        return "cooperate" if move == COOPERATE else "defect"
    if subgame == TRUST:
        return f"sent {move}" if side == 0 else f"returned {move}%"
    return f"offered {move}" if side == 0 else f"floor {move}"


def rules(subgame: str) -> dict[str, Any]:
    """All §6 constants of one subgame, as the observation's `meeting.rules` carries them."""
    if subgame == DILEMMA:
        return {"cooperate": COOPERATE, "defect": DEFECT,
                "payoffs": {"cooperate/cooperate": [6, 6], "cooperate/defect": [0, 10],
                            "defect/cooperate": [10, 0], "defect/defect": [2, 2]}}
    if subgame == TRUST:
        return {"investorEndowment": TRUST_INVESTOR_ENDOWMENT,
                "trusteeEndowment": TRUST_TRUSTEE_ENDOWMENT, "multiplier": TRUST_MULTIPLIER,
                "maxSend": TRUST_INVESTOR_ENDOWMENT, "maxReturnPercent": TRUST_MAX_PERCENT}
    return {"pie": ULTIMATUM_PIE, "maxOffer": ULTIMATUM_PIE, "maxFloor": ULTIMATUM_PIE}


PAYOFF_TABLE: dict[str, tuple[tuple[tuple[int, int], ...], ...]] = {
    subgame: tuple(tuple(payoff(subgame, move_a, move_b) for move_b in range(lo_b, hi_b + 1))
                   for move_a in range(lo_a, hi_a + 1))
    for subgame, ((lo_a, hi_a), (lo_b, hi_b)) in LEGAL.items()}
"""`payoff` for every pair of legal moves, ``[subgame][move_a][move_b]`` (every range starts at
0): the game settles a validated meeting with a lookup instead of a call."""
assert all(lo == 0 for sides in LEGAL.values() for lo, _ in sides)  # the table's indexing
