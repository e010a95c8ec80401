"""`cogleague games` and `cogleague games --json` list every installed game with its version,
variants, seat range and where it came from (the real CLI in a child process)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cogleague.games import registry
from seam.support import run_cli

BUILT_IN = ("commons", "dilemma", "ledger")


@pytest.fixture(scope="module")
def listed() -> dict[str, dict[str, Any]]:
    done = run_cli("games", "--json")
    assert done.returncode == 0, done.stderr
    return {g["name"]: g for g in json.loads(done.stdout)["games"]}


def seats(desc: dict[str, Any]) -> str:
    lo, hi = desc["seat_range"]
    return str(lo) if lo == hi else f"{lo}..{hi}"


@pytest.mark.parametrize("name", BUILT_IN)
def test_json_lists_each_built_in_game_as_its_descriptor_says(
        name: str, listed: dict[str, dict[str, Any]]) -> None:
    desc = registry.get(name)
    game = listed[name]
    assert game["rules_version"] == desc.version
    assert game["variants"] == list(desc.variants) and game["variants"]
    assert game["seat_range"] == list(desc.seat_range)
    assert game["origin"] == desc.origin
    assert game["origin"].startswith(f"entry point {name} = cogleague.games.{name}.")
    assert game["replay_format"] == desc.replay_format
    assert game["options"] == desc.options.model_json_schema()


def test_json_describes_every_listed_game(listed: dict[str, dict[str, Any]]) -> None:
    assert set(BUILT_IN) <= set(listed)
    for name, game in listed.items():
        lo, hi = game["seat_range"]
        assert 1 <= lo <= hi, name
        assert game["rules_version"] and game["origin"] and game["variants"] is not None


def test_table_has_one_row_per_game_with_version_variants_seats_and_origin(
        listed: dict[str, dict[str, Any]]) -> None:
    done = run_cli("games")
    assert done.returncode == 0, done.stderr
    rows = {cells[0]: cells for cells in (
        [c.strip() for c in line.split("│")[1:-1]]
        for line in done.stdout.splitlines() if line.startswith("│"))}
    assert set(rows) == set(listed)
    for name, game in listed.items():
        _, title, version, variants, seat_text, _caps, origin = rows[name]
        assert title == game["title"]
        assert version == game["rules_version"]
        assert variants == ", ".join(game["variants"])
        assert seat_text == seats(game)
        assert origin == game["origin"]


def test_a_narrow_terminal_folds_cells_instead_of_cutting_them() -> None:
    """At 80 columns every origin is still there in full, folded over lines."""
    done = run_cli("games", columns=80)
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    by_column: dict[int, str] = {}
    for line in done.stdout.splitlines():
        if line.startswith("│"):
            for i, cell in enumerate(line.split("│")[1:-1]):
                by_column[i] = by_column.get(i, "") + cell.strip()
    for name in BUILT_IN:
        assert registry.get(name).origin.replace(" ", "") in by_column[6].replace(" ", "")
