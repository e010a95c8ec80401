"""Ledger's numeric encoding for RL environments and policy seats (`envs/encoding.py`).

One observation per seat and round, from the seat's §12 observation only: the round, this
meeting (subgame, side), its own and its partner's public stats, and the last `HISTORY`
meetings of its own and of its partner's public history (each flagged when it was with the
other). Aliases, the board's notes and the memo are text and are left out. `features` reads
the table directly (cheap); `features_of_view` computes the same numbers from the observation
dict, which the tests compare.

Action = the move itself, 0..100 (`Discrete(101)`); the mask allows the meeting's legal range
(DILEMMA 0..1, TRUST 0..6 sent or 0..100 percent, ULTIMATUM 0..12). Notes and memos are free
text: not part of the action. Reward = each meeting's payoff; the rules score the median of
a seat's payoffs, which the final info's ``score`` carries.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cogleague.core.errors import IllegalAction
from cogleague.core.game import Action, Game, Turn
from cogleague.games.ledger.context import TurnContext
from cogleague.games.ledger.observation import HISTORY_WINDOW
from cogleague.games.ledger.subgames import DILEMMA, LEGAL, MAX_PAY, ROLES, SUBGAMES
from cogleague.games.ledger.table import Meeting, Table

if TYPE_CHECKING:
    import numpy as np

HISTORY = 4
assert HISTORY <= HISTORY_WINDOW
MAX_MOVE = max(hi for sides in LEGAL.values() for _, hi in sides)
MAX_MEETINGS = 28
TOTAL_SCALE = MAX_PAY * MAX_MEETINGS
STATS = ("median", "meetings", "kind", "harsh", "total", "halo")
ENTRY = ("revealed", "dilemma", "trust", "ultimatum", "side", "move", "pay", "partner_move",
         "partner_pay", "with_other")
FIELDS = (["round_fraction", "last_round", "dilemma", "trust", "ultimatum", "side",
           "max_move"]
          + [f"self_{s}" for s in STATS] + [f"partner_{s}" for s in STATS]
          + [f"own_{k}_{e}" for k in range(1, HISTORY + 1) for e in ENTRY]
          + [f"partners_{k}_{e}" for k in range(1, HISTORY + 1) for e in ENTRY])
_SUBGAME_INDEX = {g: i for i, g in enumerate(SUBGAMES)}
Entry = tuple[str, int, int, int, int, int, bool]
"""(subgame, side, move, pay, partner's move, partner's pay, with the other seat)."""


def _side(subgame: str, role: str) -> int:
    return 0 if role == ROLES[subgame][0] else 1  # DILEMMA: both EITHER, side 0


def _stats(median: float, meetings: int, kind: int, harsh: int, total: int,
           halo: float) -> list[float]:
    return [median / MAX_PAY, meetings / MAX_MEETINGS, kind / MAX_MEETINGS,
            harsh / MAX_MEETINGS, total / TOTAL_SCALE, halo]


_NO_ENTRY = [0.0] * len(ENTRY)
_ONE_HOT = {g: [float(g == h) for h in SUBGAMES] for g in SUBGAMES}


def _entries(entries: Sequence[Entry]) -> list[float]:
    out: list[float] = []
    for subgame, side, move, pay, p_move, p_pay, other in reversed(entries):
        out.append(1.0)
        out += _ONE_HOT[subgame]
        out += (float(side), move / LEGAL[subgame][side][1], pay / MAX_PAY,
                p_move / LEGAL[subgame][1 - side][1], p_pay / MAX_PAY, float(other))
    for _ in range(HISTORY - len(entries)):
        out += _NO_ENTRY
    return out


def _meeting_entry(m: Meeting, seat: int, other: int) -> Entry:
    if m.a == seat:
        return (m.subgame, 0, m.move_a, m.pay_a, m.move_b, m.pay_b, m.b == other)
    side = 0 if m.subgame == DILEMMA else 1
    return (m.subgame, side, m.move_b, m.pay_b, m.move_a, m.pay_a, m.a == other)


def _head(round_index: int, rounds: int, subgame: str, side: int, hi: int) -> list[float]:
    return [round_index / rounds, float(round_index == rounds - 1), *_ONE_HOT[subgame],
            float(side), hi / MAX_MOVE]


@functools.cache
def _mask(lo: int, hi: int) -> np.ndarray[Any, np.dtype[np.int8]]:
    """The legal moves lo..hi as a mask (numpy is imported here: the descriptor that names this
    encoding is loaded by hosts that never touch RL)."""
    import numpy as np

    return np.array([lo <= m <= hi for m in range(MAX_MOVE + 1)], dtype=np.int8)


class LedgerEncoding:
    name = "ledger.rl.v1"

    def __init__(self) -> None:
        self._cache: tuple[Table, int, list[list[float] | None]] | None = None

    def _stats_of(self, table: Table, round_index: int, seat: int) -> list[float]:
        """A seat's public stats, made once per table and round (every partner reads them)."""
        cached = self._cache
        if cached is None or cached[0] is not table or cached[1] != round_index:
            cached = self._cache = (table, round_index, [None] * table.seats)
        row = cached[2][seat]
        if row is None:
            row = cached[2][seat] = _stats(table.median(seat), len(table.pays[seat]),
                                           table.kind[seat], table.harsh[seat],
                                           table.total[seat], round(table.halo(seat), 4))
        return row

    def obs_size(self, game: Game) -> int:
        return len(FIELDS)

    def obs_fields(self, game: Game) -> list[str]:
        return list(FIELDS)

    def obs_bounds(self, game: Game) -> tuple[float, float]:
        return 0.0, 1.0

    def features(self, game: Game, turn: Turn) -> list[float]:
        ctx: TurnContext = turn.context
        table: Table = ctx.table
        seat, slot = ctx.seat, ctx.slot
        partner = slot.partner
        side = 0 if slot.subgame == DILEMMA else slot.side
        out = _head(ctx.round, ctx.rounds, slot.subgame, side, slot.hi)
        out += self._stats_of(table, ctx.round, seat)
        out += self._stats_of(table, ctx.round, partner)
        out += _entries([_meeting_entry(m, seat, partner)
                         for m in table.history[seat][-HISTORY:]])
        out += _entries([_meeting_entry(m, partner, seat)
                         for m in table.history[partner][-HISTORY:]])
        return out

    @staticmethod
    def features_of_view(view: Mapping[str, Any]) -> list[float]:
        """The same encoding from the §12 observation dict (the reference)."""
        meeting = view["meeting"]
        subgame = meeting["subgame"]
        out = _head(view["round"], view["rounds"], subgame, _side(subgame, meeting["role"]),
                    meeting["legal"]["max"])
        for st in (view["self"], view["partner"]):
            out += _stats(st["median"], st["meetings"], st["kind"], st["harsh"], st["total"],
                          st["halo"])

        def entries(rows: Sequence[Mapping[str, Any]], other: str) -> list[Entry]:
            return [(h["subgame"], _side(h["subgame"], h["role"]), h["move"], h["pay"],
                     h["partnerMove"], h["partnerPay"], h["partner"] == other)
                    for h in rows[-HISTORY:]]

        out += _entries(entries(view["history"], meeting["partner"]))
        out += _entries(entries(view["partner"]["history"], view["you"]))
        return out

    def num_actions(self, game: Game) -> int:
        return MAX_MOVE + 1

    def mask(self, game: Game, turn: Turn) -> np.ndarray[Any, np.dtype[np.int8]]:
        slot = turn.context.slot
        return _mask(slot.lo, slot.hi).copy()

    def decode(self, game: Game, turn: Turn, index: int) -> Action:
        slot = turn.context.slot
        if not slot.lo <= index <= slot.hi:
            raise IllegalAction(f"move must be {slot.lo}..{slot.hi} in this {slot.subgame} "
                                f"meeting (got {index})")
        return {"move": index}

    def encode(self, game: Game, turn: Turn, action: Mapping[str, Any]) -> int:
        return int(action["move"])

    def tally(self, game: Game) -> Sequence[float]:
        return game.table.total  # type: ignore[attr-defined, no-any-return]

    def score(self, results: Mapping[str, Any], seat: int) -> float:
        return float(results["scores"][seat])

    def signature(self, game: Game) -> dict[str, Any]:
        return {"encoding": self.name, "observation_size": len(FIELDS) + 1,
                "actions": MAX_MOVE + 1}


ENCODING = LedgerEncoding()
