"""The schedule (spec §5): who meets whom, in which subgame, with which first mover.

Pairings come from the circle-method 1-factorization of eight positions (position 7 fixed),
relabelled once by a seeded permutation. Rounds come in passes of seven matchings (a complete
round robin each), so over r rounds no pair meets more than ceil(r/7) times — a structural
same-partner cap, not a filter — and no pair meets in two consecutive rounds. The whole schedule
is drawn before round 0 from the `schedule` stream, so an r-round schedule is a prefix of the
28-round one.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from cogleague.core import rng
from cogleague.games.ledger.subgames import (
    DILEMMA,
    DILEMMA_BELOW,
    DRAW_SCALE,
    ROLES,
    TRUST,
    TRUST_BELOW,
    ULTIMATUM,
    legal_range,
)

POSITIONS = 8
FIXED_POSITION = 7
PASS_LENGTH = 7  # matchings per pass: one complete round robin
PAIRS_PER_ROUND = POSITIONS // 2
RESHUFFLES = 16  # redraws of a pass order whose first matching repeats the previous last one


class Pairing(NamedTuple):
    """One meeting of a round: `a` is the first mover (the lower seat in DILEMMA)."""

    a: int
    b: int
    subgame: str
    first: int | None  # a, or None for DILEMMA (no first mover)

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "subgame": self.subgame, "first": self.first}


class Slot(NamedTuple):
    """One seat's place in one round: its meeting, partner, side and legal move range."""

    pair: int
    partner: int
    subgame: str
    side: int  # 0 = a (first mover), 1 = b
    role: str
    lo: int
    hi: int


def matching(k: int) -> list[tuple[int, int]]:
    """Matching k of the 1-factorization: (7, k), then ((k+i) mod 7, (k−i+7) mod 7), i = 1..3."""
    pairs = [(FIXED_POSITION, k)]
    for i in range(1, PAIRS_PER_ROUND):
        pairs.append(((k + i) % PASS_LENGTH, (k - i + PASS_LENGTH) % PASS_LENGTH))
    return pairs


MATCHINGS = [matching(k) for k in range(PASS_LENGTH)]


def draw_schedule(seed: int, rounds: int) -> list[list[Pairing]]:
    """The first `rounds` rounds of the seed's schedule, drawn in exactly the §5 order."""
    stream = rng.stream(f"ledger:{seed}:schedule")
    perm = rng.shuffle(stream, list(range(POSITIONS)))
    first_counts = [0] * POSITIONS
    previous: list[int] | None = None
    schedule: list[list[Pairing]] = []
    below, coin, pairings = rng.below, rng.coin, _PAIRINGS  # bound once: 56 draws a schedule
    for _ in range(math.ceil(rounds / PASS_LENGTH)):
        order = rng.shuffle(stream, list(range(PASS_LENGTH)))
        if previous is not None:
            for _ in range(RESHUFFLES):
                if order[0] != previous[-1]:
                    break
                order = rng.shuffle(stream, list(range(PASS_LENGTH)))
            if order[0] == previous[-1]:  # draw-free repair, probability 7^-17
                order[0], order[1] = order[1], order[0]
        previous = order
        for k in order[:rounds - len(schedule)]:
            round_pairs = []
            for x, y in MATCHINGS[k]:
                # the subgame, then (outside DILEMMA) the first mover: the member with fewer
                # first-mover assignments so far, a coin on a tie (drawn only on ties)
                u = below(stream, DRAW_SCALE)
                if u < DILEMMA_BELOW:
                    a, b = perm[x], perm[y]
                    round_pairs.append(pairings[a, b, DILEMMA] if a < b else
                                       pairings[b, a, DILEMMA])
                    continue
                subgame = TRUST if u < TRUST_BELOW else ULTIMATUM
                first, second = perm[x], perm[y]
                if first_counts[second] < first_counts[first] or (
                        first_counts[second] == first_counts[first] and coin(stream)):
                    first, second = second, first
                first_counts[first] += 1
                round_pairs.append(pairings[first, second, subgame])
            schedule.append(round_pairs)
    return schedule


# Every possible pairing, built once: pairings are immutable and schedules share them.
_PAIRINGS = {(a, b, g): Pairing(a, b, g, None if g == DILEMMA else a)
             for a in range(POSITIONS) for b in range(POSITIONS) for g in ROLES}


def _slot(pair: int, partner: int, subgame: str, side: int) -> Slot:
    lo, hi = legal_range(subgame, side)
    return Slot(pair, partner, subgame, side, ROLES[subgame][side], lo, hi)


# Every possible slot, built once: slots are immutable and a round only looks them up.
_SLOTS = {(pair, partner, subgame, side): _slot(pair, partner, subgame, side)
          for pair in range(PAIRS_PER_ROUND) for partner in range(POSITIONS)
          for subgame in ROLES for side in (0, 1)}


def slots(round_pairs: list[Pairing]) -> list[Slot]:
    """Each seat's slot in one round, by seat."""
    by_seat: list[Slot] = [None] * POSITIONS  # type: ignore[list-item]  # every seat is filled
    table = _SLOTS
    for index, (a, b, subgame, _) in enumerate(round_pairs):
        by_seat[a] = table[index, b, subgame, 0]
        by_seat[b] = table[index, a, subgame, 1]
    if None in by_seat:
        raise ValueError(f"round_pairs must pair all {POSITIONS} seats (got {round_pairs!r})")
    return by_seat
