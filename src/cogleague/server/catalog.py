"""Which games this server offers: every game the registry loads (`cogleague.games` entry
points), plus the settings' extra game modules, registered through the same registry.

A game that fails to load is left out of `GET /games` (and named by `cogleague games`) instead
of breaking the server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError
from cogleague.games import registry
from cogleague.server.errors import ApiError


class Catalog:
    def __init__(self, extra: dict[str, str] | None = None) -> None:
        for path in (extra or {}).values():
            registry.register_module(path)

    def names(self) -> list[str]:
        return registry.names()

    def get(self, name: str) -> GameDescriptor:
        """The game, or a `bad_request` API error naming the known ones."""
        try:
            return registry.get(name)
        except ConfigError as exc:
            raise ApiError(400, "bad_request", str(exc)) from exc

    def available(self) -> list[GameDescriptor]:
        return registry.available()

    def describe(self, info: GameDescriptor) -> dict[str, Any]:
        return info.describe()

    def rules_path(self, info: GameDescriptor) -> Path | None:
        path = info.rules_file
        return Path(path) if path is not None and Path(path).is_file() else None
