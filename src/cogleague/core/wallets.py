"""An in-memory model of wallets and the ledger (spec §6), for tests and as the reference the
server's SQL store mirrors.

Credits live in four places: wallet balances, stakes held per table, and the house account;
deposits are the only source. Every operation keeps **Σ balances + Σ held + house = Σ deposits**
and no balance or held amount ever goes negative. Entries are idempotent by key: applying the
same entry again changes nothing; reusing a key for a different entry is an error.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from cogleague.core.settlement import (
    DEPOSIT,
    PAYOUT,
    RAKE,
    REFUND,
    STAKE_HOLD,
    STAKE_RELEASE,
    LedgerEntry,
)


class LedgerError(ValueError):
    """An entry cannot be applied. `code` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Wallets:
    def __init__(self) -> None:
        self.balances: dict[str, int] = {}
        self.held: dict[str, int] = {}  # table -> credits held for it (its pot once settling)
        self.stakes: dict[tuple[str, str], int] = {}  # (table, account) -> stake still held
        self.house = 0
        self.deposits = 0
        self.settled: set[str] = set()  # tables that paid out: no more holds, releases, refunds
        self.entries: list[LedgerEntry] = []
        self._by_key: dict[str, LedgerEntry] = {}

    def balance(self, account: str) -> int:
        return self.balances.get(account, 0)

    # -- applying ---------------------------------------------------------------------------
    def apply(self, entry: LedgerEntry) -> bool:
        """Apply one entry; False if this exact entry was applied before (nothing changes)."""
        seen = self._by_key.get(entry.key)
        if seen is not None:
            if seen != entry:
                raise LedgerError("bad_request", f"key {entry.key!r} was already used for "
                                                 "a different entry")
            return False
        self._effect(entry)
        self._by_key[entry.key] = entry
        self.entries.append(entry)
        return True

    def apply_all(self, entries: Iterable[LedgerEntry]) -> int:
        """Apply entries as one transaction: all of them, or (on an error) none. Returns how
        many were new."""
        trial = copy.deepcopy(self)
        applied = sum(trial.apply(e) for e in entries)
        self.__dict__.update(trial.__dict__)
        return applied

    def _effect(self, e: LedgerEntry) -> None:
        table = e.table or ""
        if e.kind == DEPOSIT:
            self.balances[e.account] = self.balance(e.account) + e.amount
            self.deposits += e.amount
            return
        if table in self.settled and e.kind != PAYOUT and e.kind != RAKE:
            raise LedgerError("wrong_state", f"table {table!r} is already settled")
        if e.kind == STAKE_HOLD:
            if self.balance(e.account) < e.amount:
                raise LedgerError("insufficient_funds",
                                  f"{e.account} has {self.balance(e.account)} credits, "
                                  f"the stake is {e.amount}")
            self.balances[e.account] = self.balance(e.account) - e.amount
            self.held[table] = self.held.get(table, 0) + e.amount
            self.stakes[(table, e.account)] = self.stakes.get((table, e.account), 0) + e.amount
        elif e.kind in (STAKE_RELEASE, REFUND):
            staked = self.stakes.get((table, e.account), 0)
            if staked < e.amount:
                raise LedgerError("wrong_state", f"{e.account} holds {staked} at {table!r}, "
                                                 f"cannot return {e.amount}")
            self.stakes[(table, e.account)] = staked - e.amount
            self.held[table] -= e.amount
            self.balances[e.account] = self.balance(e.account) + e.amount
        elif e.kind in (PAYOUT, RAKE):
            pot = self.held.get(table, 0)
            if pot < e.amount:
                raise LedgerError("wrong_state", f"table {table!r} holds {pot}, "
                                                 f"cannot pay {e.amount}")
            self.held[table] = pot - e.amount
            self.settled.add(table)
            if e.kind == RAKE:
                self.house += e.amount
            else:
                self.balances[e.account] = self.balance(e.account) + e.amount

    # -- the invariant ------------------------------------------------------------------------
    def conserved(self) -> bool:
        """Σ balances + Σ held + house = Σ deposits, and nothing negative."""
        if any(v < 0 for v in self.balances.values()) or any(v < 0 for v in self.held.values()):
            return False
        if any(v < 0 for v in self.stakes.values()):
            return False
        return sum(self.balances.values()) + sum(self.held.values()) + self.house \
            == self.deposits
