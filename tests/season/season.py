"""A small season for the tests: its league file, accounts, and reads of the server's SQLite."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, inspect, text

from cogleague.client import LobbyClient

SEASON = """
[league]
name = "ci-season"
seed = 3

[season]
tables = {tables}
max_running = {max_running}
fill_after_s = {fill_after_s}
final_top = {final_top}
final_tables_per_pair = 1
pacing = false
models = ["m"]
token_budget = {token_budget}
refit_every_s = {refit_every_s}
held_out = {held_out}

[[policies]]
name = "tft"
baseline = "tit_for_tat"
games = ["dilemma"]

[[policies]]
name = "defector"
baseline = "always_defect"
games = ["dilemma"]

[[policies]]
name = "steward"
baseline = "steward"
games = ["commons"]

[[policies]]
name = "free-rider"
baseline = "free_rider"
games = ["commons"]

[[games]]
name = "dilemma"
seats = 3
overrides = {{ rounds_total = 3 }}

[[games]]
name = "commons"
variants = ["harvest-open"]
seats = 3
overrides = {{ num_players = 3, rounds = 3 }}
"""

LEDGER = """
[[policies]]
name = "mirror"
baseline = "mirror"
games = ["ledger"]

[[policies]]
name = "shark"
baseline = "shark"
games = ["ledger"]

[[policies]]
name = "grim"
baseline = "grim"
games = ["ledger"]

[[policies]]
name = "saint"
baseline = "saint"
games = ["ledger"]

[[policies]]
name = "opportunist"
baseline = "opportunist"
games = ["ledger"]

[[games]]
name = "ledger"
variants = ["quickfire"]
overrides = {{ rounds = 4 }}
"""
"""Ledger seats eight: its five baselines fill what the season's own agents leave."""


def season_file(folder: Path, tables: int = 30, max_running: int = 6, fill_after_s: float = 2.0,
                final_top: int = 3, held_out: tuple[str, ...] = (), ledger: bool = False,
                name: str = "season.toml", token_budget: int = 100000,
                refit_every_s: float = 0) -> Path:
    path = folder / name
    text = SEASON + (LEDGER if ledger else "")
    path.write_text(text.format(tables=tables, max_running=max_running,
                                fill_after_s=fill_after_s, final_top=final_top,
                                token_budget=token_budget, refit_every_s=refit_every_s,
                                held_out=json.dumps(list(held_out))))
    return path


async def account(server: str, operator_key: str, name: str) -> str:
    async with LobbyClient(server, operator_key) as lobby:
        return str((await lobby.create_account(name))["api_key"])


async def register(server: str, key: str, **body: Any) -> dict[str, Any]:
    async with LobbyClient(server, key) as lobby:
        return dict(await lobby.request("POST", "/agents", body))


async def post(server: str, key: str, path: str) -> None:
    """A body-less POST with an account key (pause, resume, retire)."""
    async with LobbyClient(server, key) as lobby:
        await lobby.request("POST", path)


def file_b64(path: Path) -> str:
    """A policy file as `POST /agents` takes it."""
    return base64.b64encode(path.read_bytes()).decode()


def sa_url(db_url: str) -> str:
    """SQLAlchemy's spelling of a database URL the server takes (psycopg 3 for PostgreSQL)."""
    return db_url.replace("postgresql://", "postgresql+psycopg://", 1)


def query(db_url: str, sql: str, **params: Any) -> list[Any]:
    engine = create_engine(sa_url(db_url))
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(sql), params).all())
    finally:
        engine.dispose()


def recorded(db_url: str, sql: str, **params: Any) -> list[Any]:
    """`query` for the league store's tables, which its first record creates: before that
    there is nothing recorded yet, not an error (a poll may run before the first record)."""
    engine = create_engine(sa_url(db_url))
    try:
        if not inspect(engine).has_table("league_episodes"):
            return []
    finally:
        engine.dispose()
    return query(db_url, sql, **params)


@contextlib.contextmanager
def matchmaking_held(db_url: str, season: str = "ci-season") -> Iterator[None]:
    """No season table is formed meanwhile: the test holds the season's matchmaker lease, as
    a second server process would (`season_runtime._lease`; presence is still renewed). The
    entrants registered and resumed meanwhile, one request at a time, are all ready at the
    first tick after it: on a loaded machine the requests take seconds, and the first ones
    would otherwise play (and spend the table budget) before the last exist. Take it before
    the first entrant registers: a tick that took the lease just before has nobody to seat."""
    engine = create_engine(sa_url(db_url))
    try:
        with engine.begin() as conn:
            held = conn.execute(text("UPDATE league_leases SET owner = 'test-hold', "
                                     "until = 1e12 WHERE name = :s"), {"s": season})
            assert held.rowcount == 1, "the season has no lease row"
        yield
    finally:
        with engine.begin() as conn:
            conn.execute(text("UPDATE league_leases SET owner = NULL, until = 0 "
                              "WHERE name = :s"), {"s": season})
        engine.dispose()


async def wait_for(check: Callable[[], Any], timeout_s: float, what: str,
                   every_s: float = 0.25, explain: Callable[[], str] | None = None) -> Any:
    """Poll `check` (blocking reads, so on a thread: the test's agents share this event loop
    and must keep playing meanwhile) until it is true; on time-out, say what `explain` finds."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = await asyncio.to_thread(check)
        if value:
            return value
        await asyncio.sleep(every_s)
    found = f"; {await asyncio.to_thread(explain)}" if explain is not None else ""
    raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}{found}")


def standings(server: str) -> dict[str, Any]:
    got = httpx.get(f"{server}/leagues/ci-season/standings", timeout=30)
    assert got.status_code == 200, f"standings: HTTP {got.status_code}: {got.text[:500]}"
    return dict(got.json())


def constant_policy(path: Path, game_name: str, favourite: int) -> Path:
    """A one-layer policy file whose logits always prefer action `favourite`."""
    import numpy as np

    from cogleague.envs.encoding import encoding_of
    from cogleague.games import registry
    from cogleague.seats.policy import save_policy

    desc = registry.get(game_name)
    sig = encoding_of(desc).signature(desc.new_game(None, {}, 0))
    b = np.zeros(sig["actions"])
    b[favourite] = 1.0
    return save_policy(path, game_name, sig,
                       [(np.zeros((sig["actions"], sig["observation_size"])), b, "linear")])
