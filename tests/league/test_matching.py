"""The matcher's choice of one table (pure): the least-played entrant is never starved.

The fair-share ceiling keeps entrants within one table of the least-played; with the collusion
guard it could leave a least-played entrant no peer at all (its only peer within one table on
its own account), while the others, matched whenever it was busy, ran further ahead for ever.
A table anchored on a least-played entrant may take the seats it needs from further ahead."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from cogleague.league.matching import FAIR_SHARE_SLACK, Candidate, order, pick, seated


def _valid(table: tuple[Candidate, ...]) -> bool:
    accounts = [c.account for c in table if not c.baseline]
    return (all(c.free > 0 for c in table) and len(accounts) == len(set(accounts))
            and any(not c.baseline for c in table))


def test_a_least_played_entrant_whose_peers_are_its_own_account_gets_a_table() -> None:
    r1, r4 = Candidate(1, 10, 2), Candidate(4, 10, 2)  # alice's two, the least-played
    r2, r3 = Candidate(2, 20, 4), Candidate(3, 30, 4)  # two tables ahead
    table = pick([r1, r2, r3, r4], 3, same_account=False)
    assert table is not None
    assert {c.id for c in table} in ({1, 2, 3}, {4, 2, 3})


def test_the_least_played_catches_up_while_the_others_play_when_it_is_busy() -> None:
    """The season as ticks: r1 plays another game every other tick (busy there), and once the
    wait-lift stops waiting for it, the others' tables go on without it."""
    cands = order([Candidate(1, 10, 2), Candidate(4, 10, 3), Candidate(2, 20, 4),
             Candidate(3, 30, 4)])
    seen = {c.id: [c.played] for c in cands}
    for tick in range(40):
        for c in cands:
            c.free = 0 if c.id == 1 and tick % 2 else 1
        table = pick([c for c in cands if c.free > 0], 3, same_account=False)
        if table is not None:
            seated(cands, {c.id for c in table})
        for c in cands:
            seen[c.id].append(c.played)
    played = {c.id: c.played for c in cands}
    assert played[1] >= 12, (played, seen[1])
    # every table seats one of alice's two (the guard) beside r2 and r3: they share it evenly
    assert abs(played[1] - played[4]) <= 2, played


accounts_ = st.integers(0, 3)
candidates_ = st.lists(st.tuples(accounts_, st.integers(0, 6), st.integers(0, 2),
                                 st.floats(0.5, 25.0 / 3.0), st.booleans()),
                       min_size=1, max_size=8)


def test_a_busy_least_played_entrant_is_not_left_further_behind_by_a_lifted_table() -> None:
    """r1 and r4 trail by two tables; r1 is busy. A table anchored on r4 could be filled only
    from further ahead: it waits for r1 (the server lifts the wait after `fill_after_s`)
    instead of taking r2 and r3 three tables past r1. Once r1 is free the two trailing
    entrants' table takes the rest from further ahead, and nobody is more than two apart."""
    r1, r4 = Candidate(1, 10, 3, free=0), Candidate(4, 40, 3)
    r2, r3 = Candidate(2, 20, 5), Candidate(3, 30, 5)
    assert pick([r1, r2, r3, r4], 3, same_account=False) is None
    r1.free = 1
    table = pick([r1, r2, r3, r4], 3, same_account=False)
    assert table is not None and {1, 4} <= {c.id for c in table}


@given(candidates_, st.integers(2, 4))
def test_whenever_a_table_with_a_least_played_entrant_exists_one_is_formed(
        rows: list[tuple[int, int, int, float, bool]], seats: int) -> None:
    cands = [Candidate(i, a, p, s, f, b) for i, (a, p, f, s, b) in enumerate(rows)]
    entrants = [c for c in cands if not c.baseline]
    least = min((c.played for c in entrants), default=0)
    ceiling = least + FAIR_SHARE_SLACK
    # while a least-played entrant is busy, only tables within the fair-share ceiling count
    waits = any(c.played == least and c.free <= 0 for c in entrants)
    possible = any(_valid(t) and any(not c.baseline and c.played == least for c in t)
                   and not (waits and any(not c.baseline and c.played > ceiling for c in t))
                   for t in combinations(cands, seats))
    table = pick(cands, seats, same_account=False)
    if table is not None:
        assert len({c.id for c in table}) == seats and _valid(tuple(table))
    if possible:
        assert table is not None
        assert any(not c.baseline and c.played == least for c in table)


@given(candidates_, st.integers(2, 4), st.booleans())
def test_nobody_more_than_one_table_ahead_of_the_least_played_is_seated_but_to_fill_its_table(
        rows: list[tuple[int, int, int, float, bool]], seats: int, same_account: bool) -> None:
    """The fair-share ceiling counts busy entrants: an entrant more than `FAIR_SHARE_SLACK`
    tables ahead of the least-played (free or not) sits only at a table anchored on a free
    least-played entrant; baselines are exempt, and no table is of baselines alone."""
    cands = [Candidate(i, a, p, s, f, b) for i, (a, p, f, s, b) in enumerate(rows)]
    least = min((c.played for c in cands if not c.baseline), default=0)
    table = pick(cands, seats, same_account)
    if table is None:
        return
    assert not table[0].baseline and all(c.free > 0 for c in table)
    ahead = [c for c in table if not c.baseline and c.played > least + FAIR_SHARE_SLACK]
    if ahead:
        assert table[0].played == least, (table, least)
        assert all(c.free > 0 for c in cands if not c.baseline and c.played == least)


def test_a_lifted_table_takes_only_the_seats_the_ceiling_cannot_fill() -> None:
    """Ledger's eight seats: alice's r4 (least-played) anchors, her r1 may not join, p-ledger
    and the five baselines (exempt from the ceiling) fill seven. One seat needs an entrant
    from over the ceiling, so one of r2 and r3 gets it, not both: seating both whenever an
    alice agent anchored ran them three tables ahead in a 30-table season."""
    r4, r1 = Candidate(4, 10, 2), Candidate(1, 10, 3)
    r2, r3 = Candidate(2, 20, 4), Candidate(3, 30, 4)
    policy = Candidate(5, 40, 3)
    baselines = [Candidate(10 + i, 0, 8, free=6, baseline=True) for i in range(5)]
    table = pick([r4, r1, r2, r3, policy, *baselines], 8, same_account=False)
    assert table is not None
    ids = {c.id for c in table}
    assert 4 in ids and 1 not in ids and 5 in ids and {b.id for b in baselines} <= ids, ids
    assert len(ids & {2, 3}) == 1, ids
