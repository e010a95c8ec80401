"""Balanced rotation: seat positions, appearances, pair meetings, duplicates, prefix stability."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core.errors import ConfigError
from cogleague.league.episodes import EpisodeSpec, SeatRef
from cogleague.league.seating import balanced


def names(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 9), st.integers(1, 8), st.integers(1, 120))
def test_every_policy_takes_every_seat_within_one_per_copy(n: int, seats: int,
                                                           episodes: int) -> None:
    schedule = balanced(names(n), seats, episodes)
    assert len(schedule) == episodes
    per_seat = Counter((p, j) for s in schedule for j, p in enumerate(s.lineup))
    copies = -(-seats // n)  # the most seats one policy holds in a line-up
    for p in names(n):
        counts = [per_seat[(p, j)] for j in range(seats)]
        assert max(counts) - min(counts) <= copies, (p, counts)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 9), st.integers(1, 8), st.integers(1, 120))
def test_complete_blocks_give_exact_seat_balance(n: int, seats: int, episodes: int) -> None:
    schedule = balanced(names(n), seats, episodes)
    last = schedule[-1].block
    complete = [s for s in schedule if s.block < last]
    per_seat = Counter((p, j) for s in complete for j, p in enumerate(s.lineup))
    for p in names(n):
        assert len({per_seat[(p, j)] for j in range(seats)}) == 1


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 9), st.integers(2, 8), st.integers(1, 40))
def test_blocks_per_policy_differ_by_at_most_one(n: int, seats: int, blocks: int) -> None:
    schedule = balanced(names(n), seats, blocks * seats)
    bases = {s.block: s.lineup for s in schedule if s.block < blocks}
    played = Counter(p for lineup in bases.values() for p in set(lineup))
    counts = [played[p] for p in names(n)]
    assert max(counts) - min(counts) <= 1


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(2, 8), st.integers(1, 60))
def test_duplicates_only_when_policies_are_fewer_than_seats(n: int, seats: int,
                                                            episodes: int) -> None:
    for s in balanced(names(n), seats, episodes):
        copies = Counter(s.lineup)
        if n >= seats:
            assert max(copies.values()) == 1
        else:
            assert set(copies) == set(names(n))  # everyone sits at every table
            assert max(copies.values()) - min(copies.values()) <= 1


@pytest.mark.parametrize(("n", "seats"), [(4, 2), (8, 2)])
def test_round_robins_meet_every_pair_equally(n: int, seats: int) -> None:
    pairs = n * (n - 1) // 2
    per_block = seats * (seats - 1) // 2
    blocks = pairs // per_block
    schedule = balanced(names(n), seats, blocks * seats)
    bases = {s.block: s.lineup for s in schedule if s.block < blocks}
    met = Counter(tuple(sorted(p)) for b in bases.values() for p in itertools.combinations(b, 2))
    assert len(met) == pairs and set(met.values()) == {1}


@pytest.mark.parametrize(("n", "seats", "episodes", "spread"),
                         [(10, 6, 600, 2), (8, 6, 48, 1), (6, 4, 48, 1), (9, 4, 400, 2)])
def test_larger_tables_spread_meetings_within_a_few(n: int, seats: int, episodes: int,
                                                    spread: int) -> None:
    """The greedy draw's measured spreads (docs/league.md), kept from regressing."""
    schedule = balanced(names(n), seats, episodes)
    bases = {s.block: s.lineup for s in schedule}
    met = Counter(tuple(sorted(p)) for b in bases.values() for p in itertools.combinations(b, 2))
    assert len(met) == n * (n - 1) // 2
    assert max(met.values()) - min(met.values()) <= spread


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(1, 60), st.integers(0, 60))
def test_schedule_is_prefix_stable(n: int, seats: int, episodes: int, more: int) -> None:
    assert balanced(names(n), seats, episodes + more)[:episodes] == balanced(names(n), seats,
                                                                               episodes)


def test_periodic_line_ups_do_not_repeat_within_a_block() -> None:
    for s in balanced(names(2), 4, 12):
        assert s.lineup in (("p0", "p1", "p0", "p1"), ("p1", "p0", "p1", "p0"))
    blocks = Counter(s.block for s in balanced(names(2), 4, 12))
    assert set(blocks.values()) == {2}  # two distinct rotations per block, not four


def test_duplicates_refused_when_disabled() -> None:
    with pytest.raises(ConfigError, match=r"seating\.duplicates"):
        balanced(names(2), 3, 5, duplicates=False)


def test_a_spec_like_another_is_the_dataclass_with_those_fields() -> None:
    """`EpisodeSpec.like` (the schedule's fast copy) equals `dataclasses.replace`, keeps the
    spec frozen and never carries the other spec's cached id."""
    first = EpisodeSpec(league="l", game="dilemma", variant=None, seed=3,
                        seats=(SeatRef("a", "tit_for_tat"),), overrides={"rounds_total": 5},
                        index=1)
    assert first.id
    other = first.like(4, (SeatRef("b", "pavlov"),), 2, "evaluation")
    assert other == dataclasses.replace(first, seed=4, seats=(SeatRef("b", "pavlov"),),
                                        index=2, source="evaluation")
    assert other.id == dataclasses.replace(other).id != first.id
    with pytest.raises(dataclasses.FrozenInstanceError):
        other.seed = 5  # type: ignore[misc]
