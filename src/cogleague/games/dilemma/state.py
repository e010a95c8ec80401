"""The match's mutable state: per pairing, per side, one entry per revealed round.

Histories are stored column-wise (plain lists per side) so that a baseline can read its own and
its opponent's choices without any copy, and a view is built only when someone asks for it.
Side 0 is the pairing's lower seat, side 1 the higher.
"""

from __future__ import annotations

from dataclasses import dataclass

from cogleague.games.dilemma.config import DilemmaConfig, Payoffs
from cogleague.games.dilemma.promises import is_promise
from cogleague.games.dilemma.schedule import Pairing, pairings


@dataclass(frozen=True, slots=True)
class Move:
    """One seat's recorded choice in one round of one pairing.

    `timeout` is set when the seat did not give a usable answer in time (it is then recorded as
    cooperate, always); `cause` is the runner's reason (``timeout``, ``illegal``, …)."""

    coop: bool
    message: str | None = None
    timeout: bool = False
    cause: str | None = None


class PairRecord:
    """Everything revealed so far in one pairing. Lists are indexed by round − 1."""

    __slots__ = ("broken", "coop", "index", "message", "pairing", "points", "promised",
                 "timeout")

    def __init__(self, index: int, pairing: Pairing) -> None:
        self.index = index
        self.pairing = pairing
        self.coop: tuple[list[bool], list[bool]] = ([], [])
        self.message: tuple[list[str | None], list[str | None]] = ([], [])
        self.promised: tuple[list[bool], list[bool]] = ([], [])
        self.timeout: tuple[list[bool], list[bool]] = ([], [])
        self.points = [0, 0]
        self.broken = [False, False]  # has this side broken a promise in this pairing?

    def side_of(self, seat: int) -> int:
        return 0 if seat == self.pairing[0] else 1

    def record(self, moves: tuple[Move, Move], pts: tuple[int, int]) -> None:
        for side in (0, 1):
            m = moves[side]
            promised = is_promise(m.message)
            self.coop[side].append(m.coop)
            self.message[side].append(m.message)
            self.promised[side].append(promised)
            self.timeout[side].append(m.timeout)
            self.points[side] += pts[side]
            if promised and not m.coop:
                self.broken[side] = True


class TableState:
    """Totals per seat and the records of every pairing."""

    def __init__(self, config: DilemmaConfig) -> None:
        n = config.seats
        self.config = config
        self.payoffs: Payoffs = config.payoffs
        self.pairs = [PairRecord(i, p) for i, p in enumerate(pairings(n))]
        self.by_seat: list[list[PairRecord]] = [
            [p for p in self.pairs if s in p.pairing] for s in range(n)]  # ascending opponent
        self.points = [0] * n
        self.cooperations = [0] * n
        self.choices = [0] * n
        self.timeouts = [0] * n
        self.promises_made = [0] * n
        self.promises_kept = [0] * n
        self.rounds_played = 0

    def tally(self, seat: int, move: Move, pts: int) -> None:
        """Add one revealed move to the seat's totals."""
        self.points[seat] += pts
        self.choices[seat] += 1
        if move.coop:
            self.cooperations[seat] += 1
        if move.timeout:
            self.timeouts[seat] += 1
        if is_promise(move.message):
            self.promises_made[seat] += 1
            if move.coop:
                self.promises_kept[seat] += 1

    def cooperation_rate(self, seat: int) -> float | None:
        """Cooperate choices / all revealed choices (None before any choice was revealed)."""
        if self.choices[seat] == 0:
            return None
        return self.cooperations[seat] / self.choices[seat]


class TurnContext:
    """What a turn is about, as in-process baselines read it (`Turn.context`).

    `mine` and `theirs` are the live lists of this pairing's revealed choices (True =
    cooperate), shared with the state, not copies: read them, never modify them.
    """

    __slots__ = ("first", "mine", "opponent", "opponent_promise", "pair", "payoffs", "promises",
                 "round", "seat", "side", "theirs", "turn_no")

    def __init__(self, seat: int, pair: PairRecord, side: int, round_no: int, first: bool,
                 opponent_promise: str | None, payoffs: Payoffs, promises: bool,
                 turn_no: int) -> None:
        self.seat = seat
        self.pair = pair
        self.side = side
        self.opponent = pair.pairing[1 - side]
        self.round = round_no
        self.first = first
        self.opponent_promise = opponent_promise
        self.mine = pair.coop[side]
        self.theirs = pair.coop[1 - side]
        self.payoffs = payoffs
        self.promises = promises
        self.turn_no = turn_no

    @property
    def opponent_broke_a_promise(self) -> bool:
        """Has the opponent, in this pairing, promised to cooperate and then defected?"""
        return self.pair.broken[1 - self.side]
