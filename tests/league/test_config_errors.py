"""League-file mistakes found only by the schedule or by a game's options: each is a
`ConfigError` from `config.load` naming the field's dotted path, and `league run` writes
nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from leaguefiles import league_text
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core.errors import ConfigError
from cogleague.league import config as league_config

cli = CliRunner()
ALL_HELD = league_text().replace('author = "tests"', 'author = "tests"\nheld_out = true')
FEW_HELD = ("[seating]\nduplicates = false\n\n"
            + league_text().replace('baseline = "s2"', 'baseline = "s2"\nheld_out = true'))
BAD_OPTION = league_text().replace("seats = 3", "seats = 3\noverrides = { rounds = 0 }")
UNKNOWN_OPTION = league_text().replace("seats = 3", "seats = 3\noverrides = { roundz = 3 }")
SEATS_OPTION = """
[league]
name = "d"

[[policies]]
name = "tft"
baseline = { dilemma = "tit_for_tat" }

[[games]]
name = "dilemma"
overrides = { seats = "four" }
"""

TWICE = league_text(variants='["standard", "long"]') + """
[[games]]
name = "skill"
module = "leaguegames"
variants = ["long"]
"""
SAME_LIST = league_text(variants='["long", "long"]')
OTHER_NAME = league_text().replace('name = "skill"', 'name = "chess"')
GAME_TYPO = league_text().replace('baseline = "s2"', 'baseline = "s2"\ngames = ["skill", "skil"]')


@pytest.mark.parametrize(("text", "field", "message"), [
    (ALL_HELD, "games[0].policies", "every policy is held out"),
    (FEW_HELD, "seating.duplicates", "games[0] has 1 held-out policies for 2 evaluation seats"),
    (BAD_OPTION, "games[0].overrides.rounds", "rounds must be an integer in"),
    (UNKNOWN_OPTION, "games[0].overrides.roundz", "roundz is not a skill config setting"),
    (TWICE, "games[1].variants", "games[1].variants lists skill long again (games[0] has it)"),
    (SAME_LIST, "games[0].variants", "games[0].variants lists skill long again"),
    (SEATS_OPTION, "games[0].overrides.seats", "seats must be an integer in 3..8 (got 'four')"),
    (OTHER_NAME, "games[0].name", "games[0].name is 'chess' but module leaguegames's game is "
                                  "'skill'"),
    (GAME_TYPO, "policies[0].games", "policies[0].games names 'skil', which is not a game of "
                                     "the league (its games: skill)"),
])
def test_the_error_names_the_dotted_field_and_nothing_is_written(
        write_league: Callable[..., Path], tmp_path: Path, text: str, field: str,
        message: str) -> None:
    path = write_league(text)
    with pytest.raises(ConfigError, match=re.escape(message)) as info:
        league_config.load(path)
    assert info.value.field == field and str(info.value).startswith(field)
    result = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert result.exit_code == 2 and message in result.output.replace("\n", " ")
    assert "Traceback" not in result.output
    assert not list(tmp_path.glob("*.db*"))
