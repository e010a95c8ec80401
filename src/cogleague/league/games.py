"""Find a game's descriptor: the registry's, or a module's ``GAME`` registered on the way.

Kept apart from `config` so that workers (pool processes, Ray tasks) import only what playing
needs — not the store, not the database driver.
"""

from __future__ import annotations

from cogleague.core.descriptor import GameDescriptor
from cogleague.games import registry


def resolve_game(name: str, module: str | None = None) -> GameDescriptor:
    """The descriptor of an installed game, or of `module`'s ``GAME`` (plugins under
    development, tests), registered through the one registry."""
    if module is not None:
        return registry.register_module(module)
    return registry.get(name)
