"""Standings per game for the Observatory: each policy's mean episode score over finished
episodes (server tables and league runs share one store), with a 95 % interval.

The store is read through the league's own function (`cogleague.league.store.load_episodes`);
its URL comes from the app (`app.state.settings.db_url` under `cogleague serve`, or
`app.state.cogleague_store_url`). The league's reports may rank with more (OpenSkill,
bootstrap); this page shows what the seeds rank by: the mean score.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from cogleague.games import registry

STORE_URL_STATE = "cogleague_store_url"
Z_95 = 1.96
"""Normal approximation for the interval of a mean (shown only with two or more episodes)."""


def store_url(app: Any) -> str | None:
    url = getattr(app.state, STORE_URL_STATE, None)
    if url:
        return str(url)
    settings = getattr(app.state, "settings", None)
    return getattr(settings, "db_url", None)


def _ranked(scores: dict[str, list[float]]) -> list[dict[str, Any]]:
    rows = []
    for policy, xs in scores.items():
        n = len(xs)
        mean = sum(xs) / n
        ci = None
        if n >= 2:
            var = sum((x - mean) ** 2 for x in xs) / (n - 1)
            ci = Z_95 * math.sqrt(var / n)
        rows.append({"policy": policy, "episodes": n, "mean": mean, "ci95": ci,
                     "best": max(xs), "worst": min(xs)})
    rows.sort(key=lambda r: (-r["mean"], r["policy"]))
    for row in rows:  # competition ranking: equal means share a rank
        row["rank"] = 1 + sum(1 for other in rows if other["mean"] > row["mean"])
    return rows


def standings(url: str | None, game: str | None) -> dict[str, Any]:
    """`{games: [{game, title, episodes, policies: [...]}], source}` for one game or all."""
    games = registry.names()
    if game is not None and game not in games:
        raise ValueError(f"game must be one of {', '.join(games)} (got {game!r})")
    wanted = [game] if game else games
    try:
        from cogleague.league.store import load_episodes
    except ImportError:  # pragma: no cover - the league package ships with cogleague
        load_episodes = None
    out = []
    for name in wanted:
        scores: dict[str, list[float]] = defaultdict(list)
        episodes = 0
        if url and load_episodes is not None:
            for rec in load_episodes(url, game=name, status="ok"):
                episodes += 1
                for policy, score in zip(rec.policies, rec.results["scores"], strict=False):
                    scores[policy].append(float(score))
        try:
            title = registry.get(name).title
        except Exception:
            title = name
        out.append({"game": name, "title": title, "episodes": episodes,
                    "policies": _ranked(scores)})
    return {"games": out, "source": "store" if url else None}
