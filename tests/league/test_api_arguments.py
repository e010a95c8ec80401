"""`cogleague.run_league` and `cogleague.league_standings` refuse a bad keyword as the CLI
refuses the option, naming the field and the range: `resamples` 100..100000 (0 was an
`IndexError`, 1 an interval from one resample), a `game` the league does not play (an empty
document, as if it had no episodes), a fractional `workers` and a `retry_infra` that is not a
bool (the string "no" retried)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from leaguefiles import league_text

import cogleague
from cogleague.core.errors import ConfigError


@pytest.fixture
def played(write_league: Callable[..., Path]) -> Path:
    path = write_league(league_text(episodes=3))
    cogleague.run_league(path, workers=1)
    return path


@pytest.mark.parametrize("resamples", [0, -1, 1, 99, 100_001, 1.5, True, "200"])
def test_resamples_outside_the_clis_range_are_refused(played: Path, resamples: Any) -> None:
    with pytest.raises(ConfigError, match=r"^resamples must be an integer in 100\.\.100000") as err:
        cogleague.league_standings(played, resamples=resamples)
    assert err.value.field == "resamples"


def test_resamples_in_range_rank(played: Path) -> None:
    doc = cogleague.league_standings(played, resamples=100)
    assert doc["tables"] and doc["tables"][0]["rows"][0]["low"] is not None


def test_a_game_the_league_does_not_play_is_refused(played: Path) -> None:
    with pytest.raises(ConfigError, match=r"^game 'dilemma' is not a game of league 't' "
                                          r"\(its games: skill\)") as err:
        cogleague.league_standings(played, game="dilemma")
    assert err.value.field == "game"
    assert cogleague.league_standings(played, game="skill", resamples=100)["tables"]


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"workers": 1.5}, "workers"),
    ({"workers": "2"}, "workers"),
    ({"retry_infra": "no"}, "retry_infra"),
    ({"retry_infra": 1}, "retry_infra"),
])
def test_run_league_refuses_bad_keywords(write_league: Callable[..., Path],
                                         kwargs: dict[str, Any], field: str) -> None:
    path = write_league(league_text(episodes=2))
    with pytest.raises(ConfigError, match=rf"^{field} must be ") as err:
        cogleague.run_league(path, **kwargs)
    assert err.value.field == field


def test_standings_of_a_league_never_run_there_are_refused_naming_the_store(
        write_league: Callable[..., Path], tmp_path: Path) -> None:
    """A read never makes a store: a mistyped `store` (or a league not yet run) was an empty
    document and a new empty database file, read as a league without episodes."""
    path = write_league(league_text(episodes=2))
    typo = tmp_path / "typo.db"
    with pytest.raises(ConfigError, match=r"^store: no store at .*typo\.db") as err:
        cogleague.league_standings(path, store=f"sqlite:///{typo}")
    assert err.value.field == "store"
    assert not typo.exists()
    with pytest.raises(ConfigError, match=r"^store: no store at .*league\.db"):
        cogleague.league_standings(path)
    assert not (tmp_path / "league.db").exists()
