"""Spec §1–2: pairings and the first-mover schedule for 3..8 seats, and the step order."""

from __future__ import annotations

from itertools import combinations

import pytest

from cogleague.core.game import Decision
from cogleague.games.dilemma.schedule import first_mover, opponent, pairings, second_mover
from dilemma.support import game


@pytest.mark.parametrize("seats", range(3, 9))
def test_every_unordered_pair_is_one_pairing(seats: int) -> None:
    ps = pairings(seats)
    assert ps == sorted(ps)
    assert len(ps) == seats * (seats - 1) // 2
    assert {frozenset(p) for p in ps} == {frozenset(p) for p in combinations(range(seats), 2)}
    assert all(a < b for a, b in ps)


def test_first_mover_alternates_lower_on_odd_rounds() -> None:
    assert [first_mover((1, 4), r) for r in range(1, 6)] == [1, 4, 1, 4, 1]
    assert [second_mover((1, 4), r) for r in range(1, 6)] == [4, 1, 4, 1, 4]
    assert opponent((1, 4), 1) == 4 and opponent((1, 4), 4) == 1


@pytest.mark.parametrize("seats", range(3, 9))
def test_steps_ask_first_then_second_movers_in_seat_then_opponent_order(seats: int) -> None:
    g = game(["always_cooperate"] * seats, rounds_total=4)
    g.start()
    seen_ids: set[str] = set()
    for r in range(1, 5):
        g.open_round()
        for step in (0, 1):
            turns = g.pending()
            keys = [(t.seat, t.context.opponent) for t in turns]
            assert keys == sorted(keys)  # ascending seat, then ascending opponent
            assert len(turns) == len(pairings(seats))  # one turn per pairing per step
            for t in turns:
                a, b = t.context.pair.pairing
                mover = first_mover((a, b), r) if step == 0 else second_mover((a, b), r)
                assert t.seat == mover
                assert t.view["you_move_first"] is (step == 0)
                assert t.view["turn"]["pairing"] == [a, b]
                assert t.round == r and t.view["round"] == r
                assert t.turn_id == f"r{r}:{a}-{b}:{t.seat}"
                assert t.turn_id not in seen_ids
                seen_ids.add(t.turn_id)
            # within a round, each seat's turns are numbered 1, 2, … in the order asked
            g.apply({t.turn_id: Decision({"action": "cooperate"}, "scripted") for t in turns})
    assert len(seen_ids) == 4 * 2 * len(pairings(seats))
    assert g.done


def test_turn_numbers_count_a_seats_turns_within_the_round() -> None:
    g = game(["always_cooperate"] * 4)
    g.start()
    g.open_round()
    numbers: dict[int, list[int]] = {}
    for _ in (0, 1):
        turns = g.pending()
        for t in turns:
            numbers.setdefault(t.seat, []).append(t.view["turn"]["turn"])
        g.apply({t.turn_id: Decision({"action": "cooperate"}, "scripted") for t in turns})
    assert all(nums == list(range(1, 4)) for nums in numbers.values())
