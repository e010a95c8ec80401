"""Spectators see what the rules let a spectator see — on every surface, for every game.

Each game plays one table on a real server with SDK bots that write something only their
seat (or their partner) may read: a Ledger memo, a private Prisoner's Dilemma message, a
Commons note. The bots are held mid-table while a spectator reads every surface — the
`/ws/watch` stream (from the start, and a second socket joining mid-table for its
snapshot), `GET /tables/{id}/spectator`, `GET /tables/{id}`, `GET /tables` and the Lobby
socket — and none of them carries the secret text, a key the game declares secret
(`GameDescriptor.spectator_secrets`) or a policy name, until the end. The replay afterwards
has the secret text, so the bots really wrote it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from cogleague.client import Bot, LobbyClient, TurnInfo, play_seat
from cogleague.client.connection import ws_url
from cogleague.games import registry
from server.multiproc import Gate, Gated, Spectator, open_table
from server.support import ServerProcess

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from commons_bot import Steward
from dilemma_bot import PromiseKeeper
from ledger_bot import FairDealer

SECRET = "zq-secret-7731"


class Secretive(Bot):
    """Wraps an example bot: the same moves, plus the secret in the game's private field."""

    def __init__(self, inner: Bot, field: str) -> None:
        self.inner = inner
        self.field = field
        self.name = inner.name

    def on_turn(self, turn: TurnInfo) -> Any:
        reply = dict(self.inner.on_turn(turn))
        if self.field != "message" or "message" in reply:
            reply[self.field] = f"{SECRET} from {turn.visible_state.get('round')}"
        return reply


GAMES: list[dict[str, Any]] = [
    {"game": "ledger", "variant": "quickfire", "seed": 7, "bot": FairDealer, "field": "memo",
     "lineup": ["bot", "shark", "bot", "mirror", "grim", "saint", "opportunist", "bot"]},
    {"game": "dilemma", "seed": 5, "config": {"rounds_total": 8}, "bot": PromiseKeeper,
     "field": "message", "lineup": ["bot", "tit_for_tat", "bot", "always_defect"]},
    {"game": "commons", "variant": "cleanup", "seed": 3, "config": {"rounds": 6},
     "bot": Steward, "field": "note",
     "lineup": ["bot", "free_rider", "bot", "punisher", "reciprocator", "bot"]},
]
NAMES = "policy-name-"


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _clean(doc: Any, secrets: frozenset[str], where: str) -> None:
    text = json.dumps(doc)
    assert SECRET not in text, f"{where}: the secret reached a spectator: {text[:500]}"
    assert NAMES not in text, f"{where}: a policy name reached a spectator"
    leaked = _keys(doc) & secrets
    assert not leaked, f"{where}: secret keys {sorted(leaked)}"


async def _first_frames(server: str, path: str, until: str, n_max: int = 5000
                        ) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    async with connect(f"{ws_url(server)}{path}", proxy=None, compression=None) as ws:
        async for raw in ws:
            frames.append(json.loads(raw))
            if frames[-1]["type"] == until or len(frames) >= n_max:
                break
    return frames


@pytest.mark.parametrize("spec", GAMES, ids=[g["game"] for g in GAMES])
async def test_no_secret_reaches_any_spectator_surface(shared_server: ServerProcess,
                                                       spec: dict[str, Any]) -> None:
    secrets = registry.get(spec["game"]).spectator_secrets
    names = [f"{NAMES}{i}" for i in range(len(spec["lineup"]))]
    gate = Gate(close_after=12)
    members = [m if m != "bot" else Gated(Secretive(spec["bot"](), spec["field"]), gate)
               for m in spec["lineup"]]
    tid, creator, remote = await open_table(shared_server, spec["game"], members, names,
                                            seed=spec["seed"], variant=spec.get("variant"),
                                            config=spec.get("config"))
    watcher = Spectator(shared_server.url, tid)
    watching = asyncio.create_task(watcher.run())
    bots = [asyncio.create_task(play_seat(members[seat], shared_server.url, tid, seat, token))
            for seat, token in remote]
    await asyncio.sleep(0.3)
    async with LobbyClient(shared_server.url, creator) as lobby:
        await lobby.start(tid)
    await asyncio.wait_for(gate.held.wait(), 60)
    await asyncio.sleep(0.2)  # the last answered step reaches the log and the spectators
    async with LobbyClient(shared_server.url) as anyone:
        _clean(httpx.get(f"{shared_server.url}/tables/{tid}/spectator").json(), secrets,
               "GET /spectator")
        _clean(await anyone.table(tid), secrets, "GET /tables/{id}")
        _clean(await anyone.tables(), secrets, "GET /tables")
    late = await _first_frames(shared_server.url, f"/ws/watch?table={tid}", "snapshot")
    assert late[-1]["type"] == "snapshot" and late[-1]["visible_state"]
    _clean(late, secrets, "a late spectator's history and snapshot")
    lobby_frames = await _first_frames(shared_server.url, "/ws/lobby", "tables")
    _clean(lobby_frames, secrets, "the Lobby socket")
    gate.release()
    await asyncio.wait_for(asyncio.gather(*bots), 60)
    end = await asyncio.wait_for(watching, 60)
    _clean([f for f in watcher.frames if f["type"] != "end"], secrets, "the /ws/watch stream")
    assert watcher.events(), "the spectator saw no event at all"
    async with LobbyClient(shared_server.url) as anyone:
        replay = await anyone.replay(tid)
    assert SECRET in json.dumps(replay) or spec["field"] == "note", \
        "the bots' secret never reached the replay: the test would prove nothing"
    assert end["type"] == "end"
    assert NAMES in json.dumps(replay)  # policy names arrive with the replay
