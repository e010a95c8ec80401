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


def entries(stdout: str) -> dict[str, str]:
    """Each game's block of `cogleague games` (its name line and the indented lines under it),
    joined into one line of words."""
    blocks: dict[str, list[str]] = {}
    name = None
    for line in stdout.splitlines()[1:]:
        if line.startswith("  ") and not line.startswith("   "):
            name, _, rest = line.strip().partition(" ")
            blocks[name] = [rest.strip()]
        elif name is not None:
            blocks[name].append(line.strip())
    return {n: " ".join(lines) for n, lines in blocks.items()}


def test_each_game_has_its_line_with_title_seats_description_and_variants(
        listed: dict[str, dict[str, Any]]) -> None:
    done = run_cli("games", "--verbose", columns=200)
    assert done.returncode == 0, done.stderr
    found = entries(done.stdout)
    assert set(found) == set(listed)
    for name, game in listed.items():
        text = found[name]
        assert text.startswith(f"{game['title']} ({seats(game)} seat"), text
        assert game["tagline"] in text and game["tagline"], name
        assert "variants: " + ", ".join(game["variants"]) in text
        assert f"version {game['rules_version']};" in text and game["origin"] in text


def test_at_80_columns_every_line_fits_and_nothing_is_cut(
        listed: dict[str, dict[str, Any]]) -> None:
    """The description wraps under its game, never past 80 columns, and says it all."""
    done = run_cli("games", columns=80)
    assert done.returncode == 0, done.stderr
    assert all(len(line) <= 80 for line in done.stdout.splitlines()), done.stdout
    assert "…" not in done.stdout
    found = entries(done.stdout)
    for name in BUILT_IN:
        game = listed[name]
        assert f"{game['title']} ({seats(game)} seat" in found[name]
        assert game["tagline"] in found[name]
        assert "variants: " + ", ".join(game["variants"]) in found[name]
