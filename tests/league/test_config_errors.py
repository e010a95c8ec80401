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

THREE = """
[league]
name = "d"

[[policies]]
name = "a"
baseline = { dilemma = "tit_for_tat", commons = "steward" }

[[policies]]
name = "b"
baseline = { dilemma = "always_defect", commons = "free_rider" }

[[policies]]
name = "c"
baseline = { dilemma = "pavlov", commons = "steward" }

[[games]]
"""
SEATS_TWICE = THREE + 'name = "dilemma"\nseats = 3\noverrides = { seats = 4 }\n'
SEATS_TWICE_DEFAULT = THREE + 'name = "dilemma"\nseats = 4\noverrides = { seats = 3 }\n'
PLAYERS_TWICE = THREE + 'name = "commons"\nseats = 3\noverrides = { num_players = 6 }\n'
NAME_TOO_MANY = (THREE + 'name = "commons"\nseats = 3\n'
                 'overrides = { names = ["p", "q", "r", "s"] }\n')

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
    (SEATS_TWICE, "games[0].seats", "games[0].seats is 3 but games[0].overrides.seats is 4: "
                                    "name the seat count once, either games[0].seats (3..8) "
                                    "or games[0].overrides.seats"),
    (SEATS_TWICE_DEFAULT, "games[0].seats", "games[0].seats is 4 but "
                                            "games[0].overrides.seats is 3"),
    (PLAYERS_TWICE, "games[0].seats", "games[0].seats is 3 but games[0].overrides.num_players "
                                      "is 6: name the seat count once, either games[0].seats "),
    (NAME_TOO_MANY, "games[0].overrides.names", "games[0].overrides.names: names must be a "
                                                "list of 3 strings (got ['p', 'q', 'r', 's']); "
                                                "a table has 3 seats here (games[0].seats)"),
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


@pytest.mark.parametrize(("bot", "says"), [
    ("broken_bot.py:Broken", "bot file {dir}/broken_bot.py fails to import: "
                             "ModuleNotFoundError: No module named 'no_such_dependency'"),
    ("no_such_bot_module:Broken", "bot module 'no_such_bot_module' cannot be imported "
                                  "(No module named 'no_such_bot_module')"),
])
def test_a_bot_that_fails_to_import_names_its_policy_field_and_the_import_error(
        write_league: Callable[..., Path], tmp_path: Path, bot: str, says: str) -> None:
    (tmp_path / "broken_bot.py").write_text("import no_such_dependency\n", encoding="utf-8")
    path = write_league(league_text(extra_policies=f'[[policies]]\nname = "tit_for_tat"\n'
                                                   f'bot = "{bot}"\n'))
    with pytest.raises(ConfigError) as info:
        league_config.load(path)
    field = "policies[4].bot"  # the fifth [[policies]] table
    assert info.value.field == field
    assert str(info.value) == f"{field} (tit_for_tat): {says.format(dir=tmp_path)}"
    result = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert result.exit_code == 2 and field in result.output


def test_evaluation_episodes_without_a_held_out_policy_is_refused(
        write_league: Callable[..., Path]) -> None:
    """`evaluation_episodes` schedules episodes against the held-out pool; with no held-out
    policy in the game it would be silently ignored (no evaluation is played)."""
    path = write_league(league_text().replace("seats = 3", "seats = 3\nevaluation_episodes = 5"))
    with pytest.raises(ConfigError) as err:
        league_config.load(path)
    assert str(err.value).startswith("games[0].evaluation_episodes")
    assert "held_out = true" in str(err.value)


def test_a_model_policy_without_a_key_points_at_the_league_files_base_url(
        write_league: Callable[..., Path], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A league has no ``--base-url`` flag: the hint names the policy's ``base_url`` key."""
    from cogleague.league.runner import check_models

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (tmp_path / "fair.txt").write_text("Play fair.", encoding="utf-8")
    model = '[[policies]]\nname = "fair"\nprompt = "fair.txt"\nmodel = "gpt-4o-mini"\n'
    cfg = league_config.load(write_league(league_text(extra_policies=model)))
    with pytest.raises(ConfigError) as err:
        check_models(cfg)
    text = str(err.value)
    assert text.startswith("policy fair: OPENAI_API_KEY"), text
    assert "--base-url" not in text and "base_url" in text, text


TWO_GAME_BOT = '''
import cogleague


class Mine(cogleague.Bot):
    game = "dilemma"

    def on_turn(self, turn):
        return {"action": "cooperate"}
'''

TWO_GAMES = '''
[league]
name = "two"
episodes = 2

[[policies]]
name = "me"
bot = "mine.py:Mine"
{games}
[[policies]]
name = "base"
baseline = {{ dilemma = "tit_for_tat", commons = "steward" }}

[[games]]
name = "dilemma"
seats = 3

[[games]]
name = "commons"
'''


def test_a_bot_written_for_one_game_plays_only_that_game(tmp_path: Path) -> None:
    """A bot class that declares its game (`Bot.game`, as `cogleague bot new` writes it) sits
    only at that game's tables, as a policy file does: seated at the others, every episode
    failed (the seat refuses the table) and every later run played them again."""
    (tmp_path / "mine.py").write_text(TWO_GAME_BOT, encoding="utf-8")
    path = tmp_path / "league.toml"
    path.write_text(TWO_GAMES.format(games=""), encoding="utf-8")
    cfg = league_config.load(path)
    assert cfg.policy["me"].games == ("dilemma",)
    assert {s.game for s in cfg.schedule() if "me" in s.policies} == {"dilemma"}
    ran = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert ran.exit_code == 0 and "0 failed" in ran.output, ran.output


def test_a_bot_listed_for_a_game_it_was_not_written_for_is_refused(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(TWO_GAME_BOT, encoding="utf-8")
    path = tmp_path / "league.toml"
    path.write_text(TWO_GAMES.format(games='games = ["dilemma", "commons"]\n'),
                    encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        league_config.load(path)
    text = str(err.value)
    assert text.startswith("policies[0].games"), text
    assert "'commons'" in text and "written for dilemma" in text, text
