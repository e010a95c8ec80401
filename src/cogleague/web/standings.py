"""Standings per game for the Observatory, straight from the league's rankings.

The Observatory shows exactly what `cogleague league standings` prints: the league's
`standings_json` document (mean episode score with a bootstrap 95 % interval per game and
variant, the game's extra columns, ranks only where intervals separate, and the cross-game
Bradley–Terry / OpenSkill ratings). Server tables and league runs share one store; its URL comes
from the app (`app.state.settings.db_url` under `cogleague serve`, or
`app.state.cogleague_store_url`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from typing import Any

from cogleague.games import registry
from cogleague.league import gamestats, store
from cogleague.league.episodes import EpisodeRecord
from cogleague.league.rankings.standings import standings as league_standings
from cogleague.web import scales

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

    `tables` and `overall` are the league document's (see `league/rankings/standings.py`),
    but a variant played at several scales has one table per scale, each with its
    ``options``: the scale options that set it apart (`scales.py`; ``{}`` for a variant played
    at one scale, ``{"options": "not recorded"}`` where the store does not know them).
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
    (its versions are seated as ``NAME@vN``), one table per variant and scale (`scales.py`)."""
    def shown(ep: EpisodeRecord) -> bool:
        return ep.league != season or not any(p.rsplit("@v", 1)[0] in hidden
                                              for p in ep.policies)

    keep = None if season is None or not hidden else shown
    # what `standings_json` does, with the episodes and the book loaded once for both passes
    episodes = [ep for ep in store.load_episodes(url, game=game) if keep is None or keep(ep)]
    book = store.load_policies(url, None)
    doc = league_standings(episodes, book, game=game, resamples=RESAMPLES)
    return _by_scale(url, game, doc, episodes, book)


def _by_scale(url: str, game: str, doc: dict[str, Any], episodes: list[EpisodeRecord],
              book: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """`doc` with each variant's table split by the options that change the score's scale
    (each table's ``options``: the ones that set it apart, ``{}`` when its variant was played
    at one scale). The cross-game ratings compare seats within an episode: they keep all."""
    for table in doc["tables"]:
        table["options"] = {}
    keys = scales.episode_keys(url, game, episodes)
    by_variant: dict[str, dict[scales.Key, list[EpisodeRecord]]] = defaultdict(
        lambda: defaultdict(list))
    for ep in episodes:
        by_variant[gamestats.played_variant(game, ep.variant) or ""][keys[ep.id]].append(ep)
    split = {v: groups for v, groups in by_variant.items() if len(groups) > 1}
    if not split:
        return doc
    tables: list[dict[str, Any]] = []
    for table in doc["tables"]:
        groups = split.get(table["variant"] or "")
        if groups is None:
            tables.append(table)
            continue
        names = scales.differing(groups)
        parts = []
        for key, eps in groups.items():
            options = scales.label(key, names)
            for part in league_standings(eps, book, game=game, resamples=RESAMPLES)["tables"]:
                part["options"] = options
                parts.append(part)
        parts.sort(key=lambda t: [(type(v).__name__, v) for v in t["options"].values()])
        tables.extend(parts)
    return {**doc, "tables": tables}
