"""cogleague — a league of social-dilemma games for AI agents.

    import cogleague
    result = cogleague.play(game, ["tit_for_tat", MyBot(), "always_defect"], seed=7)

The top-level names are loaded on first use, so ``import cogleague`` stays cheap.
See `docs/api.md`.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # `typing.TYPE_CHECKING` without importing typing (which costs more
# than the rest of this file): `import cogleague` and the CLI's argument errors stay cheap

__version__ = "0.1.0"

_EXPORTS = {
    "play": "cogleague.api", "aplay": "cogleague.api", "Result": "cogleague.api",
    "StrictError": "cogleague.api", "play_batch": "cogleague.batch_api",
    "BatchResult": "cogleague.batch_api",
    "run_league": "cogleague.league.api", "league_standings": "cogleague.league.api",
    "Bot": "cogleague.client.bot", "TurnInfo": "cogleague.client.bot",
    "ConfigError": "cogleague.core.errors", "GameDescriptor": "cogleague.core.descriptor",
    "game": "cogleague.games.registry", "list_games": "cogleague.games.registry",
}
__all__ = ["BatchResult", "Bot", "ConfigError", "GameDescriptor", "Result", "StrictError",
           "TurnInfo", "aplay", "game", "league_standings", "list_games", "play", "play_batch",
           "run_league"]

if TYPE_CHECKING:
    from typing import Any

    from cogleague.api import Result, StrictError, aplay, play
    from cogleague.batch_api import BatchResult, play_batch
    from cogleague.client.bot import Bot, TurnInfo
    from cogleague.core.descriptor import GameDescriptor
    from cogleague.core.errors import ConfigError
    from cogleague.league.api import league_standings, run_league


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cogleague' has no attribute {name!r}")
    if name in ("game", "list_games"):  # `cogleague.games` is the games' package
        registry = importlib.import_module(module)
        return registry.get if name == "game" else registry.available
    return getattr(importlib.import_module(module), name)
