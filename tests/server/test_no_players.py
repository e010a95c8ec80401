"""The connect timeout on a real server: a table nobody connects to ends ``no_players``
(Commons Family rules §12), with all-zero scores, a replay `cogleague replay verify` accepts,
and, on a paid table, every stake refunded; one connected seat makes a normal episode."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.client import LobbyClient, play_seat
from server.support import ServerProcess, new_account

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from commons_bot import Steward

# short waits through the table's own config: 1 s to connect, 1 s per round and decision
FAST = {"rounds": 2, "connect_timeout_seconds": 1, "round_seconds": 1,
        "min_round_seconds": 0, "decision_timeout_seconds": 1}


async def remote_table(server: ServerProcess, game: str, config: dict[str, Any], *,
                       variant: str | None = None, stake: int = 0, credits: int = 0
                       ) -> tuple[str, str, list[dict[str, Any]], list[str]]:
    """A table whose every seat is a remote seat joined by its own account (nobody
    connects): its id, the creator's key, the joins, and the seat accounts' keys."""
    _, creator_key = await new_account(server)
    async with LobbyClient(server.url, creator_key) as creator:
        table = await creator.create_table(game, variant=variant, config=config, seed=5,
                                           pacing=False, stake=stake)
    joins, keys = [], []
    for seat in range(table["num_seats"]):
        _, key = await new_account(server, credits=credits)
        async with LobbyClient(server.url, key) as lobby:
            joins.append(await lobby.join(table["id"], "remote", seat=seat, name=f"cog{seat}"))
        keys.append(key)
    return table["id"], creator_key, joins, keys


async def ended(server: ServerProcess, key: str, table_id: str, timeout_s: float = 60.0
                ) -> dict[str, Any]:
    async with LobbyClient(server.url, key) as client:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            table = await client.table(table_id)
            if table["state"] in ("finished", "aborted"):
                return table
            await asyncio.sleep(0.1)
    raise AssertionError(f"table {table_id} did not end in {timeout_s} s")


def cli_verifies(doc: dict[str, Any], path: Path) -> str:
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", "verify", str(path)])
    assert result.exit_code == 0, result.output
    return result.output


async def test_a_commons_table_nobody_connects_to_ends_no_players(
        shared_server: ServerProcess, tmp_path: Path) -> None:
    tid, key, _, _ = await remote_table(shared_server, "commons", FAST, variant="cleanup")
    async with LobbyClient(shared_server.url, key) as creator:
        started = await creator.start(tid)
        assert started["state"] == "running"
        t0 = time.monotonic()
        table = await ended(shared_server, key, tid)
        waited = time.monotonic() - t0
        results = await creator.results(tid)
        replay = await creator.replay(tid)
    assert (table["state"], table["reason"]) == ("finished", "no_players")
    assert waited >= 0.5  # it waited for the connect timeout (1 s, less the polling slack)
    assert (results["reason"], results["rounds"]) == ("no_players", 0)
    assert results["scores"] == [0.0] * 6 and results["disconnected"] == [True] * 6
    assert replay["rounds"] == [] and replay["results"]["reason"] == "no_players"
    assert "verifies" in cli_verifies(replay, tmp_path / "replay.json")


async def test_one_connected_seat_makes_a_normal_episode(shared_server: ServerProcess,
                                                         tmp_path: Path) -> None:
    tid, key, joins, _ = await remote_table(shared_server, "commons", FAST, variant="cleanup")
    frames: list[dict[str, Any]] = []
    session = asyncio.create_task(play_seat(Steward(), shared_server.url, tid, 2,
                                            joins[2]["token"], on_frame=frames.append))
    async with LobbyClient(shared_server.url, key) as creator:
        await creator.start(tid)
        await asyncio.wait_for(session, 60)
        table = await ended(shared_server, key, tid)
        results = await creator.results(tid)
        replay = await creator.replay(tid)
    assert (table["reason"], results["reason"], results["rounds"]) == (
        "complete", "complete", 2)
    decisions = [[d["src"] for d in rec["decisions"]] for rec in replay["rounds"]]
    assert all(srcs[2] == "player" for srcs in decisions), decisions
    # the five absent seats play the rules' fallback from round 0, their cause recorded
    assert all(srcs[s].startswith("fallback:") for srcs in decisions for s in (0, 1, 3, 4, 5))
    assert results["fallbacks"] == [2, 2, 0, 2, 2, 2]
    assert results["scores"][2] > 0
    assert any(f["type"] == "your_turn" for f in frames)
    cli_verifies(replay, tmp_path / "replay.json")


def test_a_paid_plugin_table_nobody_connects_to_refunds_every_stake(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'paid.db'}",
                         extra_games={"toy": "server.toyinfo", "toyconnect": "server.toyconnect"})

    async def go() -> None:
        tid, key, _, keys = await remote_table(server, "toyconnect",
                                               {"seats": 2, "connect_s": 0.3}, stake=10,
                                               credits=50)
        for k in keys:
            async with LobbyClient(server.url, k) as seat:
                assert (await seat.wallet())["balance"] == 40  # the stake is held
        async with LobbyClient(server.url, key) as creator:
            await creator.start(tid)
            table = await ended(server, key, tid)
            results = await creator.results(tid)
        assert (table["state"], table["reason"]) == ("finished", "no_players")
        assert (results["reason"], results["rounds"], results["scores"]) == (
            "no_players", 0, [0, 0])
        for k in keys:
            async with LobbyClient(server.url, k) as seat:
                assert (await seat.wallet())["balance"] == 50  # refunded: nothing was played

    asyncio.run(go())
