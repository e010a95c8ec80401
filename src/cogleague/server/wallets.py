"""Wallets in SQL: the append-only ledger of `games/dilemma/settlement.py`, made durable.

The entries (kinds, amounts, idempotency keys, the settlement split) come from the dilemma's
pure functions; this module only stores them, mirroring the in-memory reference model
`games.dilemma.wallets.Wallets`: the same refusals (`insufficient_funds`, returning more than is
held, paying more than the pot) and the same invariant,

    Σ balances + Σ held stakes + house = Σ deposits.

Each row stores the signed change to its account's balance, so a balance is one SUM, and what a
table still holds is minus the SUM of its rows. Every function takes an open transaction, so a
join plus its hold, or a whole settlement plus the table's state change, commit together.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, func, insert, select

from cogleague.core.settlement import (
    DEPOSIT,
    PAYOUT,
    RAKE,
    REFUND,
    STAKE_HOLD,
    STAKE_RELEASE,
    LedgerEntry,
)
from cogleague.server.errors import ApiError
from cogleague.server.store import accounts, now, wallet_entries

HOUSE_NAME = "house"
_SIGN = {DEPOSIT: 1, STAKE_HOLD: -1, STAKE_RELEASE: 1, PAYOUT: 1, RAKE: 1, REFUND: 1}


def ledger_name(account_id: int) -> str:
    """How an account is named in `LedgerEntry.account`."""
    return str(account_id)


def house_id(conn: Connection) -> int:
    return int(conn.execute(select(accounts.c.id).where(accounts.c.role == "house")).scalar_one())


def balance(conn: Connection, account_id: int) -> int:
    total = conn.execute(select(func.coalesce(func.sum(wallet_entries.c.amount), 0))
                         .where(wallet_entries.c.account_id == account_id)).scalar_one()
    return int(total)


def held_by(conn: Connection, table_id: str, account_id: int) -> int:
    """Stake `account_id` still has held at `table_id`."""
    total = conn.execute(select(func.coalesce(func.sum(wallet_entries.c.amount), 0)).where(
        wallet_entries.c.table_id == table_id, wallet_entries.c.account_id == account_id,
        wallet_entries.c.kind.in_((STAKE_HOLD, STAKE_RELEASE, REFUND)))).scalar_one()
    return -int(total)


def pot(conn: Connection, table_id: str) -> int:
    """Credits a table holds: stakes in, minus everything paid back out."""
    total = conn.execute(select(func.coalesce(func.sum(wallet_entries.c.amount), 0))
                         .where(wallet_entries.c.table_id == table_id)).scalar_one()
    return -int(total)


def holds_count(conn: Connection, table_id: str, account_id: int) -> int:
    """How many times `account_id` joined `table_id` with a stake (numbers the hold keys)."""
    return int(conn.execute(select(func.count()).select_from(wallet_entries).where(
        wallet_entries.c.table_id == table_id, wallet_entries.c.account_id == account_id,
        wallet_entries.c.kind == STAKE_HOLD)).scalar_one())


def _account_id(conn: Connection, name: str) -> int:
    return house_id(conn) if name == HOUSE_NAME else int(name)


def apply(conn: Connection, entry: LedgerEntry) -> bool:
    """Append one entry; False (nothing changes) if this exact entry was applied before."""
    account_id = _account_id(conn, entry.account)
    amount = _SIGN[entry.kind] * entry.amount
    # The account's row lock first: the same entry applied at once by another process waits
    # here, then finds it below (instead of both missing it and one failing on the key).
    conn.execute(select(accounts.c.id).where(accounts.c.id == account_id).with_for_update())
    seen = conn.execute(select(wallet_entries).where(
        wallet_entries.c.idempotency_key == entry.key)).mappings().first()
    if seen is not None:
        same = (seen["kind"], seen["account_id"], seen["amount"], seen["table_id"]) == (
            entry.kind, account_id, amount, entry.table)
        if not same:
            raise ApiError(409, "bad_request",
                           f"idempotency key {entry.key!r} was already used for another entry")
        return False
    if entry.kind == STAKE_HOLD and balance(conn, account_id) < entry.amount:
        raise ApiError(402, "insufficient_funds",
                       f"stake is {entry.amount} credits, the wallet holds "
                       f"{balance(conn, account_id)}")
    if entry.kind in (STAKE_RELEASE, REFUND):
        held = held_by(conn, entry.table or "", account_id)
        if held < entry.amount:
            raise ApiError(409, "wrong_state", f"account holds {held} at table {entry.table}, "
                                               f"cannot return {entry.amount}")
    if entry.kind in (PAYOUT, RAKE) and pot(conn, entry.table or "") < entry.amount:
        raise ApiError(409, "wrong_state", f"table {entry.table} holds less than {entry.amount}")
    conn.execute(insert(wallet_entries).values(
        account_id=account_id, kind=entry.kind, amount=amount, table_id=entry.table,
        idempotency_key=entry.key, created_at=now()))
    return True


def apply_all(conn: Connection, entries: Iterable[LedgerEntry]) -> int:
    """Apply entries inside the caller's transaction; returns how many were new."""
    return sum(apply(conn, e) for e in entries)


def statement(conn: Connection, account_id: int, limit: int = 200) -> dict[str, Any]:
    """`GET /wallet`: the balance and the latest entries, newest first."""
    rows = conn.execute(select(wallet_entries).where(wallet_entries.c.account_id == account_id)
                        .order_by(wallet_entries.c.id.desc()).limit(limit)).mappings().all()
    return {"balance": balance(conn, account_id),
            "entries": [{"id": r["id"], "kind": r["kind"], "amount": r["amount"],
                         "table": r["table_id"], "idempotency_key": r["idempotency_key"],
                         "created_at": r["created_at"]} for r in rows]}


def totals(conn: Connection) -> dict[str, int]:
    """The conservation terms, each computed independently from the rows."""
    def total(*where: Any) -> int:
        q = select(func.coalesce(func.sum(wallet_entries.c.amount), 0)).select_from(
            wallet_entries.join(accounts, accounts.c.id == wallet_entries.c.account_id))
        return int(conn.execute(q.where(*where)).scalar_one())

    deposits = total(wallet_entries.c.kind == DEPOSIT)
    players = total(accounts.c.role != "house")
    house = total(accounts.c.role == "house")
    held = -total(wallet_entries.c.table_id.is_not(None))
    return {"deposits": deposits, "balances": players, "house": house, "held": held}
