"""The match's mutable state: per pairing, per side, one entry per revealed round.

Histories are stored column-wise (plain lists per side) so that a baseline can read its own and
its opponent's choices without any copy, and a view is built only when someone asks for it.
Side 0 is the pairing's lower seat, side 1 the higher.
"""

from __future__ import annotations

from typing import Any

from cogleague.core.errors import GameStateError
from cogleague.games.dilemma.config import DilemmaConfig, Payoffs
from cogleague.games.dilemma.promises import is_promise
from cogleague.games.dilemma.schedule import Pairing, pairings


class Move:
    """One seat's recorded choice in one round of one pairing (treat as immutable).

    `timeout` is set when the seat did not give a usable answer in time (it is then recorded as
    cooperate, always); `cause` is the runner's reason (``timeout``, ``illegal``, …).
    A plain slotted class rather than a frozen dataclass: it is built on the hot path."""

    __slots__ = ("cause", "coop", "message", "plain", "promised", "timeout")

    def __init__(self, coop: bool, message: str | None = None, timeout: bool = False,
                 cause: str | None = None) -> None:
        self.coop = coop
        self.message = message
        self.timeout = timeout
        self.cause = cause
        self.promised = is_promise(message)
        self.plain = message is None and not timeout  # nothing to note beyond the choice

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and (self.coop, self.message, self.timeout, self.cause) \
            == (other.coop, other.message, other.timeout, other.cause)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"Move(coop={self.coop}, message={self.message!r}, timeout={self.timeout}, "
                f"cause={self.cause!r})")


SILENT_COOPERATE = Move(True)  # the two moves of the hot path, shared
SILENT_DEFECT = Move(False)


class PairRecord:
    """Everything revealed so far in one pairing, per side (0 = lower seat, 1 = higher).

    `coop[side]` lists every revealed choice (index = round − 1), `totals[side]` the pairing's
    points after each round (same index). Moves that carried a message or were timeouts are
    also kept whole in `notes[side]` (by the same index); plain moves are not, which keeps the
    hot path to appends per round.
    """

    __slots__ = ("broken", "coop", "current", "index", "kept_rows", "notes", "pairing", "points",
                 "totals")

    def __init__(self, index: int, pairing: Pairing) -> None:
        self.index = index
        self.pairing = pairing
        self.coop: tuple[list[bool], list[bool]] = ([], [])
        self.notes: tuple[dict[int, Move], dict[int, Move]] = ({}, {})
        self.points = [0, 0]
        self.totals: tuple[list[int], list[int]] = ([], [])  # `points` after each round
        self.broken = [False, False]  # has this side broken a promise in this pairing?
        self.current: list[Move | None] = [None, None]  # this round's sealed moves, per side
        # Per side, the view rows of the rounds revealed so far (`views.history` extends them
        # and hands out copies): a revealed round never changes, so its row is built once.
        self.kept_rows: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])

    def clear(self) -> None:
        """Back to no round revealed, in place: the table's turn contexts and step slots hold
        these very lists (`TableState.restart`)."""
        for side in (0, 1):
            self.coop[side].clear()
            self.notes[side].clear()
            self.totals[side].clear()
            self.kept_rows[side].clear()
            self.points[side] = 0
            self.broken[side] = False
            self.current[side] = None

    def side_of(self, seat: int) -> int:
        return 0 if seat == self.pairing[0] else 1

    def move(self, side: int, i: int) -> Move:
        """The revealed move of `side` in round i + 1."""
        noted = self.notes[side].get(i)
        if noted is not None:
            return noted
        return SILENT_COOPERATE if self.coop[side][i] else SILENT_DEFECT


class TableState:
    """Totals per seat and the records of every pairing."""

    def __init__(self, config: DilemmaConfig) -> None:
        n = config.seats
        self.config = config
        self.payoffs: Payoffs = config.payoffs
        self.pairs = [PairRecord(i, p) for i, p in enumerate(pairings(n))]
        self.by_seat: list[list[PairRecord]] = [
            [p for p in self.pairs if s in p.pairing] for s in range(n)]  # ascending opponent
        self._clear_counts(n)

    def _clear_counts(self, n: int) -> None:
        self.points = [0] * n
        self.timeouts = [0] * n
        self.promises_made = [0] * n
        self.promises_kept = [0] * n
        self.timeout_rounds: set[int] = set()  # indices (round − 1) of rounds with a timeout
        self.rounds_played = 0
        self.round = 0  # the current (or last) round, 1-based; 0 before the first
        self.live: object = None  # the open step's shape, whose turns are pending (`live`)

    def restart(self, config: DilemmaConfig) -> None:
        """The state of a new match of the same size (`DilemmaGame.restart`): every record
        cleared in place, the pairings and their order kept."""
        assert config.seats == self.config.seats
        self.config = config
        self.payoffs = config.payoffs
        for rec in self.pairs:
            rec.clear()
        self._clear_counts(config.seats)

    def reveal_round(self, pay: tuple[tuple[tuple[int, int], ...], ...]) -> None:
        """Reveal the round: every pairing's two sealed moves (`current`) are paid by `pay`
        (indexed [a cooperates][b cooperates]), recorded and added to both seats' totals."""
        points, note = self.points, self._note
        for rec in self.pairs:
            ma, mb = rec.current
            assert ma is not None and mb is not None
            ca, cb = ma.coop, mb.coop
            pa, pb = pay[ca][cb]
            coop_a, coop_b = rec.coop
            if not ma.plain:
                note(rec, 0, rec.pairing[0], len(coop_a), ma)
            if not mb.plain:
                note(rec, 1, rec.pairing[1], len(coop_b), mb)
            coop_a.append(ca)
            coop_b.append(cb)
            pair_points = rec.points
            pair_points[0] = ta = pair_points[0] + pa
            pair_points[1] = tb = pair_points[1] + pb
            totals_a, totals_b = rec.totals
            totals_a.append(ta)
            totals_b.append(tb)
            a, b = rec.pairing
            points[a] += pa
            points[b] += pb
        self.rounds_played += 1

    def points_after(self, i: int) -> list[int]:
        """Every seat's total after round i + 1 (the sum of its pairings' totals then)."""
        return [sum(rec.totals[rec.side_of(seat)][i] for rec in recs)
                for seat, recs in enumerate(self.by_seat)]

    def _note(self, rec: PairRecord, side: int, seat: int, i: int, m: Move) -> None:
        rec.notes[side][i] = m
        if m.timeout:
            self.timeouts[seat] += 1
            self.timeout_rounds.add(i)
        if m.promised:
            self.promises_made[seat] += 1
            if m.coop:
                self.promises_kept[seat] += 1
            else:
                rec.broken[side] = True

    def choices(self, seat: int) -> int:
        """Revealed choices of a seat: one per opponent per round played."""
        return self.rounds_played * (len(self.by_seat[seat]))

    def cooperations(self, seat: int) -> int:
        """Cooperate choices of a seat, counted from the histories (not on every reveal)."""
        return sum(sum(rec.coop[rec.side_of(seat)]) for rec in self.by_seat[seat])

    def cooperation_rate(self, seat: int) -> float | None:
        """Cooperate choices / all revealed choices (None before any choice was revealed)."""
        choices = self.choices(seat)
        return None if choices == 0 else self.cooperations(seat) / choices


class TurnContext:
    """One seat's live window onto one pairing, as in-process baselines read it (`Turn.context`).

    A table makes one per (round parity, step, pairing, side) up front and reuses it every such
    round: everything it shows is read from the state *now* — `mine` and `theirs` are the live
    lists of this pairing's revealed choices (True = cooperate), `round` and `opponent_promise`
    the current ones. So a turn's view and prompt can only be built while the turn is pending
    (`live`; the runner and the server read them then, and `Turn` caches them); asking later
    raises `GameStateError` rather than show a later state. Never modify the lists.
    """

    __slots__ = ("audience", "first", "mine", "opponent", "pair", "seat", "shape", "side",
                 "table", "theirs", "turn_no")

    def __init__(self, table: TableState, seat: int, pair: PairRecord, side: int, first: bool,
                 turn_no: int, shape: object) -> None:
        self.table = table
        self.seat = seat
        self.pair = pair
        self.side = side
        self.opponent = pair.pairing[1 - side]
        self.first = first  # does this seat move first in this pairing this round?
        self.turn_no = turn_no  # ordinal of this turn among the seat's turns of the round
        self.mine = pair.coop[side]
        self.theirs = pair.coop[1 - side]
        # the shape of the table's step this context belongs to: a table's steps have
        # distinct shapes, and a shape refers to no table, so a finished table is freed as
        # soon as it is dropped (no reference cycle for the collector)
        self.shape = shape
        self.audience = (seat,)  # of this seat's private events, made once

    @property
    def live(self) -> bool:
        """Is a turn of this context pending? (The table's open step is this context's: one
        assignment per step opens or closes all of its contexts.)"""
        return self.table.live is self.shape

    @property
    def round(self) -> int:
        return self.table.round

    @property
    def opponent_promise(self) -> str | None:
        """The first mover's message this round, when this seat moves second."""
        if self.first:
            return None
        opening = self.pair.current[1 - self.side]
        return None if opening is None else opening.message

    @property
    def payoffs(self) -> Payoffs:
        return self.table.payoffs

    @property
    def promises(self) -> bool:
        """Are messages allowed at this table?"""
        return self.table.config.promises

    @property
    def opponent_broke_a_promise(self) -> bool:
        """Has the opponent, in this pairing, promised to cooperate and then defected?"""
        return self.pair.broken[1 - self.side]

    def view(self) -> dict[str, Any]:
        from cogleague.games.dilemma.views import visible_state

        if not self.live:
            raise GameStateError(f"seat {self.seat}'s turn against seat {self.opponent} is not "
                                 "pending: read a turn's view while it is pending")
        return visible_state(self.table, self)

    def prompt(self, view: dict[str, Any] | None = None) -> str:
        """The view rendered for language models (the turn passes its cached view)."""
        from cogleague.games.dilemma.views import prompt_text

        return prompt_text(view if view is not None else self.view())
