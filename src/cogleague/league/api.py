"""The league from Python: run a league file, read its standings — the same code as
`cogleague league run` and `cogleague league standings`.

    summary = cogleague.run_league("league.toml")            # resumable, like the CLI
    doc = cogleague.league_standings("league.toml")          # the standings document
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cogleague.core.config import check_bool, check_int
from cogleague.core.errors import ConfigError
from cogleague.league import config as league_config
from cogleague.league import runner
from cogleague.league.rankings.ranks import RESAMPLES_MAX, RESAMPLES_MIN


def run_league(path: str | Path, *, backend: str = "local", workers: int | None = None,
               ray_address: str | None = None, store: str | None = None,
               chunk_size: int | None = None, engine: str = "auto",
               retry_infra: bool = False) -> runner.RunSummary:
    """Play every episode of the league file not yet finished (with `retry_infra`, those
    stored as ``infra_error`` too); `ConfigError` naming the field for a bad file. `engine`:
    auto (baselines with a batch twin through the game's kernel), batch (all of them, or
    refuse) or rules. `workers` None: every core."""
    if workers is not None:
        check_int("workers", workers, 1, runner.WORKERS_MAX)
    check_bool("retry_infra", retry_infra)
    cfg = league_config.load(Path(path), store_url=store)
    pool = runner.make_backend(backend, os.cpu_count() or 1 if workers is None else workers,
                               ray_address)
    return runner.run(cfg, pool, chunk_size=chunk_size, engine=engine, retry_infra=retry_infra)


def league_standings(path: str | Path, *, game: str | None = None, store: str | None = None,
                     resamples: int = 2000) -> dict[str, Any]:
    """The standings document (`league/rankings/standings.py`) the CLI, report and
    Observatory render: the one `league standings --json` prints, held-out names revealed
    once the season is over and model costs priced by the file's ``prices``."""
    check_int("resamples", resamples, RESAMPLES_MIN, RESAMPLES_MAX)
    cfg = league_config.load(Path(path), store_url=store)
    if game is not None:
        check_game(cfg, game)
    missing = missing_store(cfg)
    if missing is not None:
        raise ConfigError("store", f"store: no store at {missing}: the league has not been run "
                                   "there (cogleague.run_league first, with the same store)")
    return standings_of(cfg, game=game, leagues=[cfg.name], resamples=resamples)


def missing_store(cfg: league_config.LeagueConfig) -> Path | None:
    """The SQLite file of `cfg`'s store when it does not exist, else None: a read never makes
    a store, so a mistyped one is said, not read as a league without episodes."""
    from sqlalchemy.engine import make_url

    from cogleague.server.sqlite_lock import sqlite_file

    if make_url(cfg.store_url).query.get("uri"):
        return None
    db = sqlite_file(cfg.store_url)
    return db if db is not None and not db.exists() else None


def check_game(cfg: league_config.LeagueConfig, game: str, field: str = "game") -> None:
    """`game` is one the league plays, or a `ConfigError` naming its games: a misspelt name
    would rank nothing and read as a league without episodes."""
    games = list(dict.fromkeys(g.name for g in cfg.games))
    if game not in games:
        raise ConfigError(field, f"{field} {game!r} is not a game of league {cfg.name!r} "
                                 f"(its games: {', '.join(games)})")


def standings_of(cfg: league_config.LeagueConfig, *, game: str | None, leagues: list[str],
                 resamples: int) -> dict[str, Any]:
    """`cfg`'s standings document, as every view of an offline league reads it."""
    from cogleague.league.rankings import standings_json

    return standings_json(cfg.store_url, game=game, leagues=leagues, resamples=resamples,
                          reveal_held_out=season_over(cfg), prices=prices_of(cfg),
                          held_out=cfg.held_out)


def season_over(cfg: league_config.LeagueConfig) -> bool:
    """The season ends when every scheduled episode is settled (held-out names show then): an
    ``infra_error`` episode is not, since ``league run --retry-infra`` plays it again."""
    return not runner.pending(cfg, retry_infra=True)[0]


def prices_of(cfg: league_config.LeagueConfig) -> Any:
    """The league's price table (``league.prices``), or None."""
    from cogleague.seats.llm.pricing import load_prices

    return load_prices(cfg.prices) if cfg.prices else None
