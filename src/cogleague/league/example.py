"""The example league `cogleague league init` writes, assembled from the installed games.

The commented template (`example.toml`) knows no game: each game's descriptor says how it
appears (`GameDescriptor.league_example`: which of its baselines plays each cross-game
archetype, and its ``[[games]]`` table), so a plugin game that declares one joins the example.
"""

from __future__ import annotations

import json
from importlib import resources
from string import Template
from typing import Any

from cogleague.games import registry

AUTHOR = "cogleague"


def _toml(value: Any) -> str:
    """A TOML value for the few shapes the example uses (strings, ints, lists of them)."""
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


def example_league() -> str:
    """The text of the example league file for the games installed here."""
    games = [d for d in registry.available() if d.league_example]
    archetypes: dict[str, dict[str, str]] = {}
    for desc in games:
        for archetype, baseline in desc.league_example.get("archetypes", {}).items():
            archetypes.setdefault(archetype, {})[desc.name] = baseline
    policies = []
    for archetype, by_game in archetypes.items():
        table = ", ".join(f"{game} = {_toml(b)}" for game, b in by_game.items())
        policies.append(f'[[policies]]\nname = {_toml(archetype)}\nauthor = {_toml(AUTHOR)}\n'
                        f"baseline = {{ {table} }}\n")
    tables = []
    for desc in games:
        fields = "".join(f"{key} = {_toml(value)}\n"
                         for key, value in desc.league_example.get("table", {}).items())
        tables.append(f"[[games]]\nname = {_toml(desc.name)}\n{fields}")
    template = resources.files("cogleague.league").joinpath("example.toml").read_text("utf-8")
    return Template(template).substitute(policies="\n".join(policies), games="\n".join(tables))
