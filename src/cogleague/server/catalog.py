"""Which games this server offers: the registry's games plus any extra ones from the settings.

A game package that fails to import (still under construction) is left out of `GET /games`
instead of breaking the server.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from cogleague.games import registry
from cogleague.games.registry import GameInfo
from cogleague.server.errors import ApiError


class Catalog:
    def __init__(self, extra: dict[str, str] | None = None) -> None:
        self.extra = dict(extra or {})
        self._cache: dict[str, GameInfo] = {}

    def names(self) -> list[str]:
        return registry.names() + [n for n in self.extra if n not in registry.names()]

    def get(self, name: str) -> GameInfo:
        """The game, or a `not_found`/`bad_request` API error naming the known ones."""
        if name in self._cache:
            return self._cache[name]
        if not isinstance(name, str) or name not in self.names():
            raise ApiError(400, "bad_request",
                           f"game must be one of {', '.join(self.names())} (got {name!r})")
        try:
            if name in self.extra:
                info: GameInfo = importlib.import_module(self.extra[name]).GAME
            else:
                info = registry.get(name)
        except (ImportError, AttributeError) as exc:
            raise ApiError(404, "not_found", f"game {name} is not available ({exc})") from exc
        self._cache[name] = info
        return info

    def available(self) -> list[GameInfo]:
        out = []
        for name in self.names():
            try:
                out.append(self.get(name))
            except ApiError:
                continue
        return out

    def describe(self, info: GameInfo) -> dict[str, Any]:
        return {"name": info.name, "title": info.title, "rules_version": info.rules_version,
                "variants": list(info.variants), "baselines": list(info.baselines),
                "seat_range": list(info.seat_range), "fallback_baseline": info.fallback_baseline,
                "paid_tables": info.name == "dilemma", "rules": f"/rules/{info.name}"}

    def rules_path(self, info: GameInfo) -> Path | None:
        """`GameInfo.rules_file`, absolute or relative to the game's package directory."""
        if not info.rules_file:
            return None
        path = Path(info.rules_file)
        if not path.is_absolute():
            module = self.extra.get(info.name) or f"cogleague.games.{info.name}"
            pkg = importlib.import_module(module)
            base = Path(pkg.__file__ or ".").parent
            path = base / path
        return path if path.is_file() else None
