"""`axelrod:NAME` seats play exactly what the Axelrod library's own `Match` plays.

Slow: importing the Axelrod library builds its 240-odd strategies (tens of seconds of CPU)."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core.episode import play_headless
from cogleague.core.errors import ConfigError
from cogleague.games.registry import get
from cogleague.seats.factory import make_seat, make_seats

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def axl() -> Any:
    """The library, imported only when a test here runs (its import is the slow part)."""
    return pytest.importorskip("axelrod")

ROUNDS = 40
DETERMINISTIC = [("TitForTat", "Grudger"), ("Alternator", "TitFor2Tats"),
                 ("SuspiciousTitForTat", "WinStayLoseShift"), ("SecondByTester", "Punisher"),
                 ("FirstByTidemanAndChieruzzi", "ForgivingTitForTat"), ("Prober", "Bully")]
STOCHASTIC = [("Random", "GTFT"), ("ZDExtort2", "Random"), ("FirstByJoss", "TitForTat"),
              ("GTFT", "Grudger"), ("ZDGTFT2", "ZDExtort4"),
              # a stochastic higher seat beside a deterministic lower one takes Match's
              # first draw (Match seeds stochastic players only, in order)
              ("Defector", "Random"), ("TitForTat", "ZDExtort2"), ("Grudger", "GTFT")]


def seat_pair(a: str, b: str, seed: int) -> tuple[list[str], list[int], int]:
    """Choices (C/D) of seat 0 and 1 of a 3-seat table, and the pairing's points."""
    desc = get("dilemma")
    lineup = [f"axelrod:{a}", f"axelrod:{b}", "always_cooperate"]
    game = desc.make(None, {"rounds_total": ROUNDS, "promises": False}, seed, lineup, None)
    play_headless(game, make_seats(game, lineup))
    rec = next(r for r in game.state.pairs if tuple(r.pairing) == (0, 1))  # type: ignore[attr-defined]
    letters = ["".join("C" if c else "D" for c in rec.coop[s]) for s in (0, 1)]
    return letters, list(rec.points), rec.index


def match_of(axl: Any, a: str, b: str, seed: int | None) -> tuple[list[str], list[int]]:
    from cogleague.seats.axelrod_seat import pair_seed

    players = (axl.strategies[[c.__name__ for c in axl.strategies].index(a)](),
               axl.strategies[[c.__name__ for c in axl.strategies].index(b)]())
    match = axl.Match(players, turns=ROUNDS, seed=pair_seed(seed, 0, 1))
    result = match.play()
    letters = ["".join(str(r[s]) for r in result) for s in (0, 1)]
    return letters, list(match.final_score())


@pytest.mark.parametrize(("a", "b"), DETERMINISTIC + STOCHASTIC)
def test_a_pair_of_axelrod_seats_scores_what_axelrods_match_gives(axl: Any, a: str,
                                                                  b: str) -> None:
    for seed in (1, 2, 3):
        letters, points, _ = seat_pair(a, b, seed)
        want_letters, want_points = match_of(axl, a, b, seed)
        assert letters == want_letters, (a, b, seed)
        assert points == want_points


def test_the_reported_pairing_scores_what_match_gives(axl: Any) -> None:
    """Defector v Random, seed 7, 20 rounds: Match gives [76, 6] (the seats gave [68, 8]
    when the higher seat took the second draw)."""
    from cogleague.seats.axelrod_seat import pair_seed

    match = axl.Match((axl.Defector(), axl.Random()), turns=20, seed=pair_seed(7, 0, 1))
    match.play()
    assert list(match.final_score()) == [76, 6]
    lineup = ["axelrod:Defector", "axelrod:Random", "always_cooperate"]
    game = get("dilemma").make(None, {"rounds_total": 20}, 7, lineup, None)
    play_headless(game, make_seats(game, lineup))
    rec = next(r for r in game.state.pairs if tuple(r.pairing) == (0, 1))  # type: ignore[attr-defined]
    assert list(rec.points) == [76, 6]


def test_stochastic_pairs_differ_across_seeds_but_repeat_for_one_seed(axl: Any) -> None:
    runs = {seed: seat_pair("Random", "GTFT", seed)[0] for seed in (1, 2, 3, 1)}
    assert len(set(map(tuple, runs.values()))) > 1
    assert seat_pair("Random", "GTFT", 1)[0] == runs[1]


def test_an_axelrod_seat_sees_only_its_own_pairing(axl: Any) -> None:
    """Its choices against seat 1 do not change when a third seat plays differently."""
    desc = get("dilemma")
    plays = []
    for third in ("always_cooperate", "always_defect"):
        lineup = ["axelrod:Grudger", "tit_for_tat", third]
        game = desc.make(None, {"rounds_total": 12}, 4, lineup, None)
        play_headless(game, make_seats(game, lineup))
        rec = next(r for r in game.state.pairs if tuple(r.pairing) == (0, 1))  # type: ignore[attr-defined]
        plays.append(list(rec.coop[0]))
    assert plays[0] == plays[1] == [True] * 12


def test_unknown_strategy_and_non_pairwise_game_are_config_errors(axl: Any) -> None:
    game = get("dilemma").make(None, {}, 1, ["tit_for_tat"] * 3, None)
    with pytest.raises(ConfigError, match="unknown Axelrod strategy 'NoSuch'"):
        make_seat(game, 0, "axelrod:NoSuch")
    assert make_seat(game, 0, "axelrod:Tit For Tat").name == "axelrod:Tit For Tat"
    commons = get("commons")
    other = commons.new_game()
    with pytest.raises(ConfigError, match="two-player pairings"):
        make_seat(other, 0, "axelrod:TitForTat")
