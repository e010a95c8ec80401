"""Which stored episodes share a score's scale, so the Observatory never averages across scales.

A mean episode score is only a mean of like with like: a 3-round table's points and a 20-round
table's are on different scales (so are tables with other seats or payoffs). An episode's
*scale options* are its game options except those the game's descriptor declares as not
touching the score: the person-table deadlines (`human_config`), the stake and rake
(`paid_tables`), the connect timeout's option, and the seed and variant (the variant has a table
of its own already). Hosts never name a game; the descriptor tells.

Server tables keep the public config they were made with (the server store's ``tables.info``,
read here and never written); an offline league keeps each game and variant's overrides
(`league/store.py` ``stored_options``), which the game itself turns into its public config.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Engine, inspect, select

from cogleague.core.descriptor import GameDescriptor
from cogleague.games import registry
from cogleague.league import store
from cogleague.league.episodes import EpisodeRecord

Key = tuple[tuple[str, Any], ...]
"""An episode's scale options, flattened (``payoffs.reward``) and sorted; hashable."""
UNKNOWN: Key = (("options", "not recorded"),)
"""The key of an episode whose options this store does not hold (an older store)."""


def neutral_options(desc: GameDescriptor) -> frozenset[str]:
    """The options the descriptor declares as leaving the score's scale alone."""
    names = {"seed", "variant", *desc.human_config}
    if desc.paid_tables is not None:
        names |= {desc.paid_tables.stake_field, desc.paid_tables.rake_field}
    if desc.connect_timeout is not None and desc.connect_timeout.option is not None:
        names.add(desc.connect_timeout.option)
    return frozenset(names)


def scale_key(desc: GameDescriptor, config: Mapping[str, Any]) -> Key:
    """The scale options of a public config."""
    neutral = neutral_options(desc)
    out: list[tuple[str, Any]] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping):
            for k in sorted(value):
                walk(f"{prefix}.{k}" if prefix else str(k), value[k])
        else:
            out.append((prefix, json.dumps(value) if isinstance(value, list) else value))

    walk("", {k: v for k, v in config.items() if k not in neutral})
    return tuple(out)


def episode_keys(url: str, game: str, episodes: Iterable[EpisodeRecord]) -> dict[str, Key]:
    """Each episode's scale key, by episode id."""
    desc = registry.get(game)
    engine = store.engine_for(url)
    tables = _server_configs(engine, game)
    league_overrides: dict[str, dict[tuple[str, str | None], str]] = {}
    league_keys: dict[tuple[str, str | None], Key] = {}
    out: dict[str, Key] = {}
    for ep in episodes:
        if ep.id in tables:
            out[ep.id] = scale_key(desc, tables[ep.id])
            continue
        if ep.league not in league_overrides:
            league_overrides[ep.league] = store.stored_options(engine, ep.league)
        text = league_overrides[ep.league].get((game, ep.variant))
        if text is None:
            out[ep.id] = UNKNOWN
            continue
        if (ep.league, ep.variant) not in league_keys:
            played = desc.new_game(ep.variant, json.loads(text), ep.seed)
            league_keys[(ep.league, ep.variant)] = scale_key(desc, played.public_config())
        out[ep.id] = league_keys[(ep.league, ep.variant)]
    return out


def _server_configs(engine: Engine, game: str) -> dict[str, dict[str, Any]]:
    """The public config of each server table of `game`, by its episode id (an aborted
    table's failed episode is grouped with its finished peers)."""
    from cogleague.server.store import tables

    if not inspect(engine).has_table(tables.name):  # a league-only store
        return {}
    query = select(tables.c.id, tables.c.info).where(tables.c.game == game)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    return {store.episode_id_for_table(tid, store.SOURCE_SERVER):
            dict(json.loads(info).get("public_config") or {}) for tid, info in rows}


def differing(keys: Iterable[Key]) -> list[str]:
    """The option names whose values differ between the known `keys` (what sets their groups
    apart; an `UNKNOWN` key is told apart by itself)."""
    groups = [key for key in keys if key != UNKNOWN]
    seen: dict[str, set[str]] = {}
    for key in groups:
        for name, value in key:
            seen.setdefault(name, set()).add(json.dumps(value))
    return sorted(n for n in seen
                  if len(seen[n]) > 1 or any(n not in dict(k) for k in groups))


def label(key: Key, names: Iterable[str]) -> dict[str, Any]:
    """A group's options as its table names them: the `names` that set it apart."""
    if key == UNKNOWN:
        return dict(UNKNOWN)
    wanted = set(names)
    return {n: v for n, v in key if n in wanted}
