"""Paid tables under process faults: a hypothesis state machine drives two real server
processes on one PostgreSQL database through join / leave / start / kill / take-over / settle /
abort, and after every step reads the wallet ledger straight from the database:

    Σ deposits = Σ balances + house + Σ held      (nothing created or lost)

and no table was settled twice (at most one payout per seat, never a payout and a refund at
the same table, never more returned than held). Seats are scripted (the stake is the
account's; the table plays itself on whichever process holds its lease), so a kill lands
between hold and settlement as often as not. Examples are few and short: each kill restarts a
real process."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from sqlalchemy import create_engine, func, select
from sqlalchemy.engine import Engine

from cogleague.client import LobbyClient, LobbyError
from cogleague.server import wallets
from cogleague.server.store import engine_url, tables, wallet_entries
from server.support import OPERATOR_KEY, ServerProcess

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
LEASE = {"lease_ttl_s": 1.5, "lease_renew_s": 0.3, "record_league": False}
STAKE = 10
CREDITS = 100
N_PLAYERS = 4


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class TwoProcesses:
    """The processes and accounts, made once per test (restarting is what `kill` does)."""

    def __init__(self, db: str, log_dir: Any) -> None:
        self.db = db
        self.procs = [ServerProcess(db, log_dir / f"p{i}.log", **LEASE).start() for i in (0, 1)]
        self.engine: Engine = create_engine(engine_url(db))
        self.players: list[str] = []
        self.tables: list[str] = []

        async def accounts() -> None:
            async with LobbyClient(self.procs[0].url, OPERATOR_KEY) as op:
                for i in range(N_PLAYERS):
                    made = await op.create_account(f"w{time.time_ns()}x{i}", CREDITS)
                    self.players.append(made["api_key"])

        run(accounts())

    def url(self, i: int) -> str:
        return self.procs[i].url

    def stop(self) -> None:
        for p in self.procs:
            p.stop()
        self.engine.dispose()


async def _call(url: str, key: str, fn: str, *args: Any, **kw: Any) -> Any:
    async with LobbyClient(url, key) as lobby:
        try:
            return await getattr(lobby, fn)(*args, **kw)
        except LobbyError as exc:  # refusals are part of the game (full, broke, wrong state)
            assert exc.status < 500, exc
            return None


class Faults(RuleBasedStateMachine):
    env: TwoProcesses

    def __init__(self) -> None:
        super().__init__()
        self.mine: list[str] = []

    @initialize(p=st.integers(0, 1), rounds=st.sampled_from([400, 1000]))
    def a_running_table(self, p: int, rounds: int) -> None:
        """Every example starts with one paid table playing, so kills meet a running one."""
        self.open_table(p, 0, rounds)
        if self.mine:
            self.fill(p, 0)
            self.start(p, 0)

    @rule(p=st.integers(0, 1), who=st.integers(0, N_PLAYERS - 1),
          rounds=st.sampled_from([50, 400, 1000]))
    def open_table(self, p: int, who: int, rounds: int) -> None:
        made = run(_call(self.env.url(p), self.env.players[who], "create_table", "dilemma",
                         stake=STAKE, config={"rounds_total": rounds}, seed=who, pacing=False))
        if made is not None:
            self.mine.append(made["id"])

    @precondition(lambda self: self.mine)
    @rule(p=st.integers(0, 1), who=st.integers(0, N_PLAYERS - 1), t=st.integers(0, 50),
          base=st.sampled_from(["tit_for_tat", "always_defect", "pavlov"]))
    def join(self, p: int, who: int, t: int, base: str) -> None:
        run(_call(self.env.url(p), self.env.players[who], "join",
                  self.mine[t % len(self.mine)], "scripted", baseline=base))

    @precondition(lambda self: self.mine)
    @rule(p=st.integers(0, 1), t=st.integers(0, 50))
    def fill(self, p: int, t: int) -> None:
        """Every player joins the table (those already seated, or broke, are refused)."""
        for who in range(N_PLAYERS):
            self.join(p, who, t, "tit_for_tat" if who % 2 else "always_defect")

    @precondition(lambda self: self.mine)
    @rule(p=st.integers(0, 1), who=st.integers(0, N_PLAYERS - 1), t=st.integers(0, 50))
    def leave(self, p: int, who: int, t: int) -> None:
        run(_call(self.env.url(p), self.env.players[who], "leave",
                  self.mine[t % len(self.mine)]))

    @precondition(lambda self: self.mine)
    @rule(p=st.integers(0, 1), t=st.integers(0, 50))
    def start(self, p: int, t: int) -> None:
        run(_call(self.env.url(p), OPERATOR_KEY, "start", self.mine[t % len(self.mine)]))

    @precondition(lambda self: self.mine)
    @rule(p=st.integers(0, 1), t=st.integers(0, 50))
    def abort(self, p: int, t: int) -> None:
        run(_call(self.env.url(p), OPERATOR_KEY, "abort", self.mine[t % len(self.mine)]))

    @rule(p=st.integers(0, 1))
    def kill(self, p: int) -> None:
        """SIGKILL one process (whatever it was doing) and start it again."""
        proc = self.env.procs[p]
        proc.kill()
        proc.start()

    @rule(wait=st.sampled_from([0.2, 1.0, 3.0]))
    def settle(self, wait: float) -> None:
        """Let time pass: tables finish and settle, lapsed leases are taken over."""
        time.sleep(wait)

    @invariant()
    def conserved(self) -> None:
        check_ledger(self.env.engine)

    def teardown(self) -> None:
        """Every table of this example ends (finishes or is aborted) with nothing held."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with self.env.engine.connect() as conn:
                live = conn.execute(select(tables.c.id).where(
                    tables.c.id.in_(self.mine), tables.c.state == "running")).scalars().all()
            if not live:
                break
            time.sleep(0.2)
        for t in self.mine:
            run(_call(self.env.url(0), OPERATOR_KEY, "abort", t))  # the open ones
        check_ledger(self.env.engine)
        with self.env.engine.connect() as conn:
            for t in self.mine:
                assert wallets.pot(conn, t) == 0, f"table {t} still holds credits"


def check_ledger(engine: Engine) -> None:
    with engine.connect() as conn:
        t = wallets.totals(conn)
        assert t["deposits"] == t["balances"] + t["house"] + t["held"], t
        rows = conn.execute(select(wallet_entries.c.table_id, wallet_entries.c.account_id,
                                   wallet_entries.c.kind, func.count())
                            .where(wallet_entries.c.table_id.is_not(None))
                            .group_by(wallet_entries.c.table_id, wallet_entries.c.account_id,
                                      wallet_entries.c.kind)).all()
    per: dict[tuple[str, int], Counter[str]] = {}
    kinds_at: dict[str, set[str]] = {}
    for table_id, account, kind, n in rows:
        per.setdefault((table_id, account), Counter())[kind] += n
        kinds_at.setdefault(table_id, set()).add(kind)
    for (table_id, account), c in per.items():
        assert c["payout"] <= 1, f"{table_id}: account {account} paid out {c['payout']} times"
        assert c["refund"] + c["stake_release"] <= c["stake_hold"], (table_id, account, c)
    for table_id, kinds in kinds_at.items():
        assert not {"payout", "refund"} <= kinds, f"{table_id} was both settled and refunded"


def test_wallets_conserve_across_two_processes_under_kills(pg_cluster: Any,
                                                           tmp_path: Any) -> None:
    env = TwoProcesses(pg_cluster.new_database(), tmp_path)
    Faults.env = env
    try:
        machine = Faults.TestCase
        machine.settings = settings(max_examples=3, stateful_step_count=8, deadline=None,
                                    database=None,
                                    suppress_health_check=list(HealthCheck))
        machine().runTest()
        with env.engine.connect() as conn:
            kinds = set(conn.execute(select(wallet_entries.c.kind).distinct()).scalars())
        print(f"\nwallet kinds seen: {sorted(kinds)}")
        assert {"stake_hold", "payout"} <= kinds or {"stake_hold", "refund"} <= kinds
    finally:
        env.stop()
