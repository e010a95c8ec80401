"""Ledger's schedule for B seeds at once equals `draw_schedule` seed by seed, including the
tables that redraw a pass order more often than the draws read up front cover."""

from __future__ import annotations

import pytest

from cogleague.games.ledger import batch_schedule as bs
from cogleague.games.ledger.schedule import draw_schedule
from cogleague.games.ledger.subgames import SUBGAMES


def _as_rules(seeds: list[int], rounds: int) -> list[list[list[tuple[int, int, str]]]]:
    """`seat_schedule`'s meetings (first mover, second, subgame), each round's in seat order."""
    partner, subgame, side = bs.seat_schedule(seeds, rounds)
    return [[[(a, int(partner[i, r, a]), SUBGAMES[subgame[i, r, a]]) for a in range(8)
              if side[i, r, a] == 0] for r in range(rounds)] for i in range(len(seeds))]


def _rules(seed: int, rounds: int) -> list[list[tuple[int, int, str]]]:
    return [sorted((p.a, p.b, p.subgame) for p in rr) for rr in draw_schedule(seed, rounds)]


@pytest.mark.parametrize("rounds", [4, 7, 14, 28])
def test_seat_schedule_is_the_rules_schedule(rounds: int) -> None:
    seeds = [*range(0, 3000, 7), 2_147_483_647]
    assert _as_rules(seeds, rounds) == [_rules(s, rounds) for s in seeds]


def test_tables_past_the_draws_read_are_redrawn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bs, "draws_read", lambda rounds: 185)  # short of many 28-round draws
    redrawn: list[int] = []

    def counted(seed: int, rounds: int) -> list[list[object]]:
        redrawn.append(seed)
        return draw_schedule(seed, rounds)  # type: ignore[return-value]

    monkeypatch.setattr(bs, "draw_schedule", counted)
    seeds = list(range(300))
    assert _as_rules(seeds, 28) == [_rules(s, 28) for s in seeds]
    assert 0 < len(redrawn) < len(seeds)


def test_draws_past_the_first_twist_come_from_the_rules_streams(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """More draws than one twist gives (624 words) are read from `core.rng` streams instead
    of the array-seeded ones: the same schedule."""
    monkeypatch.setattr(bs, "draws_read", lambda rounds: 320)
    seeds = list(range(120))
    assert _as_rules(seeds, 28) == [_rules(s, 28) for s in seeds]


@pytest.mark.parametrize("depth", [None, 170])
def test_seat_schedule_is_the_schedule_seat_by_seat(monkeypatch: pytest.MonkeyPatch,
                                                    depth: int | None) -> None:
    """Each seat's partner, subgame and side (0 for the first mover) as the meetings give
    them, also for tables redrawn past the draws read (`depth`: fewer read)."""
    if depth is not None:
        monkeypatch.setattr(bs, "draws_read", lambda rounds: depth)
    seeds = [*range(0, 3000, 11), 2_147_483_647]
    rounds = 28
    partner, subgame, side = bs.seat_schedule(seeds, rounds)
    assert partner.shape == (len(seeds), rounds, 8)
    for i, seed in enumerate(seeds):
        for r, pairs in enumerate(_rules(seed, rounds)):
            for a, b, g in pairs:
                assert (partner[i, r, a], partner[i, r, b]) == (b, a)
                assert subgame[i, r, a] == subgame[i, r, b] == SUBGAMES.index(g)
                assert (side[i, r, a], side[i, r, b]) == (0, 1)


@pytest.mark.parametrize(("k", "at_least"), [(bs.OUTSIDE_K, 50), (bs.ULTIMATUM_K, 80)])
def test_subgame_bounds_are_the_rules_rounding(k: float, at_least: int) -> None:
    """A draw's k at the bound gives `below(100)` >= the subgame's bound as the rules compute
    it (``int(random() * 100)``), the k just below it does not."""
    least = int(k)
    for x in range(least - 50, least + 50):
        assert (int(x / 2**53 * 100) >= at_least) == (x >= least)
