"""The results of any match — sealed choices, missed turns, promises kept and broken, a paid
table's pot — equal a reference computed from the seed's rules alone (seed 003: the matrix,
"a missed turn is a cooperate, always", ties share a rank, the pot after rake split in
proportion to points; spec §3, §6 for the promise rule, the rake and the largest remainder)."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core.game import Decision
from cogleague.games.dilemma.promises import is_promise
from dilemma.support import game

MESSAGES = [None, "I will cooperate.", "no deal", "C", "  ", "cooperation?"]
CHOICES = ["cooperate", "defect", "timeout"]


def reference_split(pot: int, rake_bps: int, points: list[int]) -> tuple[int, list[int]]:
    """Rake rounded down; the rest by points (equal when all are zero), whole credits by the
    largest remainder, ties to the lower seat — computed with exact fractions."""
    rake = pot * rake_bps // 10_000
    rest = pot - rake
    weights = points if any(points) else [1] * len(points)
    exact = [Fraction(rest * w, sum(weights)) for w in weights]
    paid = [int(x) for x in exact]
    order = sorted(range(len(points)), key=lambda s: (-(exact[s] - paid[s]), s))
    for s in order[:rest - sum(paid)]:
        paid[s] += 1
    return rake, paid


@settings(max_examples=60, deadline=None)
@given(seats=st.integers(3, 5), rounds=st.integers(1, 4), stake=st.sampled_from([0, 7, 100]),
       rake_bps=st.sampled_from([0, 500, 2000]), data=st.data())
def test_results_equal_a_reference_from_the_rules(seats: int, rounds: int, stake: int,
                                                  rake_bps: int, data: Any) -> None:
    g = game(["always_cooperate"] * seats, rounds_total=rounds, stake=stake, rake_bps=rake_bps)
    pay = {(True, True): (3, 3), (True, False): (0, 5), (False, True): (5, 0),
           (False, False): (1, 1)}
    points, timeouts = [0] * seats, [0] * seats
    made, kept, coops = [0] * seats, [0] * seats, [0] * seats
    g.start()
    for _ in range(rounds):
        g.open_round()
        chosen: dict[tuple[int, int], bool] = {}  # (seat, opponent) -> cooperated
        for _ in range(2):
            decisions = {}
            for turn in g.pending():
                seat, ctx = turn.seat, turn.context
                choice = data.draw(st.sampled_from(CHOICES))
                message = data.draw(st.sampled_from(MESSAGES))
                coop = choice != "defect"  # a missed turn is a cooperate, always
                chosen[(seat, ctx.opponent)] = coop
                if choice == "timeout":
                    timeouts[seat] += 1
                    continue
                action: dict[str, Any] = {"action": choice}
                if message is not None:
                    action["message"] = message
                    if is_promise(message.strip()):
                        made[seat] += 1
                        kept[seat] += coop
                decisions[turn.turn_id] = Decision(action, source="seat")
            g.apply(decisions)
        assert len(chosen) == seats * (seats - 1)  # every seat chose once per pairing
        for a, b in combinations(range(seats), 2):
            pa, pb = pay[(chosen[(a, b)], chosen[(b, a)])]
            points[a] += pa
            points[b] += pb
            coops[a] += chosen[(a, b)]
            coops[b] += chosen[(b, a)]
    results = g.results()
    assert results["reason"] == "complete" and results["scores"] == points
    choices = rounds * (seats - 1)
    ranks = [1 + sum(q > p for q in points) for p in points]
    rows = results["seats"]
    assert [row["points"] for row in rows] == points
    assert [row["rank"] for row in rows] == ranks
    assert [row["timeouts"] for row in rows] == timeouts
    assert [row["promises_made"] for row in rows] == made
    assert [row["promises_kept"] for row in rows] == kept
    assert [row["cooperation_rate"] for row in rows] == [c / choices for c in coops]
    if stake:
        rake, paid = reference_split(stake * seats, rake_bps, points)
        assert (results["pot"], results["rake"]) == (stake * seats, rake)
        assert [row["payout"] for row in rows] == paid
    else:
        assert [row["payout"] for row in rows] == [None] * seats
