"""Standings per game for the Observatory, straight from the league's rankings.

The Observatory shows exactly what `cogleague league standings` prints: the league's
`standings_json` document (mean episode score with a bootstrap 95 % interval per game and
variant, the game's extra columns, ranks only where intervals separate, and the cross-game
Bradley–Terry / OpenSkill ratings). Server tables and league runs share one store; its URL comes
from the app (`app.state.settings.db_url` under `cogleague serve`, or
`app.state.cogleague_store_url`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from cogleague.games import registry
from cogleague.league.episodes import EpisodeRecord
from cogleague.league.rankings.standings import standings_json

STORE_URL_STATE = "cogleague_store_url"
RESAMPLES = 1000
"""Bootstrap resamples for a page view: enough for stable 95 % bounds, quick to compute."""


def store_url(app: Any) -> str | None:
    url = getattr(app.state, STORE_URL_STATE, None)
    if url:
        return str(url)
    settings = getattr(app.state, "settings", None)
    return getattr(settings, "db_url", None)


def standings(url: str | None, game: str | None, season: str | None = None,
              hidden: Collection[str] = ()) -> dict[str, Any]:
    """`{games: [{game, title, variants, default_variant, episodes, no_players, tables,
    overall}], source}` for one game or all (`no_players`: episodes nobody connected to,
    counted apart and never ranked; `variants` and `default_variant` tell a page whether a
    table's null variant is a game without variants or one not known).

    `tables` and `overall` are the league document's (see `league/rankings/standings.py`).
    `hidden` names the running `season`'s held-out agents: the tables they sat at are left
    out until the season ends, as the season's board and those tables' documents keep them."""
    games = registry.names()
    if game is not None and game not in games:
        raise ValueError(f"game must be one of {', '.join(games)} (got {game!r})")
    out = []
    for name in [game] if game else games:
        doc = (_document(url, name, season, hidden) if url
               else {"episodes": {"ok": 0}, "tables": [], "overall": None})
        desc = registry.get(name)
        out.append({"game": name, "title": desc.title, "variants": list(desc.variants),
                    "default_variant": desc.default_variant,
                    "episodes": doc["episodes"]["ok"],
                    "no_players": doc["episodes"].get("no_players", 0),
                    "tables": doc["tables"],
                    "overall": doc["overall"] if doc["tables"] else None})
    return {"games": out, "source": "store" if url else None}


def _document(url: str, game: str, season: str | None, hidden: Collection[str]) -> dict[str, Any]:
    """`standings_json` for `game`, without the `season`'s tables a `hidden` agent sat at
    (its versions are seated as ``NAME@vN``)."""
    if season is None or not hidden:
        return standings_json(url, game=game, resamples=RESAMPLES)

    def shown(ep: EpisodeRecord) -> bool:
        return ep.league != season or not any(p.rsplit("@v", 1)[0] in hidden
                                              for p in ep.policies)

    return standings_json(url, game=game, resamples=RESAMPLES, keep=shown)
