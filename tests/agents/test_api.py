"""The Python API (`cogleague.play`, `Result`, `run_league`) as an agent author calls it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cogleague
from cogleague.cli import app
from cogleague.core.errors import ConfigError


class Cooperator(cogleague.Bot):
    def on_turn(self, turn: cogleague.TurnInfo) -> dict[str, Any]:
        return {"action": "cooperate"}


BOT_FILE = '''
from cogleague import Bot

class Copycat(Bot):
    game = "dilemma"

    def on_turn(self, turn):
        state = turn.visible_state
        mine = next(p for p in state["pairings"] if p["opponent"] == state["opponent"])
        last = mine["history"][-1]["them"] if mine["history"] else "C"
        return {"action": "defect" if last == "D" else "cooperate"}
'''


def test_two_lines_play_a_game_with_every_kind_of_seat(tmp_path: Path) -> None:
    bot_file = tmp_path / "copycat.py"
    bot_file.write_text(BOT_FILE, encoding="utf-8")
    seats = ["tit_for_tat", Cooperator(), Cooperator, lambda turn: {"action": "defect"},
             f"{bot_file}:Copycat"]
    result = cogleague.play("dilemma", seats, seed=7, rounds=20)
    assert len(result.scores) == 5 and all(isinstance(s, float) for s in result.scores)
    assert result.scores == [float(s) for s in result.results["scores"]]
    assert result.fault_summary is None and result.results["faults"]["fallbacks"] == 0
    assert result.replay["format"] == "dilemma.replay.v1"
    assert result.results["seats"][4]["policy"].endswith("copycat.py:Copycat")
    # the same seed and seats give the same scores
    again = cogleague.play("dilemma", seats, seed=7, rounds=20)
    assert again.scores == result.scores


def test_a_baseline_line_up_matches_the_cli_bytes(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    done = CliRunner().invoke(app, ["play", "ledger", "--seed", "7", "--out", str(out)])
    assert done.exit_code == 0, done.output
    result = cogleague.play("ledger", seed=7)
    saved = result.save(tmp_path / "api")
    assert (saved / "replay.json").read_bytes() == (out / "replay.json").read_bytes()
    assert (saved / "results.json").read_bytes() == (out / "results.json").read_bytes()


def test_save_refuses_an_existing_run_unless_asked(tmp_path: Path) -> None:
    result = cogleague.play("dilemma", seed=1, rounds=2)
    result.save(tmp_path)
    with pytest.raises(FileExistsError, match="already holds a run"):
        result.save(tmp_path)
    result.save(tmp_path, overwrite=True)
    doc = json.loads((tmp_path / "replay.json").read_text(encoding="utf-8"))
    assert doc["format"] == "dilemma.replay.v1"
    verified = CliRunner().invoke(app, ["replay", "verify", str(tmp_path)])
    assert verified.exit_code == 0 and "verifies" in verified.output


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rounds": 0}, "rounds_total must be an integer in 1..1000 (got 0)"),
    ({"rounds_total": True}, "rounds_total must be an integer in 1..1000 (got True)"),
    ({"stake": -1}, "stake must be an integer in 0..1000000000 (got -1)"),
    ({"colour": "red"}, "colour is not a dilemma option setting"),
    ({"rounds": 3, "rounds_total": 4}, "rounds_total given twice"),
    ({"variant": "nope"}, "variant must be one of standard, classic200"),
])
def test_bad_options_raise_naming_the_field_and_range(kwargs: dict[str, Any],
                                                      message: str) -> None:
    with pytest.raises(cogleague.ConfigError, match=message.replace("(", r"\(")
                       .replace(")", r"\)")):
        cogleague.play("dilemma", **kwargs)


def test_bad_seats_raise_naming_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(cogleague.ConfigError, match=r"bot file .*missing\.py does not exist"):
        cogleague.play("dilemma", ["tit_for_tat", f"{tmp_path}/missing.py:X", "pavlov"])
    (tmp_path / "bots.py").write_text(BOT_FILE, encoding="utf-8")
    with pytest.raises(cogleague.ConfigError, match=r"has no class Nope \(Bot classes there: "
                                                    r"Copycat\)"):
        cogleague.play("dilemma", ["tit_for_tat", f"{tmp_path}/bots.py:Nope", "pavlov"])
    with pytest.raises(cogleague.ConfigError, match="was written for dilemma, this table plays "
                                                    "ledger"):
        cogleague.play("ledger", [f"{tmp_path}/bots.py:Copycat", "mirror", "shark", "grim",
                                  "saint", "opportunist", "mirror", "grim"])
    with pytest.raises(cogleague.ConfigError, match="unknown"):
        cogleague.play("commons", ["steward", "stewrd", "steward"])
    with pytest.raises(cogleague.ConfigError, match=r"seats must list 3\.\.8 policies"):
        cogleague.play("dilemma", ["tit_for_tat"])


def test_strict_raises_with_the_fault_summary() -> None:
    def crash(turn: cogleague.TurnInfo) -> dict[str, Any]:
        raise ValueError("my bug")

    with pytest.raises(cogleague.StrictError, match=r"fallbacks: seat 1 .* error"):
        cogleague.play("dilemma", ["tit_for_tat", crash, "pavlov"], rounds=1, strict=True)


async def test_aplay_works_inside_an_event_loop() -> None:
    result = await cogleague.aplay("dilemma", ["tit_for_tat", Cooperator(), "pavlov"], rounds=3)
    assert len(result.scores) == 3
    with pytest.raises(RuntimeError, match=r"await cogleague\.aplay"):
        cogleague.play("dilemma", ["tit_for_tat", Cooperator(), "pavlov"], rounds=3)


def test_the_league_from_python(tmp_path: Path) -> None:
    league = tmp_path / "league.toml"
    league.write_text(f'''
[league]
name = "api"
seed = 3
store = "sqlite:///{tmp_path / 'league.db'}"

[[policies]]
name = "tft"
baseline = "tit_for_tat"

[[policies]]
name = "defector"
baseline = "always_defect"

[[policies]]
name = "sucker"
baseline = "always_cooperate"

[[games]]
name = "dilemma"
episodes = 6
overrides = {{ rounds_total = 5 }}
''', encoding="utf-8")
    summary = cogleague.run_league(league, workers=1)
    assert summary.played == 6 and summary.failed == 0 and summary.infra == 0
    doc = cogleague.league_standings(league, resamples=200)
    (table,) = doc["tables"]
    assert {r["policy"] for r in table["rows"]} == {"tft", "defector", "sucker"}
    assert cogleague.run_league(league, workers=1).played == 0  # resumable: all done


def test_no_options_are_checked_once_and_a_bad_one_still_refused() -> None:
    """`prepare` remembers that no options validate for a game's model; a bad option given
    afterwards is still refused, naming its field."""
    first = cogleague.play("ledger", seed=3)
    assert cogleague.play("ledger", seed=3).replay_json == first.replay_json
    with pytest.raises(ConfigError, match="rounds"):
        cogleague.play("ledger", seed=3, rounds=999)
