"""The grader (rules §8) and `cogleague grade`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cogleague.cli.grade  # noqa: F401  (registers `grade`)
from cogleague.cli import app
from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.core.errors import ReplayError
from cogleague.games.commons import make_game
from cogleague.games.commons.grade import gini, grade, synchrony
from cogleague.seats.factory import make_seats


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGLEAGUE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def replay(variant: str, lineup: list[str], **overrides: Any) -> tuple[Any, dict[str, Any]]:
    game = make_game(variant, overrides, None, lineup)
    outcome = play_headless(game, make_seats(game, lineup))
    return game, game.replay_document(outcome.log)


def test_steward_cleanup_figures() -> None:
    game, doc = replay("cleanup", ["steward"] * 6, rounds=6)
    g = grade(doc)
    assert g["welfare"] == pytest.approx(game.welfare(), abs=1e-12)
    assert g["optimum"] == g["optimum_welfare"]
    assert g["score"] == pytest.approx(g["welfare"] / g["optimum"])
    assert 0 < g["score"] <= 1
    assert g["survived"] and g["collapse_round"] is None and g["dead_patches"] == []
    assert g["synchrony_same_action_rate"] == 1.0  # six identical stewards
    assert g["harvest_gini"] == pytest.approx(0.0)
    effort = sum(rec["public_effort"] for rec in doc["rounds"])
    assert g["public_effort_share"] == pytest.approx(effort / (6 * 6 * 3))


def test_free_riders_kill_open_harvest() -> None:
    _, doc = replay("harvest-open", ["free_rider"] * 6)
    g = grade(doc)
    assert not g["survived"]
    assert g["dead_patches"] == [0, 1, 2, 3, 4, 5]
    assert g["collapse_round"] is not None
    assert g["exact"] and g["optimum"] == pytest.approx(312.0)


def test_cleaner_effort_share_is_one_third() -> None:
    _, doc = replay("mushrooms", ["cleaner"] * 6)
    assert grade(doc)["public_effort_share"] == pytest.approx(1 / 3)


def test_grader_uses_the_replay_seed() -> None:
    _, doc = replay("harvest-closed", ["steward"] * 6, rounds=3)
    assert grade(doc)["seed"] == doc["seed"]


def test_gini_and_synchrony() -> None:
    assert gini([0.0, 0.0]) is None
    assert gini([1.0, 1.0, 1.0]) == 0.0
    assert gini([0.0, 0.0, 3.0]) == pytest.approx(12 / (2 * 3 * 3))  # ordered pairs
    rounds = [{"decisions": [{"slot": 0, "eat": 1}, {"slot": 1, "eat": 1},
                             {"slot": 2, "eat": 2}]}]
    assert synchrony(rounds, "eat") == pytest.approx(1 / 3)
    assert synchrony([], "eat") is None


def test_zero_round_replay() -> None:
    _, doc = replay("cleanup", ["steward"] * 6, rounds=1)
    doc["rounds"] = []
    g = grade(doc)
    assert g["welfare"] == pytest.approx(60.0)
    assert g["public_effort_share"] is None and g["synchrony_same_action_rate"] is None


@pytest.mark.parametrize("bad", [{"format": "ledger"}, [], {"format": "commons-family/1"},
                                 {"format": "commons-family/1", "config": {"module": "x"}}])
def test_bad_documents_raise(bad: Any) -> None:
    with pytest.raises(ReplayError):
        grade(bad)


def test_cli_grade(tmp_path: Path) -> None:
    _, doc = replay("cleanup", ["steward"] * 6, rounds=4)
    path = tmp_path / "replay.json"
    jsonio.write(path, doc)
    runner = CliRunner()
    out = runner.invoke(app, ["grade", str(path), "--json"])
    assert out.exit_code == 0, out.output
    figures = json.loads(out.stdout)
    assert figures["welfare"] == pytest.approx(grade(doc)["welfare"])
    table = runner.invoke(app, ["grade", str(path)])
    assert table.exit_code == 0 and "public_effort_share" in table.stdout


@pytest.mark.parametrize("content", [None, "{nope", '{"format": "x"}'])
def test_cli_grade_bad_file(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    out = CliRunner().invoke(app, ["grade", str(path)])
    assert out.exit_code == 2
    assert "REPLAY" in out.output and "Traceback" not in out.output
