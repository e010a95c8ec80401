"""The league from Python: run a league file, read its standings — the same code as
`cogleague league run` and `cogleague league standings`.

    summary = cogleague.run_league("league.toml")            # resumable, like the CLI
    doc = cogleague.league_standings("league.toml")          # the standings document
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cogleague.league import config as league_config
from cogleague.league import runner


def run_league(path: str | Path, *, backend: str = "local", workers: int | None = None,
               ray_address: str | None = None, store: str | None = None,
               chunk_size: int | None = None, engine: str = "auto") -> runner.RunSummary:
    """Play every episode of the league file not yet finished; `ConfigError` naming the field
    for a bad file. `engine`: auto (baselines with a batch twin through the game's kernel),
    batch (all of them, or refuse) or rules."""
    cfg = league_config.load(Path(path), store_url=store)
    pool = runner.make_backend(backend, workers or os.cpu_count() or 1, ray_address)
    return runner.run(cfg, pool, chunk_size=chunk_size, engine=engine)


def league_standings(path: str | Path, *, game: str | None = None, store: str | None = None,
                     resamples: int = 2000) -> dict[str, Any]:
    """The standings document (`league/rankings/standings.py`) the CLI, report and
    Observatory render."""
    from cogleague.league.rankings import standings_json

    cfg = league_config.load(Path(path), store_url=store)
    return standings_json(cfg.store_url, game=game, leagues=[cfg.name], resamples=resamples)
