"""The command line answers before it imports what it does not need: `cogleague --help` is
written from the command list alone (equal to what click would write); the common argument
errors (`cli/precheck.py`: an unknown command or game, an option without its value, a flag
given one) are told without typer, pydantic, typing or any game, each equal to what click
writes; and any other argument error (a `--seed` that is no integer: its message names the
game's seed range) of `cogleague play GAME` loads only that game — not
the other games, SQLAlchemy, the server, rich or numpy. (How fast that is:
`benchmarks/cli_startup.py`.)"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest
from typer import _click as click
from typer.testing import CliRunner

from cogleague.cli import app, precheck
from cogleague.cli.precheck import SHARED, answer
from cogleague.cli.root import load_command
from cogleague.games import registry

PROBE = """
import json, sys
before = set(sys.modules)
from cogleague.cli import main
try:
    main({argv!r})
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({{"code": code, "modules": sorted(set(sys.modules) - before)}}))
"""


def loaded(*argv: str) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=list(argv))],
                          capture_output=True, text=True, timeout=120, check=False)
    last = done.stdout.strip().splitlines()[-1]
    doc = json.loads(last)
    return doc["code"], set(doc["modules"])  # those the command imported


CLICKED = """
import json
from typer.testing import CliRunner
from cogleague.cli import app, top_help
clicked = CliRunner().invoke(app, ["--help"], prog_name="cogleague", terminal_width=80)
print(json.dumps({"code": clicked.exit_code, "clicked": clicked.output, "ours": top_help()}))
"""


def test_the_top_help_is_what_click_writes() -> None:
    # in a fresh process: once a command's module is loaded, click lists that command's own
    # help, which `cogleague --help` (written before any is loaded) never shows
    done = subprocess.run([sys.executable, "-c", CLICKED], capture_output=True, text=True,
                          timeout=120, check=True)
    doc = json.loads(done.stdout.strip().splitlines()[-1])
    assert doc["code"] == 0
    assert doc["ours"] == doc["clicked"]


def test_help_imports_no_typer() -> None:
    code, modules = loaded("--help")
    assert code == 0
    assert "typer" not in modules and "click" not in modules
    assert not any(m.startswith("cogleague.games.") for m in modules)


def test_an_argument_error_of_a_games_own_option_loads_only_that_game() -> None:
    code, modules = loaded("play", "ledger", "--rounds", "x")
    assert code == 2
    assert "cogleague.games.ledger.descriptor" in modules
    heavy = ("cogleague.games.commons", "cogleague.games.dilemma", "cogleague_threshold",
             "sqlalchemy", "cogleague.server", "rich", "numpy", "cogleague.league", "httpx")
    assert not [m for m in modules if m.startswith(heavy)], sorted(
        m for m in modules if m.startswith(heavy))


WITHOUT_TYPER = ("typer", "click", "pydantic", "typing", "importlib.metadata", "cogleague.games.",
                 "cogleague.core.descriptor", "rich", "numpy", "sqlalchemy")


@pytest.mark.parametrize("argv", [["play", "ledger", "--strict=x"], ["play", "commons", "--seed"],
                                  ["play", "nosuch", "--seed", "3"], ["bogus"]])
def test_a_common_argument_error_imports_neither_typer_nor_a_game(argv: list[str]) -> None:
    code, modules = loaded(*argv)
    assert code == 2
    assert not [m for m in modules if m.startswith(WITHOUT_TYPER)], sorted(
        m for m in modules if m.startswith(WITHOUT_TYPER))


def test_the_games_listed_without_the_registry_are_the_registrys() -> None:
    assert precheck.GROUP == registry.GROUP
    names = sorted({ep.name for ep in registry._entry_points()})  # not those made by hand
    assert {"commons", "dilemma", "ledger", "threshold"} <= set(names)
    assert precheck.listed_names() == names
    assert not precheck._listed("nosuch")


def test_a_game_registered_by_hand_is_no_unknown_game() -> None:
    desc = registry.get("dilemma")
    registry.register(replace(desc, name="handmade"))
    try:
        told = answer(["play", "handmade", "--seed"], prog="cogleague")
    finally:
        registry._loaded.pop("handmade")
    assert told is not None and "Option '--seed' requires an argument" in told


# Each told by `cli/precheck.py`; click must tell each the same.
TOLD = [
    ["bogus"],
    ["Play", "ledger"],
    ["ply"],
    ["play", "ledgr"],
    ["play", "nosuch"],
    ["play", "nosuch", "--seed", "x"],
    ["play", "threshold", "--seed"],
    ["play", "commons", "--out", "o", "--model", "m", "--strict", "--seed"],
    ["play", "ledger", "--seed"],
    ["play", "ledger", "--strict", "--out"],
    ["play", "ledger", "--strict=yes", "--seed", "x"],
    ["play", "ledger", "--replay-or-live=1"],
    ["play", "ledger", "--overwrite=no"],
]
# Left to typer: a game's own option, help, a value click might read as a number or an option.
LEFT = [
    [], ["--help"], ["play"], ["play", "--help"], ["play", "ledger"],
    ["play", "ledger", "--seed", "7"], ["play", "ledger", "--rounds", "x"],
    ["play", "ledger", "--seed", "2.5"], ["play", "ledger", "--seed", "-1"],
    ["play", "ledger", "--seed", "1e3"], ["play", "ledger", "--seed", "inf"],
    ["play", "ledger", "--seed", "x", "--help"], ["play", "ledger", "extra", "--seed", "x"],
    ["play", "ledger", "--bogus", "--seed", "x"], ["play", "ledger", "-h"],
    ["play", "ledger", "--seed", "one", "--seed", "2"],  # no error: the last value counts
    # no integer: typer says so with the game's seed range (`test_cli_int_options.py`)
    ["play", "ledger", "--seed", "x"], ["play", "dilemma", "--seed=ten"],
    ["play", "ledger", "--seed", "2", "--seed", "two"],
]


@pytest.mark.parametrize("argv", TOLD, ids=" ".join)
def test_a_told_error_is_what_click_writes(argv: list[str]) -> None:
    ours = answer(argv, prog="cogleague")
    clicked = CliRunner().invoke(app, argv, prog_name="cogleague", terminal_width=80)
    assert ours is not None
    assert clicked.exit_code == 2
    assert ours == clicked.stderr


@pytest.mark.parametrize("argv", LEFT, ids=lambda argv: " ".join(argv) or "nothing")
def test_other_lines_are_left_to_typer(argv: list[str]) -> None:
    assert answer(argv, prog="cogleague") is None


def test_the_shared_options_are_every_games_own() -> None:
    play = load_command("play")
    for name in registry.names():
        command = play.get_command(click.Context(play), name)
        assert command is not None
        kinds = {}
        for param in command.params:
            if param.opts[0] in SHARED:
                kind = param.type_descriptor.annotation
                kinds[param.opts[0]] = ("flag" if getattr(param, "is_flag", False)
                                        else "int" if kind is int else "text")
        assert kinds == SHARED, name
