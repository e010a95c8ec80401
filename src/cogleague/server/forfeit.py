"""Who caused a table's abort, and what a paid table pays then (docs/server.md, "Forfeits").

A table is aborted by an operator, by a rule (nobody came, the start timed out) or by its own
unrecoverable fault. When that fault is one seat's own doing after play started — today: text
in the seat's accepted move that the database could not store (`logbatch.LogWriteFault`),
should any slip past the boundary check (`textguard`) — the seat forfeits: its stake is shared
by the other seats (`core.settlement.forfeit_entries`) instead of every stake being refunded,
so a losing seat cannot void the pot by breaking its own table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogleague.core.settlement import LedgerEntry, forfeit_entries, settlement_entries
from cogleague.core.text import bad_text
from cogleague.server.channels import SeatChannel
from cogleague.server.logbatch import LogWriteFault
from cogleague.server.wallets import ledger_name


class SeatCausedAbort(RuntimeError):
    """The table cannot go on because of what one seat sent (its own accepted move)."""

    def __init__(self, seat: int, field: str, fault: LogWriteFault) -> None:
        super().__init__(f"seat {seat} caused the abort: its move's {field} could not be "
                         f"stored ({fault})")
        self.seat = seat
        self.field = field
        self.fault = fault


def blame(fault: LogWriteFault, entry: dict[str, Any], channels: Sequence[SeatChannel]
          ) -> LogWriteFault | SeatCausedAbort:
    """A failed log row's cause: `SeatCausedAbort` when a seat's own accepted move in it holds
    the text that cannot be stored, else the fault itself (the game's or the database's)."""
    decisions = entry.get("decisions") or {}
    for turn_id, decision in decisions.items():
        if not isinstance(decision, dict) or decision.get("source") != "seat":
            continue
        found = bad_text(decision.get("action"), "move")
        if found is None:
            continue
        for channel in channels:
            if turn_id in channel.answered:
                return SeatCausedAbort(channel.seat, found[0], fault)
    return fault


def public_detail(error: BaseException | None) -> str:
    """What an aborted table's public results say of the runner error that ended it: a seat's
    doing in full (it names the seat and the field), anything else by its type only — its
    text is the server's (a path, a host, a key), and the traceback is in the log."""
    if isinstance(error, SeatCausedAbort):
        return f"error: {error}"
    return f"error: the table failed ({type(error).__name__})"


def offender(error: BaseException | None) -> int | None:
    """The seat that forfeits for this runner error, if any."""
    return error.seat if isinstance(error, SeatCausedAbort) else None


def abort_entries(table_id: str, stake: int, seat_list: Sequence[dict[str, Any]],
                  culprit: int | None) -> list[LedgerEntry]:
    """The ledger entries of an abort: every stake refunded, or, when one seat of a table
    where every seat staked caused it, that seat's forfeit."""
    paying = [s for s in seat_list if s["account_id"] is not None]
    accounts = [ledger_name(s["account_id"]) for s in paying]
    seats = [s["seat"] for s in paying]
    if culprit is not None and culprit in seats and len(paying) == len(seat_list) >= 2:
        return forfeit_entries(table_id, stake, accounts, seats.index(culprit))
    return settlement_entries(table_id, stake, 0, [0] * len(paying), accounts, "aborted")
