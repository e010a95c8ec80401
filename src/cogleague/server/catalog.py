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
    def __init__(self, extra: dict[str, str] | None = None,
                 only: list[str] | None = None) -> None:
        for path in (extra or {}).values():
            registry.register_module(path)
        self.only = None if only is None else set(only) | set(extra or {})
        """Serve only these installed games (None: every one)."""

    def names(self) -> list[str]:
        return [n for n in registry.names() if self.only is None or n in self.only]

    def get(self, name: str) -> GameDescriptor:
        """The game, or a `bad_request` API error naming the known ones."""
        if self.only is not None and name not in self.only:
            raise ApiError(400, "bad_request", f"game must be one of {', '.join(self.names())} "
                                               f"(got {name!r})")
        try:
            return registry.get(name)
        except ConfigError as exc:
            raise ApiError(400, "bad_request", str(exc)) from exc

    def available(self) -> list[GameDescriptor]:
        return [d for d in registry.available() if self.only is None or d.name in self.only]

    def describe(self, info: GameDescriptor) -> dict[str, Any]:
        """`GET /games`' entry: the game's description and each variant's seat count with
        its default options (``variant_seats``), so a client checks a count of seats (`cogleague
        table new --open`) before it makes a table."""
        return {**info.describe(),
                "variant_seats": {v: info.seats_of(v, {}) for v in info.variants}}

    def rules_path(self, info: GameDescriptor) -> Path | None:
        path = info.rules_file
        return Path(path) if path is not None and Path(path).is_file() else None
