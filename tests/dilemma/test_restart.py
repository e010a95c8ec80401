"""A finished table dealt again (`DilemmaGame.restart`) is the table `make` builds for the new
seed and line-up: the same results and replay bytes, however the match before it went."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core.episode import play_headless
from cogleague.core.errors import ConfigError
from cogleague.games.dilemma import DilemmaGame, make
from cogleague.games.dilemma.baselines import BASELINES
from cogleague.games.dilemma.config import MAX_SEED
from cogleague.games.dilemma.descriptor import GAME
from cogleague.seats.factory import make_seats

NAMES = sorted(BASELINES)


def played(game: DilemmaGame, names: list[str]) -> tuple[bytes, dict[str, object]]:
    outcome = play_headless(game, make_seats(game, names))
    return GAME.replay_json(game, outcome.log), dict(outcome.results)


@st.composite
def matches(draw: st.DrawFn) -> tuple[str | None, dict[str, int], list[str], list[str]]:
    seats = draw(st.integers(3, 8))
    variant = draw(st.sampled_from([None, "standard", "classic200"]))
    rounds = {"rounds_total": draw(st.integers(1, 9))}
    lineup = st.lists(st.sampled_from(NAMES), min_size=seats, max_size=seats)
    return variant, rounds, draw(lineup), draw(lineup)


@settings(max_examples=60, deadline=None)
@given(matches(), st.integers(0, MAX_SEED), st.integers(0, MAX_SEED),
       st.sampled_from(["complete", "stopped", "never started"]))
def test_a_restarted_table_plays_the_new_tables_match(
        match: tuple[str | None, dict[str, int], list[str], list[str]], first: int, then: int,
        how: str) -> None:
    variant, overrides, before, after = match
    game = make(variant, overrides, first, before)
    if how == "complete":
        played(game, before)
    elif how == "stopped":  # ended between rounds after one, its standings half made
        game.start()
        game.open_round()
        game.stop("deadline")
    else:
        game.start()
        game.stop("aborted")
    assert game.restart(then, after)
    assert (game.seed, game.policy_names, game.round) == (then, after, 0)
    assert played(game, after) == played(make(variant, overrides, then, after), after)


def test_only_a_finished_table_of_the_same_size_restarts() -> None:
    lineup = ["tit_for_tat", "pavlov", "always_defect"]
    game = make(None, {"rounds_total": 2}, 1, lineup)
    assert not game.restart(2, lineup)  # not started
    game.start()
    game.open_round()
    assert not game.restart(2, lineup)  # mid-round: its state is in use
    game.stop("deadline")
    assert not game.restart(2, [*lineup, "random"])  # a table's size is its set-up
    assert game.restart(2, lineup)


def test_a_seed_make_refuses_is_refused_by_name_and_the_table_stays_finished() -> None:
    lineup = ["tit_for_tat", "pavlov", "always_defect"]
    with pytest.raises(ConfigError) as made:
        make(None, {}, MAX_SEED + 1, lineup)
    game = make(None, {"rounds_total": 1}, 1, lineup)
    results = played(game, lineup)[1]
    with pytest.raises(ConfigError) as restarted:
        game.restart(MAX_SEED + 1, lineup)
    assert restarted.value.field == made.value.field == "seed"
    assert str(restarted.value) == str(made.value)
    assert game.done and game.results() == results  # nothing of the match was cleared
