"""The Ledger seed's own words as small reference computations, held against the engine on
random play: ring detection over arbitrary meeting lists, and conduct, halo and median scores
over whole episodes in which random seats play beside the baselines (the engine keeps these
incrementally, in integers and caches; the references recount everything from the record)."""

from __future__ import annotations

import asyncio
import itertools
import math
import random
import statistics
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core.clock import FakeClock
from cogleague.core.episode import run_episode
from cogleague.core.game import Turn
from cogleague.games.ledger.rings import detect_rings

from .support import ScriptSeat, make_game, seats_with

Meeting = tuple[int, int, int, int]  # a, b, pay_a, pay_b


def reference_rings(meetings: list[Meeting]) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """The seed: for every unordered pair that met at least twice, inMean is the mean of
    (pay_a + pay_b) / 2 over their mutual meetings, outMean the mean of the two members' own
    payoffs over all their OTHER meetings; flagged when inMean >= 6 and inMean - outMean >= 3.
    A ring is a connected component of three or more in the flagged graph."""
    flagged = []
    for a, b in itertools.combinations(range(8), 2):
        mutual = [m for m in meetings if {m[0], m[1]} == {a, b}]
        if len(mutual) < 2:
            continue
        in_mean = sum(Fraction(m[2] + m[3], 2) for m in mutual) / len(mutual)
        own = [pay for m in meetings if {m[0], m[1]} != {a, b}
               for seat, pay in ((m[0], m[2]), (m[1], m[3])) if seat in (a, b)]
        out_mean = Fraction(sum(own), len(own)) if own else Fraction(0)
        if in_mean >= 6 and in_mean - out_mean >= 3:
            flagged.append((a, b))
    links: dict[int, set[int]] = {}
    for a, b in flagged:
        links.setdefault(a, set()).add(b)
        links.setdefault(b, set()).add(a)
    rings, seen = [], set()
    for start in sorted(links):
        if start in seen:
            continue
        group, todo = set(), [start]
        while todo:
            seat = todo.pop()
            if seat not in group:
                group.add(seat)
                todo += links[seat]
        seen |= group
        if len(group) >= 3:
            rings.append(sorted(group))
    return flagged, sorted(rings)


_PAIR = st.tuples(st.integers(0, 7), st.integers(0, 7)).filter(lambda p: p[0] != p[1])
# payoffs around the thresholds: a few values make exact ties (inMean 6, delta 3) common
_PAY = st.one_of(st.integers(0, 14), st.sampled_from([0, 3, 6, 9, 12]))
_MEETINGS = st.lists(st.tuples(_PAIR, _PAY, _PAY).map(lambda m: (*m[0], m[1], m[2])),
                     max_size=40)


@settings(max_examples=400, deadline=None)
@given(_MEETINGS)
def test_ring_detection_is_the_seeds_rule(meetings: list[Meeting]) -> None:
    rings = detect_rings(meetings)
    assert ([(p.a, p.b) for p in rings.pairs], rings.components) == reference_rings(meetings)


def _kind(subgame: str, side: int, move: int) -> bool:
    """The seed's conduct rule."""
    if subgame == "DILEMMA":
        return move == 0
    if subgame == "TRUST":
        return move >= 3 if side == 0 else move >= 50
    return move >= 5 if side == 0 else move <= 5


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), rounds=st.sampled_from([4, 7, 9, 14, 28]),
       randoms=st.sets(st.integers(0, 7), min_size=1))
def test_conduct_halo_and_median_scores_are_the_seeds(seed: int, rounds: int,
                                                      randoms: set[int]) -> None:
    draw = random.Random(seed)
    seen: list[tuple[int, dict[str, Any]]] = []

    def reply(turn: Turn, hint: str | None) -> dict[str, Any]:
        seen.append((turn.seat, turn.view))
        legal = turn.legal_actions["move"]
        return {"move": draw.randint(legal["min"], legal["max"])}

    game = make_game(seed=seed, rounds=rounds)
    seats = seats_with(game, {s: ScriptSeat(reply) for s in randoms})
    outcome = asyncio.run(run_episode(game, seats, clock=FakeClock()))
    kind, harsh = [0] * 8, [0] * 8
    pays: list[list[int]] = [[] for _ in range(8)]
    meetings: list[Meeting] = []
    for e in outcome.log.events:
        if e.kind == "meeting":
            d = e.data
            for seat, side, move, pay in ((d["a"], 0, d["moveA"], d["payA"]),
                                          (d["b"], 1, d["moveB"], d["payB"])):
                (kind if _kind(d["subgame"], side, move) else harsh)[seat] += 1
                pays[seat].append(pay)
            meetings.append((d["a"], d["b"], d["payA"], d["payB"]))
    results = outcome.results
    assert results["kind"] == kind and results["harsh"] == harsh
    assert results["halo"] == [round(k / (k + h), 4) for k, h in zip(kind, harsh, strict=True)]
    assert results["scores"] == [float(statistics.median(p)) for p in pays]
    assert results["meetings"] == [rounds] * 8  # every seat plays every round
    flagged, rings = reference_rings(meetings)
    assert results["ringPairs"] == len(flagged) and results["rings"]["components"] == rings
    # what a seat observes before each round: its own median and halo so far
    for seat, view in seen:
        mine = [m for m in outcome.log.events if m.kind == "meeting"
                and m.data["round"] < view["round"] and seat in (m.data["a"], m.data["b"])]
        own = [m.data["payA"] if m.data["a"] == seat else m.data["payB"] for m in mine]
        kinds = [_kind(m.data["subgame"], 0 if m.data["a"] == seat else 1,
                       m.data["moveA"] if m.data["a"] == seat else m.data["moveB"])
                 for m in mine]
        assert view["self"]["median"] == (float(statistics.median(own)) if own else 0.0)
        expected_halo = sum(kinds) / len(kinds) if kinds else 0.5
        assert math.isclose(view["self"]["halo"], round(expected_halo, 4))
