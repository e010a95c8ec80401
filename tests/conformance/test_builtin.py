"""Every built-in game passes the conformance suite, check by check (one line each for a
third party: `check_game(GAME)`)."""

from __future__ import annotations

import pytest

from cogleague.testing import CHECKS, check_game

GAMES = ["ledger", "commons", "dilemma"]
OPTIONAL = {("commons", "scores"), ("commons", "restart"), ("ledger", "restart")}
"""Checks a game may skip: Commons Family declares no step payoffs (its events carry running
scores, which sanctions move after the round's gains); Ledger and Commons Family make a new
game for every episode (their set-up is mostly the seed's own draws)."""


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("game", GAMES)
def test_built_in_games_conform(game: str, check: str) -> None:
    report = check_game(game, checks=[check], examples=12)
    assert list(report.passed) == [check] and not report.failed
    skipped = report.passed[check].startswith("skipped")
    assert skipped == ((game, check) in OPTIONAL), report.passed[check]
