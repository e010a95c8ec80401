"""Policy names stay off live spectator frames and public table endpoints while a table plays
(every game), unless the operator made it an exhibition table, which the lobby shows."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.asyncio.client import connect

from cogleague.client import LobbyClient
from cogleague.client.lobby import LobbyError
from server.rawws import next_frame
from server.support import OPERATOR_KEY, ServerProcess, new_account

LINEUPS: dict[str, tuple[str | None, list[str]]] = {
    "dilemma": (None, ["tit_for_tat", "always_defect", "pavlov"]),
    "ledger": ("quickfire", ["shark", "mirror", "grim", "saint", "opportunist", "shark",
                             "mirror"]),
    "commons": ("cleanup", ["free_rider", "punisher", "reciprocator", "free_rider",
                            "punisher"]),
}


async def running_table(server: ServerProcess, game: str, key: str, exhibition: bool
                        ) -> str:
    """A running table whose seat 0 is remote and never connects (the table waits on it);
    every other seat is a scripted baseline named ``name-secret-<seat>``."""
    variant, others = LINEUPS[game]
    async with LobbyClient(server.url, key) as lobby:
        table = await lobby.create_table(game, variant=variant, seed=4, pacing=False,
                                         exhibition=exhibition)
    tid = table["id"]
    for seat in range(len(others) + 1):
        _, player = await new_account(server)
        async with LobbyClient(server.url, player) as lobby:
            if seat == 0:
                await lobby.join(tid, "remote", seat=0, name="name-secret-0")
            else:
                await lobby.join(tid, "scripted", seat=seat, baseline=others[seat - 1],
                                 name=f"name-secret-{seat}")
    async with LobbyClient(server.url, key) as lobby:
        await lobby.start(tid)
    return tid


async def live_views(server: ServerProcess, tid: str) -> str:
    """Everything a spectator sees of the running table: the public endpoints and the
    `/ws/watch` frames up to its snapshot."""
    async with LobbyClient(server.url) as lobby:
        docs = [await lobby.request("GET", f"/tables/{tid}/spectator"),
                await lobby.request("GET", f"/tables/{tid}"),
                await lobby.request("GET", "/tables?state=running")]
    url = server.url.replace("http://", "ws://") + f"/ws/watch?table={tid}"
    frames: list[dict[str, Any]] = []
    async with connect(url, proxy=None) as ws:
        await next_frame(ws, "snapshot", seen=frames)
    assert frames[-1]["visible_state"] is not None  # it is running: a real spectator state
    return json.dumps([docs, frames])


@pytest.mark.parametrize("game", sorted(LINEUPS))
async def test_live_spectators_see_no_policy_names(shared_server: ServerProcess,
                                                   game: str) -> None:
    tid = await running_table(shared_server, game, OPERATOR_KEY, exhibition=False)
    try:
        text = await live_views(shared_server, tid)
        assert "name-secret-" not in text
        assert '"exhibition": false' in text or '"exhibition":false' in text
    finally:
        async with LobbyClient(shared_server.url, OPERATOR_KEY) as op:
            await op.abort(tid)


async def test_exhibition_tables_show_names_live_and_say_so(
        shared_server: ServerProcess) -> None:
    tid = await running_table(shared_server, "dilemma", OPERATOR_KEY, exhibition=True)
    try:
        text = await live_views(shared_server, tid)
        assert "name-secret-1" in text
        async with LobbyClient(shared_server.url) as lobby:
            listed = await lobby.request("GET", "/tables?state=running")
        assert [t["exhibition"] for t in listed["tables"] if t["id"] == tid] == [True]
    finally:
        async with LobbyClient(shared_server.url, OPERATOR_KEY) as op:
            await op.abort(tid)


async def test_only_the_operator_makes_exhibition_tables(shared_server: ServerProcess) -> None:
    _, key = await new_account(shared_server)
    async with LobbyClient(shared_server.url, key) as lobby:
        with pytest.raises(LobbyError) as refused:
            await lobby.create_table("dilemma", exhibition=True)
    assert refused.value.status == 403 and "exhibition" in refused.value.message
