"""Paid tables (dilemma spec §6; any game whose descriptor declares `PaidTables`), as pure
arithmetic and ledger entries. No I/O.

`split_pot` is the rule: pot = stake × seats; rake = floor(pot × rake_bps / 10000); the rest
is split in proportion to total points by the largest-remainder method (ties in remainder to the
lower seat); all-zero points split equally (remainder to the lower seats).

`settlement_entries` turns a finished table into the ledger entries that settle it, each with an
idempotency key derived from the table and seat, so applying a settlement twice changes nothing.
An `aborted` table is refunded in full and pays no rake, unless one seat's own fault aborted it
after play started: then `forfeit_entries` (the offender's stake is shared by the others).
The server's SQL store applies the same entries in one transaction; `wallets.Wallets` is the
in-memory model it mirrors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

BPS = 10_000  # basis points in a whole


DEPOSIT = "deposit"
STAKE_HOLD = "stake_hold"
STAKE_RELEASE = "stake_release"
PAYOUT = "payout"
RAKE = "rake"
REFUND = "refund"
KINDS = (DEPOSIT, STAKE_HOLD, STAKE_RELEASE, PAYOUT, RAKE, REFUND)

SETTLED_REASONS = ("complete", "deadline")  # the pot is split
REFUNDED_REASONS = ("aborted",)  # every stake goes back, no rake
HOUSE = "house"


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One append-only change. `table` is set for everything but deposits."""

    kind: str
    account: str
    amount: int
    key: str
    table: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)} (got {self.kind!r})")
        if isinstance(self.amount, bool) or not isinstance(self.amount, int) or self.amount < 0:
            raise ValueError(f"amount must be a non-negative integer (got {self.amount!r})")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "account": self.account, "amount": self.amount,
                "key": self.key, "table": self.table}


@dataclass(frozen=True, slots=True)
class Split:
    pot: int
    rake: int
    payouts: list[int]  # indexed by seat


def largest_remainder(total: int, weights: Sequence[int]) -> list[int]:
    """`total` whole units in proportion to non-negative `weights`, summing exactly to `total`.

    Floors first; leftover units go to the largest remainders, ties to the lower index. All-zero
    weights split equally, the leftover to the lower indices."""
    n = len(weights)
    if n == 0:
        return []
    if any(w < 0 for w in weights):
        raise ValueError(f"weights must be non-negative (got {list(weights)})")
    weight_sum = sum(weights)
    if weight_sum == 0:
        weights, weight_sum = [1] * n, n
    shares = [total * w // weight_sum for w in weights]
    remainders = [total * w % weight_sum for w in weights]  # exact, as numerators over weight_sum
    leftover = total - sum(shares)
    for i in sorted(range(n), key=lambda i: (-remainders[i], i))[:leftover]:
        shares[i] += 1
    return shares


def split_pot(stake: int, rake_bps: int, points: Sequence[int]) -> Split:
    """The settlement arithmetic for a table that played (`complete` or `deadline`). A rake
    outside 0..`BPS` or a negative stake is refused: it would pay out more than the pot."""
    if isinstance(rake_bps, bool) or not isinstance(rake_bps, int) or not 0 <= rake_bps <= BPS:
        raise ValueError(f"rake_bps must be an integer in 0..{BPS} (got {rake_bps!r})")
    if isinstance(stake, bool) or not isinstance(stake, int) or stake < 0:
        raise ValueError(f"stake must be an integer of 0 or more (got {stake!r})")
    pot = stake * len(points)
    rake = pot * rake_bps // BPS
    return Split(pot, rake, largest_remainder(pot - rake, points))


def settlement_entries(table: str, stake: int, rake_bps: int, points: Sequence[int],
                       accounts: Sequence[str], reason: str, house: str = HOUSE,
                       ) -> list[LedgerEntry]:
    """The entries that close a paid table, one per seat (zero amounts omitted) plus the rake.

    `accounts[seat]` is the account that staked for that seat; every seat staked `stake`."""
    if len(accounts) != len(points):
        raise ValueError(f"accounts must list one account per seat ({len(points)}, "
                         f"got {len(accounts)})")
    if stake == 0:
        return []
    if reason in REFUNDED_REASONS:
        return [LedgerEntry(REFUND, acct, stake, f"{table}:refund:{seat}", table)
                for seat, acct in enumerate(accounts)]
    if reason not in SETTLED_REASONS:
        raise ValueError(f"reason must be one of {', '.join(SETTLED_REASONS + REFUNDED_REASONS)}"
                         f" (got {reason!r})")
    split = split_pot(stake, rake_bps, points)
    entries = [LedgerEntry(PAYOUT, acct, amount, f"{table}:payout:{seat}", table)
               for seat, (acct, amount) in enumerate(zip(accounts, split.payouts, strict=True))
               if amount > 0]
    if split.rake > 0:
        entries.append(LedgerEntry(RAKE, house, split.rake, f"{table}:rake", table))
    return entries


def forfeit_entries(table: str, stake: int, accounts: Sequence[str], offender: int
                    ) -> list[LedgerEntry]:
    """The entries that close a paid table aborted by one seat's own fault after play started.

    The offender's stake is forfeited: every other seat gets its own stake back (`REFUND`)
    and an equal share of the forfeited stake (`PAYOUT`, the remainder to the lower seats);
    the offender gets nothing and no rake is taken. So causing an abort never pays better
    than playing on (a settled end pays every seat 0 or more), and the others never lose
    their stake to it. Refunds come first: once a table pays out, it refunds nothing more."""
    n = len(accounts)
    if not 0 <= offender < n:
        raise ValueError(f"offender must be a seat in 0..{n - 1} (got {offender!r})")
    if n < 2:
        raise ValueError(f"a forfeit needs at least 2 seats (got {n})")
    if stake == 0:
        return []
    others = [seat for seat in range(n) if seat != offender]
    entries = [LedgerEntry(REFUND, accounts[seat], stake, f"{table}:refund:{seat}", table)
               for seat in others]
    shares = largest_remainder(stake, [1] * len(others))
    entries += [LedgerEntry(PAYOUT, accounts[seat], share, f"{table}:forfeit:{seat}", table)
                for seat, share in zip(others, shares, strict=True) if share > 0]
    return entries


def deposit(account: str, amount: int, key: str) -> LedgerEntry:
    return LedgerEntry(DEPOSIT, account, amount, key)


def stake_hold(table: str, account: str, stake: int, join_no: int) -> LedgerEntry:
    """Holding the stake when `account` joins (its `join_no`-th join of this table)."""
    return LedgerEntry(STAKE_HOLD, account, stake, f"{table}:hold:{account}:{join_no}", table)


def stake_release(table: str, account: str, stake: int, join_no: int) -> LedgerEntry:
    """Giving the stake back when `account` leaves before the start."""
    return LedgerEntry(STAKE_RELEASE, account, stake, f"{table}:release:{account}:{join_no}",
                       table)
