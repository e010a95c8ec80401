"""What a seat observes (spec §12), as structured JSON. Seats appear by alias only.

Hidden from seats: policy names, this round's moves (decisions are simultaneous, so the record
holds resolved rounds only), other seats' memos, the future schedule and the RNG state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cogleague.games.ledger.board import MEMO_LIMIT, NOTE_LIMIT, SEAT_BOARD_WINDOW, note_target
from cogleague.games.ledger.scoring import STAT_DECIMALS
from cogleague.games.ledger.subgames import ROLES, move_text, rules
from cogleague.games.ledger.table import Meeting, Table

if TYPE_CHECKING:
    from cogleague.games.ledger.context import TurnContext

OBSERVATION_FORMAT = "ledger.observation.v1"
HISTORY_WINDOW = 8  # meetings shown per seat (own and partner's), oldest first


def stats(table: Table, seat: int) -> dict[str, Any]:
    """`{alias, median, meetings, kind, harsh, total, halo}` for one seat."""
    return {"alias": table.aliases[seat], "median": table.median(seat),
            "meetings": len(table.pays[seat]), "kind": table.kind[seat],
            "harsh": table.harsh[seat], "total": table.total[seat],
            "halo": round(table.halo(seat), STAT_DECIMALS)}


def history_entry(table: Table, seat: int, m: Meeting) -> dict[str, Any]:
    """One meeting from `seat`'s side."""
    side = 0 if m.a == seat else 1
    partner, move, pay, partner_move, partner_pay = (
        (m.b, m.move_a, m.pay_a, m.move_b, m.pay_b) if side == 0
        else (m.a, m.move_b, m.pay_b, m.move_a, m.pay_a))
    return {"round": m.round, "partner": table.aliases[partner], "subgame": m.subgame,
            "role": ROLES[m.subgame][side], "move": move,
            "moveText": move_text(m.subgame, side, move), "pay": pay,
            "partnerMove": partner_move, "partnerPay": partner_pay}


def history(table: Table, seat: int) -> list[dict[str, Any]]:
    return [history_entry(table, seat, m) for m in table.history[seat][-HISTORY_WINDOW:]]


def build_observation(ctx: TurnContext) -> dict[str, Any]:
    """The §12 observation for `ctx.seat` in round `ctx.round`, keys in the listed order."""
    table, seat, slot = ctx.table, ctx.seat, ctx.slot
    alias = table.aliases
    target = note_target(table.slots, seat, ctx.round)
    return {
        "format": OBSERVATION_FORMAT,
        "you": alias[seat],
        "round": ctx.round,
        "rounds": ctx.rounds,
        "self": stats(table, seat),
        "meeting": {"partner": alias[slot.partner], "subgame": slot.subgame, "role": slot.role,
                    "rules": rules(slot.subgame), "legal": {"min": slot.lo, "max": slot.hi}},
        "partner": {**stats(table, slot.partner), "history": history(table, slot.partner)},
        "table": [stats(table, s) for s in range(table.seats)],
        "pairings": [{"a": alias[p.a], "b": alias[p.b], "subgame": p.subgame}
                     for p in table.schedule[ctx.round]],
        "history": history(table, seat),
        "record": [{"round": m.round, "a": alias[m.a], "b": alias[m.b], "subgame": m.subgame,
                    "moveA": m.move_a, "moveB": m.move_b, "payA": m.pay_a, "payB": m.pay_b}
                   for m in table.record],
        "board": [{"round": n.round, "author": alias[n.author], "subject": alias[n.subject],
                   "text": n.text} for n in table.board[-SEAT_BOARD_WINDOW:]],
        "memo": table.memos[seat],
        "noteTarget": None if target is None else alias[target],
        "limits": {"note": NOTE_LIMIT, "memo": MEMO_LIMIT},
    }
