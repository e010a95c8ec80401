"""`cogleague play GAME --help` offers one option per scalar field of the game's config model,
for every installed game (the list comes from `cogleague games --json` in the same kind of
child process, so it is what a user's install has)."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import BaseModel

from cogleague.core.options import base_type, cli_name
from cogleague.games import registry
from seam.support import run_cli

SCALARS = (int, float, str, bool)


def installed() -> list[str]:
    done = run_cli("games", "--json")
    assert done.returncode == 0, done.stderr
    return [g["name"] for g in json.loads(done.stdout)["games"]]


def scalar_flags(options: type[BaseModel]) -> list[str]:
    return [cli_name(options, field) for field, info in options.model_fields.items()
            if base_type(info.annotation) in SCALARS]


def offered(help_text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", help_text))


def test_every_installed_game_has_a_play_command_listing_its_options() -> None:
    names = installed()
    assert {"commons", "dilemma", "ledger"} <= set(names)
    for name in names:
        done = run_cli("play", name, "--help")
        assert done.returncode == 0, done.stderr
        flags = offered(done.stdout)
        desc = registry.get(name)
        expected = scalar_flags(desc.options)
        assert expected, f"{name} declares no scalar option"
        missing = [f for f in expected if f not in flags]
        assert not missing, f"play {name} --help lacks {missing}"
        for field, info in desc.options.model_fields.items():
            if base_type(info.annotation) is bool:
                assert f"--no-{cli_name(desc.options, field)[2:]}" in flags
        assert {"--variant", "--seed", "--seats", "--out"} <= flags


@pytest.mark.parametrize(("game", "flag"), [("dilemma", "--rounds"), ("commons", "--module"),
                                            ("ledger", "--decision-timeout-s")])
def test_a_flag_may_differ_from_its_field(game: str, flag: str) -> None:
    """``rounds_total`` is set with ``--rounds``; underscores become dashes."""
    assert flag in scalar_flags(registry.get(game).options)


def numeric_ranges(options: type[BaseModel]) -> dict[str, str]:
    """flag → ``lo..hi`` for every int or float option with both bounds declared (not
    ``--seats``: on the command line that is the line-up, whose length is the seat count)."""
    out = {}
    for field, info in options.model_fields.items():
        bounds = {k: getattr(m, k) for m in info.metadata for k in ("ge", "le") if hasattr(m, k)}
        if (base_type(info.annotation) in (int, float) and len(bounds) == 2
                and cli_name(options, field) != "--seats"):
            out[cli_name(options, field)] = f"{bounds['ge']:g}..{bounds['le']:g}"
    return out


@pytest.mark.parametrize("game", ["dilemma", "ledger", "commons", "threshold"])
def test_play_help_shows_each_numeric_options_range(game: str) -> None:
    """A newcomer reads the allowed values in `--help` instead of learning them from an
    error: every bounded number option's line ends with its range."""
    if registry.find(game) is None:
        pytest.skip(f"{game} is not installed")
    done = run_cli("play", game, "--help", columns=400)
    assert done.returncode == 0, done.stderr
    lines = {m.group(1): m.group(2) for m in
             re.finditer(r"(--[a-z][a-z0-9-]*)\s.*?<(?:int|float)>\s+(.*?)\s*│", done.stdout)}
    ranges = numeric_ranges(registry.get(game).options)
    assert ranges
    for flag, span in ranges.items():
        assert flag in lines, f"{flag} missing from play {game} --help"
        assert lines[flag].endswith(f"({span})"), (flag, lines[flag])


def test_play_help_names_a_bot_file_as_a_seat() -> None:
    """The README seats `my_bot.py:MyBot`; the help names that form and policy files."""
    done = run_cli("play", "dilemma", "--help", columns=400)
    text = " ".join(done.stdout.split())
    assert "FILE.py:CLASS" in text and "policy:PATH" in text, text


def test_play_help_offers_no_shell_completion() -> None:
    """`cogleague` itself offers no completion (root.py: ``add_completion=False``); a game's
    play command listed `--install-completion` and `--show-completion` among its options."""
    done = run_cli("play", "dilemma", "--help", columns=400)
    assert done.returncode == 0, done.stderr
    assert "completion" not in done.stdout, done.stdout
