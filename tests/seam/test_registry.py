"""The one loader (`games/registry.py`): the built-in games come through the `cogleague.games`
entry points like any plugin, and a broken plugin is named with its error without taking the
other games down. The plugins are a real distribution on a child process's path, so this
process's registry (which other tests extend) stays untouched."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest

from cogleague.games import registry
from seam.support import PLUGIN_DIST, install_plugins, run_cli, run_python

BUILT_IN = ("commons", "dilemma", "ledger")

REPORT = """
import json
from cogleague.games import registry
print(json.dumps({
    "games": {d.name: d.origin for d in registry.available()},
    "problems": {p.name: [p.origin, p.error] for p in registry.problems()},
}))
"""


def load_in_child(extra: tuple[Path, ...] = ()) -> dict[str, dict[str, object]]:
    done = run_python(REPORT, extra)
    assert done.returncode == 0, done.stderr
    report: dict[str, dict[str, object]] = json.loads(done.stdout)
    return report


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_plugins(tmp_path_factory.mktemp("plugins"))


@pytest.fixture(scope="module")
def plain() -> dict[str, dict[str, object]]:
    """What a fresh process loads with only the installed games."""
    return load_in_child()


@pytest.fixture(scope="module")
def with_plugins(plugins: Path) -> dict[str, dict[str, object]]:
    return load_in_child((plugins,))


@pytest.mark.parametrize("name", BUILT_IN)
def test_built_in_games_come_through_the_entry_point_group(
        name: str, plain: dict[str, dict[str, object]]) -> None:
    report = plain
    origin = str(report["games"][name])
    assert origin.startswith(f"entry point {name} = cogleague.games.{name}.descriptor:GAME ")
    assert origin.endswith(f"(cogleague {metadata.version('cogleague')})")
    assert name not in report["problems"]
    # The same in this process: the registry's table is the entry points' table.
    assert registry.get(name).origin == origin


def test_broken_plugins_are_named_with_their_errors(
        with_plugins: dict[str, dict[str, object]]) -> None:
    report = with_plugins
    problems = report["problems"]
    raising = problems["raising"]
    assert isinstance(raising, list)
    assert raising[0] == f"entry point raising = seam_plugins.raising:GAME ({PLUGIN_DIST} 0.3)"
    assert raising[1] == "RuntimeError: seam plugin exploded on import"
    not_a_game = problems["notagame"]
    assert isinstance(not_a_game, list)
    assert not_a_game[1] == ("TypeError: seam_plugins.notagame:GAME is not a cogleague "
                             "GameDescriptor (nor a module with GAME)")
    misnamed = problems["misnamed"]
    assert isinstance(misnamed, list)
    assert "'someone_else'" in misnamed[1] and "'misnamed'" in misnamed[1]
    for bad in ("raising", "notagame", "misnamed", "someone_else"):
        assert bad not in report["games"]


def test_a_broken_plugin_does_not_take_the_others_down(
        with_plugins: dict[str, dict[str, object]]) -> None:
    report = with_plugins
    games = report["games"]
    for name in BUILT_IN:
        assert str(games[name]).startswith(f"entry point {name} = ")
    # A good plugin beside the broken ones loads, from a module-valued entry point.
    assert games["dilemma_copy"] == (f"entry point dilemma_copy = seam_plugins.copy "
                                     f"({PLUGIN_DIST} 0.3)")


def test_asking_for_a_broken_game_says_why(plugins: Path) -> None:
    done = run_python("from cogleague.games import registry\nregistry.get('raising')\n",
                      (plugins,))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "cogleague.core.errors.ConfigError: game 'raising' is installed but failed to load: "
        "RuntimeError: seam plugin exploded on import")


def test_cogleague_games_reports_broken_plugins_and_lists_the_rest(plugins: Path) -> None:
    done = run_cli("games", extra_path=(plugins,))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    ours = [line for line in lines if "seam_plugins" in line]
    assert ours[0] == (f"error: game misnamed failed to load (entry point misnamed = "
                       f"seam_plugins.misnamed:GAME ({PLUGIN_DIST} 0.3)): ValueError: the "
                       "descriptor is named 'someone_else', the entry point 'misnamed'")
    assert ours[2] == (f"error: game raising failed to load (entry point raising = "
                       f"seam_plugins.raising:GAME ({PLUGIN_DIST} 0.3)): RuntimeError: seam "
                       "plugin exploded on import")
    assert len(ours) == 3 and "game notagame failed to load" in ours[1]
    listed = [row.split()[0] for row in done.stdout.splitlines()
              if row.startswith("  ") and not row.startswith("   ")]
    for name in (*BUILT_IN, "dilemma_copy"):
        assert name in listed


def test_cogleague_games_json_reports_problems(plugins: Path) -> None:
    done = run_cli("games", "--json", extra_path=(plugins,))
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    problems = {p["name"]: p for p in doc["problems"]}
    assert problems["raising"]["error"] == "RuntimeError: seam plugin exploded on import"
    assert problems["raising"]["origin"].endswith(f"({PLUGIN_DIST} 0.3)")
    assert {"raising", "notagame", "misnamed"} <= set(problems)
    assert {*BUILT_IN, "dilemma_copy"} <= {g["name"] for g in doc["games"]}


@pytest.mark.parametrize("args", [["play", "raising"], ["play", "raising", "--seed", "1"],
                                  ["bot", "new", "raising"]])
def test_playing_a_broken_game_says_why_not_no_such_command(args: list[str],
                                                            plugins: Path) -> None:
    """`cogleague play raising` said "No such command 'raising'. Did you mean 'raising'?":
    the name is installed, so the answer is its load error, as `cogleague games` gives it."""
    done = run_cli(*args, extra_path=(plugins,))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Did you mean 'raising'" not in done.stderr, done.stderr
    said = done.stderr.replace("GAME 'raising'", "game 'raising'")  # bot new names GAME
    assert "game 'raising' is installed but failed to load: RuntimeError: seam plugin " \
           "exploded on import" in said, done.stderr
