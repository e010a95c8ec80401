"""Database outages: a throwaway PostgreSQL stopped for 2, 4 and 12 s while 20 tables play.

Sixteen Commons tables (scripted seats, one round a second) and four paid Prisoner's Dilemma
tables (three staked scripted seats and one SDK bot that thinks for a moment) run on one real
server process. The cluster is stopped three times during play; every table finishes within
30 s of the database's return with the results of an uninterrupted headless run, its log has
each step once, each paid table is settled once (payouts and rake once, no stake left held),
and the log holds no traceback.

The second test stalls a server process (SIGSTOP) across an outage longer than the lease: the
other process takes its tables over as after a crash, the stalled one finds its retried log
rows refused when it wakes (`LeaseLost`), lets the tables go, and every table still ends with
the uninterrupted results, each step logged once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select

from cogleague.client import Bot, LobbyClient, TurnInfo, play_seat
from cogleague.server.store import engine_url, log_entries, tables, wallet_entries
from helpers.postgres import PgCluster, _pg_bindir
from server.support import ServerProcess, new_account, play_headless

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from dilemma_bot import PromiseKeeper

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

LEASE = {"lease_ttl_s": 3.0, "lease_renew_s": 0.5}
COMMONS = {"rounds": 12, "min_round_seconds": 1, "episode_timeout_seconds": 3600}
DILEMMA = {"rounds_total": 16}
STAKE = 10
BASELINES = ["steward", "free_rider", "cleaner", "punisher", "reciprocator", "fair_share"]


class RestartableCluster(PgCluster):
    """A cluster of this module's own (the session's shared one must stay up)."""

    def halt(self) -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "pg.log"), "-w",
                  "-t", "60", "-o", f"-p {self.port} -k {self.dir} "
                  "-c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", "start")


@pytest.fixture
def cluster() -> Iterator[RestartableCluster]:
    bindir = _pg_bindir()
    if bindir is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL binaries are missing; .ci/run installs Debian's postgresql")
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    c = RestartableCluster(bindir).start()
    yield c
    c.stop()


class Thinker(Bot):
    """PromiseKeeper, taking a moment per turn, so the table is still playing at each outage."""

    name = "thinker"

    def __init__(self, delay_s: float = 0.0) -> None:
        self.inner = PromiseKeeper()
        self.delay_s = delay_s

    async def on_turn(self, turn: TurnInfo) -> Any:
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        return self.inner.on_turn(turn)


async def _commons(server: ServerProcess, i: int) -> tuple[str, str, dict[str, Any]]:
    fill = BASELINES[i % len(BASELINES)]
    _, key = await new_account(server)
    async with LobbyClient(server.url, key) as lobby:
        table = await lobby.create_table("commons", variant="cleanup", config=COMMONS,
                                         seed=100 + i, fill_with=fill)
    spec = {"game": "commons", "variant": "cleanup", "config": COMMONS, "seed": 100 + i,
            "lineup": [fill] * table["num_seats"]}
    return table["id"], key, spec


async def _paid(server: ServerProcess, i: int) -> tuple[str, str, dict[str, Any], str]:
    """A paid dilemma table: seat 0 an SDK bot, the others staked scripted seats."""
    _, key = await new_account(server)
    async with LobbyClient(server.url, key) as lobby:
        table = await lobby.create_table("dilemma", config=DILEMMA, seed=200 + i, stake=STAKE)
    others = ["tit_for_tat", "always_defect", "pavlov"][:table["num_seats"] - 1]
    lineup: list[Any] = ["bot", *others]
    token = ""
    for seat, member in enumerate(lineup):
        _, k = await new_account(server, credits=1000)
        async with LobbyClient(server.url, k) as lobby:
            if member == "bot":
                token = (await lobby.join(table["id"], "remote", seat=seat, name="bot"))["token"]
            else:
                await lobby.join(table["id"], "scripted", baseline=member, seat=seat,
                                 name=member)
    spec = {"game": "dilemma", "config": {**DILEMMA, "stake": STAKE}, "seed": 200 + i,
            "lineup": lineup}
    return table["id"], key, spec, token


def _reference_lineup(spec: dict[str, Any]) -> list[Bot | str]:
    return [Thinker() if m == "bot" else m for m in spec["lineup"]]


def _query(db: str, fn: Callable[[Any], Any]) -> Any:
    engine = create_engine(engine_url(db))
    try:
        with engine.connect() as conn:
            return fn(conn)
    finally:
        engine.dispose()


def _states(db: str, ids: list[str]) -> dict[str, str]:
    return _query(db, lambda c: {r.id: r.state for r in c.execute(
        select(tables.c.id, tables.c.state).where(tables.c.id.in_(ids)))})


async def _until_ended(db: str, ids: list[str], timeout_s: float) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        try:
            if all(s in ("finished", "aborted") for s in _states(db, ids).values()):
                return time.monotonic() - t0
        except Exception:  # the cluster may still be starting
            pass
        await asyncio.sleep(0.2)
    raise AssertionError(f"tables still not ended {timeout_s} s after the database's return: "
                         f"{_states(db, ids)}")


async def _check_tables(db: str, url: str, specs: dict[str, dict[str, Any]]) -> None:
    async with LobbyClient(url) as lobby:
        for tid, spec in specs.items():
            served = await lobby.results(tid)
            names = ["bot" if m == "bot" else m for m in spec["lineup"]]
            headless = await play_headless(spec["game"], _reference_lineup(spec),
                                           seed=spec["seed"], variant=spec.get("variant"),
                                           config=spec["config"], names=names)
            strip = ("generated_at",)
            assert {k: v for k, v in served.items() if k not in strip} == \
                {k: v for k, v in headless.items() if k not in strip}, (tid, spec["game"])
            idx = _query(db, lambda c, t=tid: list(c.execute(select(log_entries.c.idx).where(
                log_entries.c.table_id == t).order_by(log_entries.c.idx)).scalars()))
            assert idx == list(range(len(idx))) and idx, tid  # each step once, none missing


def _settlements(db: str, tid: str) -> dict[str, Any]:
    def read(conn: Any) -> dict[str, Any]:
        kinds: dict[str, int] = {}
        for kind, n in conn.execute(select(wallet_entries.c.kind, func.count()).where(
                wallet_entries.c.table_id == tid).group_by(wallet_entries.c.kind)):
            kinds[kind] = n
        held = conn.execute(select(func.coalesce(func.sum(wallet_entries.c.amount), 0)).where(
            wallet_entries.c.table_id == tid)).scalar_one()  # what the table still holds
        return {"kinds": kinds, "held": -int(held)}
    return _query(db, read)


async def test_tables_ride_out_database_outages_of_2_4_and_12_s(
        cluster: RestartableCluster, make_server: Callable[..., ServerProcess]) -> None:
    db = cluster.new_database()
    server = make_server(db, **LEASE)
    specs: dict[str, dict[str, Any]] = {}
    creators: dict[str, str] = {}
    bots: list[tuple[str, str]] = []
    for i in range(16):
        tid, key, spec = await _commons(server, i)
        specs[tid], creators[tid] = spec, key
    paid = []
    for i in range(4):
        tid, key, spec, token = await _paid(server, i)
        specs[tid], creators[tid] = spec, key
        bots.append((tid, token))
        paid.append(tid)
    players = [asyncio.create_task(play_seat(Thinker(0.15), server.url, tid, 0, token,
                                             reconnect_for_s=90)) for tid, token in bots]
    await asyncio.sleep(0.5)
    for tid, key in creators.items():
        async with LobbyClient(server.url, key) as lobby:
            await lobby.start(tid)
    ids = list(specs)
    log_start = server.log_path.stat().st_size
    for pause_before, outage in ((1.5, 2.0), (2.0, 4.0), (2.0, 12.0)):
        await asyncio.sleep(pause_before)
        assert "running" in _states(db, ids).values()  # play is still going on
        cluster.halt()
        await asyncio.sleep(outage)
        cluster.resume()
    took = await _until_ended(db, ids, 120.0)  # liveness bounds: the time is printed
    print(f"\nall 20 tables ended {took:.1f} s after the database's last return")
    await asyncio.wait_for(asyncio.gather(*players), 120)
    assert set(_states(db, ids).values()) == {"finished"}
    await _check_tables(db, server.url, specs)
    for tid in paid:
        settled = _settlements(db, tid)
        assert settled["held"] == 0, settled
        assert settled["kinds"] == {"stake_hold": 4, "payout": 4, "rake": 1}, settled
    text = server.log_path.read_bytes()[log_start:].decode("utf-8", "replace")
    assert "Traceback" not in text, text[-3000:]
    assert "database unavailable" in text and "reachable again" in text
    assert server.alive()


async def test_a_process_stalled_across_an_outage_loses_its_tables_to_the_other(
        cluster: RestartableCluster, make_server: Callable[..., ServerProcess]) -> None:
    db = cluster.new_database()
    stalled = make_server(db, **LEASE)
    other = make_server(db, **LEASE)
    specs: dict[str, dict[str, Any]] = {}
    for i in range(4):
        tid, key, spec = await _commons(stalled, i)
        specs[tid] = spec
        async with LobbyClient(stalled.url, key) as lobby:
            await lobby.start(tid)
    ids = list(specs)
    await asyncio.sleep(2.0)
    first = set(_owners(db, ids).values())
    assert len(first) == 1 and None not in first  # the process that started them runs them
    assert stalled.proc is not None
    cluster.halt()
    os.kill(stalled.proc.pid, signal.SIGSTOP)  # e.g. a frozen VM, across the outage
    try:
        await asyncio.sleep(4.0)  # longer than the lease
        cluster.resume()
        deadline = time.monotonic() + 60  # a liveness bound (leases of 3 s)
        while time.monotonic() < deadline:  # the other process claims every lapsed lease
            owners = _owners(db, ids, quiet=True)
            if owners is not None and not set(owners.values()) & first:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"no take-over: {_owners(db, ids)}")
    finally:
        os.kill(stalled.proc.pid, signal.SIGCONT)
    await _until_ended(db, ids, 120.0)
    assert set(_states(db, ids).values()) == {"finished"}
    await _check_tables(db, other.url, specs)
    assert "taken over by this process" in other.log_path.read_text()
    assert "lease lost" in stalled.log_path.read_text() or \
        "no longer holds its lease" in stalled.log_path.read_text()
    assert stalled.alive() and other.alive()


def _owners(db: str, ids: list[str], quiet: bool = False) -> dict[str, Any] | None:
    """The lease owner of each table still running (None while the cluster starts, quiet)."""
    try:
        return _query(db, lambda c: {r.id: r.owner for r in c.execute(
            select(tables.c.id, tables.c.owner).where(tables.c.id.in_(ids),
                                                     tables.c.state == "running"))})
    except Exception:
        if quiet:
            return None
        raise
