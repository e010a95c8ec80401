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
