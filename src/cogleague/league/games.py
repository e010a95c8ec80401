"""Find a game's `GameInfo`: the registry's, or a module's ``GAME`` for games outside it.

Kept apart from `config` so that workers (pool processes, Ray tasks) import only what playing
needs — not the store, not the database driver.
"""

from __future__ import annotations

import importlib

from cogleague.core.errors import ConfigError
from cogleague.games import registry
from cogleague.games.registry import GameInfo


def resolve_game(name: str, module: str | None = None) -> GameInfo:
    """The `GameInfo` of a registered game, or of `module`'s ``GAME`` (plugins, tests)."""
    if module is None:
        return registry.get(name)
    try:
        info: GameInfo = importlib.import_module(module).GAME
    except (ImportError, AttributeError) as exc:
        raise ConfigError("module", f"module {module!r} must expose GAME ({exc})") from exc
    return info
