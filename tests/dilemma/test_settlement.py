"""Spec §6: settlement arithmetic (largest remainder, all-zero points, rake rounding, refunds on
abort) and the conservation invariant under random joins, leaves, settlements and aborts."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from cogleague.core.settlement import (
    LedgerEntry,
    deposit,
    forfeit_entries,
    largest_remainder,
    settlement_entries,
    split_pot,
    stake_hold,
    stake_release,
)
from cogleague.core.wallets import LedgerError, Wallets
from dilemma.support import play


def test_pot_rake_and_proportional_split() -> None:
    split = split_pot(100, 500, [30, 10, 10, 0])  # pot 400, rake 20, 380 by points
    assert (split.pot, split.rake) == (400, 20)
    assert split.payouts == [228, 76, 76, 0]


def test_rake_rounds_down() -> None:
    assert split_pot(33, 500, [1, 1, 1]).rake == 4  # 99 × 5 % = 4.95
    assert split_pot(1, 2000, [1, 1, 1]).rake == 0  # 3 × 20 % = 0.6
    assert split_pot(7, 0, [1, 2, 3]).rake == 0


def test_largest_remainder_with_ties_to_the_lower_seat() -> None:
    # 10 credits over 1:1:1 → 3.33 each; the one leftover goes to seat 0
    assert largest_remainder(10, [1, 1, 1]) == [4, 3, 3]
    # 11 over 1:1:1 → two leftovers, seats 0 and 1
    assert largest_remainder(11, [5, 5, 5]) == [4, 4, 3]
    # remainders 0.5, 0.25, 0.25 → seat 0 first, then the tie between 1 and 2 goes to 1
    assert largest_remainder(5, [2, 1, 1]) == [3, 1, 1]
    assert largest_remainder(6, [2, 1, 1]) == [3, 2, 1]
    # the largest remainder wins over a lower seat
    assert largest_remainder(10, [1, 2]) == [3, 7]


def test_all_zero_points_split_equally_with_the_remainder_to_lower_seats() -> None:
    assert split_pot(10, 500, [0, 0, 0, 0]).payouts == [10, 10, 9, 9]  # 40 − 2 = 38
    assert largest_remainder(5, [0, 0, 0]) == [2, 2, 1]


@given(total=st.integers(0, 10**9), weights=st.lists(st.integers(0, 10**6), min_size=1,
                                                      max_size=8))
def test_largest_remainder_sums_exactly_and_stays_within_one_of_the_exact_share(
        total: int, weights: list[int]) -> None:
    shares = largest_remainder(total, weights)
    assert sum(shares) == total
    weight_sum = sum(weights) or len(weights)
    for share, w in zip(shares, weights if sum(weights) else [1] * len(weights), strict=True):
        exact = Fraction(total * w, weight_sum)
        assert exact - 1 < share < exact + 1


@given(stake=st.integers(0, 10**9), rake_bps=st.integers(0, 2000),
       points=st.lists(st.integers(0, 50) | st.sampled_from([0, 0, 7]), min_size=3,
                       max_size=8))
def test_split_matches_the_rule_computed_with_exact_fractions(
        stake: int, rake_bps: int, points: list[int]) -> None:
    """An independent reading of spec §6: floors of the exact shares, then one more credit to
    each of the largest fractional parts, ties to the lower seat; all-zero points as equal."""
    pot = stake * len(points)
    rake = pot * rake_bps // 10_000
    weights = points if sum(points) else [1] * len(points)
    exact = [Fraction((pot - rake) * w, sum(weights)) for w in weights]
    floors = [int(x) for x in exact]
    leftover = pot - rake - sum(floors)
    order = sorted(range(len(points)), key=lambda s: (floors[s] - exact[s], s))
    expected = [f + (1 if s in order[:leftover] else 0) for s, f in enumerate(floors)]
    split = split_pot(stake, rake_bps, points)
    assert (split.pot, split.rake, split.payouts) == (pot, rake, expected)


def test_settlement_entries_for_complete_deadline_and_aborted() -> None:
    accounts = ["ann", "bob", "cy"]
    entries = settlement_entries("t1", 100, 500, [10, 0, 30], accounts, "complete")
    assert entries == [LedgerEntry("payout", "ann", 71, "t1:payout:0", "t1"),
                       LedgerEntry("payout", "cy", 214, "t1:payout:2", "t1"),
                       LedgerEntry("rake", "house", 15, "t1:rake", "t1")]
    assert settlement_entries("t1", 100, 500, [10, 0, 30], accounts, "deadline") == entries
    refunds = settlement_entries("t1", 100, 500, [10, 0, 30], accounts, "aborted")
    assert refunds == [LedgerEntry("refund", a, 100, f"t1:refund:{i}", "t1")
                       for i, a in enumerate(accounts)]
    assert settlement_entries("t1", 0, 500, [1, 2, 3], accounts, "complete") == []
    with pytest.raises(ValueError, match="reason must be one of"):
        settlement_entries("t1", 100, 500, [1, 2, 3], accounts, "error")
    with pytest.raises(ValueError, match="one account per seat"):
        settlement_entries("t1", 100, 500, [1, 2, 3], accounts[:2], "complete")


def test_a_forfeit_refunds_the_others_and_shares_the_offenders_stake() -> None:
    entries = forfeit_entries("t", 11, ["a", "b", "c"], 1)
    assert [(e.kind, e.account, e.amount) for e in entries] == [
        ("refund", "a", 11), ("refund", "c", 11), ("payout", "a", 6), ("payout", "c", 5)]
    assert len({e.key for e in entries}) == 4 and forfeit_entries("t", 0, ["a", "b"], 0) == []
    with pytest.raises(ValueError, match=r"offender must be a seat in 0\.\.1"):
        forfeit_entries("t", 5, ["a", "b"], 2)


def test_results_report_payouts_of_a_paid_table() -> None:
    _, outcome = play(["always_defect", "tit_for_tat", "always_cooperate"], stake=50,
                      rake_bps=1000, rounds_total=3)
    r = outcome.results
    assert (r["stake"], r["pot"], r["rake"]) == (50, 150, 15)
    expected = split_pot(50, 1000, r["scores"]).payouts
    assert [s["payout"] for s in r["seats"]] == expected and sum(expected) == 135
    g2, _ = play(["pavlov"] * 3, stake=50)
    g3 = type(g2)(g2.config, g2.policy_names)
    g3.start()
    g3.stop("aborted")
    assert [s["payout"] for s in g3.results()["seats"]] == [50, 50, 50]
    assert g3.results()["rake"] == 0


# -- wallets -----------------------------------------------------------------------------------


def test_wallet_entries_are_idempotent_and_guarded() -> None:
    w = Wallets()
    assert w.apply(deposit("ann", 100, "d1")) is True
    assert w.apply(deposit("ann", 100, "d1")) is False  # same key: nothing changes
    assert w.balance("ann") == 100
    with pytest.raises(LedgerError) as info:
        w.apply(deposit("ann", 5, "d1"))
    assert info.value.code == "bad_request"
    with pytest.raises(LedgerError) as info:
        w.apply(stake_hold("t", "ann", 101, 1))
    assert info.value.code == "insufficient_funds"
    assert w.balance("ann") == 100 and w.conserved()
    w.apply(stake_hold("t", "ann", 60, 1))
    assert (w.balance("ann"), w.held["t"]) == (40, 60)
    w.apply(stake_release("t", "ann", 60, 1))
    with pytest.raises(LedgerError):
        w.apply(stake_release("t", "ann", 60, 2))  # nothing held any more
    assert w.balance("ann") == 100 and w.conserved()


def test_a_settlement_is_all_or_nothing() -> None:
    w = Wallets()
    for a in ("ann", "bob"):
        w.apply(deposit(a, 100, f"d-{a}"))
        w.apply(stake_hold("t", a, 100, 1))
    entries = settlement_entries("t", 100, 0, [1, 1], ["ann", "bob"], "complete")
    broken = [*entries, LedgerEntry("payout", "cy", 1, "t:payout:9", "t")]  # over the pot
    with pytest.raises(LedgerError):
        w.apply_all(broken)
    assert (w.balance("ann"), w.balance("bob"), w.held["t"]) == (0, 0, 200)
    assert w.apply_all(entries) == 2
    assert w.apply_all(entries) == 0  # replaying the settlement changes nothing
    assert (w.balance("ann"), w.balance("bob"), w.held["t"]) == (100, 100, 0)


ACCOUNTS = ["ann", "bob", "cy", "dee", "eve"]
TABLES = ["t0", "t1", "t2"]


class LedgerMachine(RuleBasedStateMachine):
    """Random deposits, joins, leaves, settlements (complete/deadline) and aborts."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Wallets()
        self.n = 0
        self.stakes = {t: 10 * (i + 1) for i, t in enumerate(TABLES)}
        self.seated: dict[str, list[str]] = {t: [] for t in TABLES}
        self.joins: dict[tuple[str, str], int] = {}
        self.closed: set[str] = set()

    def _key(self) -> str:
        self.n += 1
        return f"k{self.n}"

    @rule(account=st.sampled_from(ACCOUNTS), amount=st.integers(0, 80))
    def deposit(self, account: str, amount: int) -> None:
        self.w.apply(deposit(account, amount, self._key()))

    @rule(table=st.sampled_from(TABLES), account=st.sampled_from(ACCOUNTS))
    def join(self, table: str, account: str) -> None:
        if table in self.closed or account in self.seated[table]:
            return
        n = self.joins.get((table, account), 0) + 1
        entry = stake_hold(table, account, self.stakes[table], n)
        before = self.w.balance(account)
        try:
            self.w.apply(entry)
        except LedgerError as exc:
            assert exc.code == "insufficient_funds" and before < self.stakes[table]
            assert self.w.balance(account) == before
            return
        self.joins[(table, account)] = n
        self.seated[table].append(account)

    @rule(table=st.sampled_from(TABLES), data=st.data())
    def leave(self, table: str, data: st.DataObject) -> None:
        if table in self.closed or not self.seated[table]:
            return
        account = data.draw(st.sampled_from(self.seated[table]))
        self.w.apply(stake_release(table, account, self.stakes[table],
                                   self.joins[(table, account)]))
        self.seated[table].remove(account)

    @precondition(lambda self: any(len(self.seated[t]) >= 3 and t not in self.closed
                                   for t in TABLES))
    @rule(data=st.data(), rake_bps=st.integers(0, 2000),
          reason=st.sampled_from(["complete", "deadline", "aborted", "forfeit"]))
    def close(self, data: st.DataObject, rake_bps: int, reason: str) -> None:
        table = data.draw(st.sampled_from([t for t in TABLES if len(self.seated[t]) >= 3
                                           and t not in self.closed]))
        seats = self.seated[table]
        points = data.draw(st.lists(st.integers(0, 500), min_size=len(seats),
                                    max_size=len(seats)))
        stake = self.stakes[table]
        if reason == "forfeit":  # one seat's own fault aborted the table after play started
            offender = data.draw(st.integers(0, len(seats) - 1))
            entries = forfeit_entries(table, stake, seats, offender)
        else:
            entries = settlement_entries(table, stake, rake_bps, points, seats, reason)
        house_before = self.w.house
        before = {a: self.w.balance(a) for a in seats}
        self.w.apply_all(entries)
        assert self.w.apply_all(entries) == 0  # idempotent
        assert self.w.held[table] == 0
        pot = stake * len(seats)
        rake = 0 if reason in ("aborted", "forfeit") else pot * rake_bps // 10_000
        assert self.w.house - house_before == rake
        if reason == "forfeit":  # the offender gets nothing back; the others share its stake
            gains = [self.w.balance(a) - before[a] for a in seats]
            assert gains[offender] == 0 and sum(gains) == pot
            others = [g for i, g in enumerate(gains) if i != offender]
            assert max(others) - min(others) <= 1 and min(others) >= stake
        self.closed.add(table)

    @invariant()
    def conservation(self) -> None:
        w = self.w
        assert sum(w.balances.values()) + sum(w.held.values()) + w.house == w.deposits
        assert all(v >= 0 for v in w.balances.values())
        assert w.conserved()


TestLedger = LedgerMachine.TestCase
TestLedger.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
