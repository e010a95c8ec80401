"""Text no database can store, sent by a seat or a user, is refused where it enters.

The reproducer: a paid 3-seat dilemma whose losing seat puts a lone surrogate (the JSON escape
``\\ud800``) in its promise, in every turn up to the last round, while 30 honest tables play
beside it. Each poisoned move gets an `error` frame ``bad_text`` naming ``message`` and leaves
the turn open; the seat sends it again clean, the table plays to its end, the winners are paid
by points, the 30 honest tables end exactly as their headless runs, and no credit is made or
lost. Then every HTTP body field with such text: 400 ``bad_text`` naming the field."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from cogleague.client import LobbyClient
from cogleague.core.settlement import split_pot
from server.rawws import next_frame, open_seat
from server.support import OPERATOR_KEY, ServerProcess, new_account, play_headless
from server.test_abuse import server_errors

STAKE, CREDITS, ROUNDS = 10, 100, 4
LINEUP = ["always_cooperate", "always_defect", "tit_for_tat"]  # seat 0, the attacker, loses
BASELINES = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov"]


async def _honest(server: ServerProcess, key: str, i: int) -> tuple[str, str, int]:
    baseline, seed = BASELINES[i % len(BASELINES)], 200 + i
    async with LobbyClient(server.url, key) as lobby:
        table = await lobby.create_table("dilemma", config={"rounds_total": 12}, seed=seed,
                                         pacing=False, fill_with=baseline)
    return table["id"], baseline, seed


async def _answer(ws: Any, turn_id: str, doc: dict[str, Any]) -> dict[str, Any]:
    """Send a move (surrogates as JSON escapes, as any client may) and return its reply."""
    await ws.send(json.dumps({"type": "move", "turn_id": turn_id, **doc}))
    while True:
        frame = await next_frame(ws, timeout=30)
        if frame["type"] in ("ack", "error"):
            return frame


async def _attack(ws: Any) -> tuple[int, dict[str, Any]]:
    """Every turn: the poisoned promise first, then the clean one. Returns how many poisoned
    moves were refused, and the `end` frame."""
    refused = 0
    while True:
        frame = await next_frame(ws, timeout=60)
        if frame["type"] == "end":
            return refused, frame
        if frame["type"] != "your_turn":
            continue
        reply = await _answer(ws, frame["turn_id"], {"action": "cooperate",
                                                     "message": "I cooperate \ud800 always"})
        assert (reply["type"], reply["code"]) == ("error", "bad_text"), reply
        assert reply["message"].startswith("message: ") and "U+D800" in reply["message"]
        refused += 1
        reply = await _answer(ws, frame["turn_id"], {"action": "cooperate",
                                                     "message": "I cooperate always"})
        assert reply["type"] == "ack", reply


def test_a_losing_seat_sending_a_lone_surrogate_cannot_void_a_paid_table(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'paid.db'}", max_open_tables_per_account=100)

    async def go() -> None:
        _, key = await new_account(server)
        honest = [await _honest(server, key, i) for i in range(30)]
        async with LobbyClient(server.url, key) as creator:
            paid = await creator.create_table("dilemma", config={"rounds_total": ROUNDS,
                                                                 "seats": 3},
                                              seed=9, pacing=False, stake=STAKE)
        tid, keys = paid["id"], []
        for seat, member in enumerate(LINEUP):
            _, k = await new_account(server, credits=CREDITS)
            keys.append(k)
            async with LobbyClient(server.url, k) as lobby:
                if seat == 0:
                    token = (await lobby.join(tid, "remote", seat=0))["token"]
                else:
                    await lobby.join(tid, "scripted", baseline=member, seat=seat)
        ws = await open_seat(server.url, tid, 0, token)
        await next_frame(ws, "snapshot")
        async with LobbyClient(server.url, key) as creator:
            for t, _, _ in honest:
                await creator.start(t)
            await creator.start(tid)
            refused, end = await _attack(ws)
            await ws.close()
            results = await creator.results(tid)
            table = await creator.table(tid)
            honest_results = []
            for t, _, _ in honest:
                for _ in range(600):
                    if (await creator.table(t))["state"] != "running":
                        break
                    await asyncio.sleep(0.05)
                honest_results.append(await creator.results(t))
        balances = []
        for k in keys:
            async with LobbyClient(server.url, k) as lobby:
                balances.append((await lobby.wallet())["balance"])
        assert refused >= ROUNDS  # a poisoned promise in every turn, the last round's too
        assert (end["reason"], table["state"], results["reason"]) == (
            "complete", "finished", "complete")
        reference = await play_headless("dilemma", LINEUP, seed=9,
                                        config={"rounds_total": ROUNDS, "seats": 3})
        assert results["scores"] == reference["scores"]
        points = [int(p) for p in results["scores"]]
        assert points[0] == min(points)  # the attacker is the loser
        split = split_pot(STAKE, int(table["config"]["rake_bps"]), points)
        assert balances == [CREDITS - STAKE + p for p in split.payouts]  # paid by points
        assert sum(balances) + split.rake == 3 * CREDITS  # no credit made or lost
        for (t, baseline, seed), got in zip(honest, honest_results, strict=True):
            want = await play_headless("dilemma", [baseline] * 4, seed=seed,
                                       config={"rounds_total": 12})
            assert (got["reason"], got["scores"]) == ("complete", want["scores"]), t
        assert server_errors(server.log_path.read_text()) == []

    asyncio.run(go())


# -- HTTP bodies ---------------------------------------------------------------------------------
BAD = ["x\ud800", "\udfff", "a\x00b", "ok\udbff\udc00"[:3]]  # the last: a high half alone


def _post(server: ServerProcess, key: str, path: str, body: Any) -> httpx.Response:
    # json.dumps writes a surrogate as its \u escape: exactly what a hostile client sends
    return httpx.post(server.url + path, content=json.dumps(body),
                      headers={"Authorization": f"Bearer {key}",
                               "Content-Type": "application/json"})


@pytest.mark.parametrize("bad", BAD)
def test_every_http_body_field_refuses_unstorable_text(shared_server: ServerProcess,
                                                       bad: str) -> None:
    _, key = asyncio.run(new_account(shared_server))
    table = _post(shared_server, key, "/tables", {"game": "dilemma"}).json()
    cases: list[tuple[str, str, Any, str]] = [
        (OPERATOR_KEY, "/accounts", {"name": bad}, "name"),
        (OPERATOR_KEY, "/accounts/1/credits", {"amount": 1, "idempotency_key": bad},
         "idempotency_key"),
        (key, "/tables", {"game": bad}, "game"),
        (key, "/tables", {"game": "dilemma", "variant": bad}, "variant"),
        (key, "/tables", {"game": "dilemma", "fill_with": bad}, "fill_with"),
        (key, "/tables", {"game": "dilemma", "config": {"promises": bad}}, "config.promises"),
        (key, "/tables", {"game": "dilemma", "config": {bad: 1}}, "config.<key>"),
        (key, f"/tables/{table['id']}/join", {"name": bad}, "name"),
        (key, f"/tables/{table['id']}/join", {"kind": "llm", "prompt": f"play {bad}"},
         "prompt"),
        (key, f"/tables/{table['id']}/join", {"kind": "llm", "prompt": "p", "model": bad},
         "model"),
        (key, f"/tables/{table['id']}/join", {"kind": "scripted", "baseline": bad},
         "baseline"),
        (OPERATOR_KEY, f"/tables/{table['id']}/abort", {"detail": bad}, "detail"),
        (key, "/tables", {bad: 1, "game": "dilemma"}, "<key>"),
    ]
    for who, path, body, field in cases:
        response = _post(shared_server, who, path, body)
        assert response.status_code == 400, (path, field, response.text)
        error = response.json()["error"]
        assert error["code"] == "bad_text", (path, field, error)
        assert error["message"].startswith(f"{field}: "), (path, field, error)
    after = httpx.get(f"{shared_server.url}/tables/{table['id']}").json()
    assert (after["state"], [s["taken"] for s in after["seats"]]) == ("open", [False] * 4)


def test_a_nul_in_a_table_id_is_not_found_on_postgresql(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    """PostgreSQL text cannot hold NUL: looking such an id up must be a 404, not a 500."""
    server = make_server(pg_cluster.new_database())
    for path in ("/tables/a%00b", "/tables/a%00b/results", "/tables/a%00b/replay"):
        response = httpx.get(server.url + path)
        assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")
    upgrade = httpx.get(server.url + "/ws/watch?table=a%00b",
                        headers={"Connection": "Upgrade", "Upgrade": "websocket",
                                 "Sec-WebSocket-Version": "13",
                                 "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert upgrade.status_code == 404
    assert server_errors(server.log_path.read_text()) == []
