"""Arbitrary Unicode through every text field of every game and every HTTP body, over real
WebSockets and HTTP on a live server, while honest tables of all three games play beside it.

Hypothesis draws strings from all of Unicode plus every kind of hostile code point (lone
surrogates of both halves, NUL and other controls, non-characters, bidi overrides). A string
the server cannot store (`core.text.text_fault`) is refused as ``bad_text`` naming the field;
any other string gets the game's or the lobby's own answer. Afterwards: every honest table
ended exactly as its headless run, and the server logged no error."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from cogleague.client import LobbyClient
from cogleague.core.text import bad_text, text_fault
from server.support import OPERATOR_KEY, ServerProcess, new_account
from server.test_abuse import HONEST, HonestPlay, server_errors

NONCHARACTERS = [chr(c) for c in range(0xFDD0, 0xFDF0)] + [
    chr(plane * 0x10000 + low) for plane in range(17) for low in (0xFFFE, 0xFFFF)]
SURROGATES = [chr(c) for c in range(0xD800, 0xE000)]
HOSTILE = st.one_of(st.characters(codec=None, categories=None),
                    st.sampled_from(SURROGATES), st.sampled_from(NONCHARACTERS),
                    st.sampled_from(["\x00", "\x1b", "\r", "\u202e", "\ufeff", "\u0085"]))
TEXT = st.lists(HOSTILE, max_size=30).map("".join)

FIELDS = {"dilemma": ["message", "action", "turn_id"],
          "ledger": ["note", "memo", "subject", "move", "turn_id"],
          "commons": ["message", "eat_color", "plant_color", "patch", "sanction", "turn_id"]}
SETUP = {"dilemma": ({"rounds_total": 400}, None, "tit_for_tat"),
         "ledger": ({}, "standard", "mirror"),
         "commons": ({"rounds": 100}, "cleanup", "steward")}


def test_every_surrogate_is_refused_and_every_noncharacter_passes() -> None:
    for ch in SURROGATES:
        assert text_fault(f"a{ch}b") is not None
        assert bad_text({"move": {f"k{ch}": 1}}) is not None
    for ch in NONCHARACTERS:
        assert text_fault(f"a{ch}b") is None
    assert text_fault(json.loads('"\\ud83d\\ude00"')) is None  # an escaped pair: one character
    found = bad_text({"a": ["ok", {"b": "x\x00"}]})
    assert found is not None and found[0] == "a[1].b"


def _open_seat(sockets: contextlib.ExitStack, server: ServerProcess, table: str,
               token: str) -> ClientConnection:
    """Seat 0's socket, closed with `sockets`."""
    q = urlencode({"table": table, "seat": 0, "token": token, "last_seq": 0})
    return sockets.enter_context(connect(server.url.replace("http://", "ws://") + "/ws/play?"
                                         + q, proxy=None, compression=None, max_size=2**23))


def _reply(ws: ClientConnection, frame: str) -> dict[str, Any]:
    """The answer (`error` or `ack`) to one frame; resent after a `rate_limited`."""
    for _ in range(50):
        ws.send(frame)
        while True:
            doc = json.loads(ws.recv(timeout=60))  # a liveness bound, not a speed
            if doc["type"] in ("error", "ack"):
                break
        if doc.get("code") != "rate_limited":
            return doc
        time.sleep(0.2)
    raise AssertionError("rate limited 50 times in a row")


def test_arbitrary_unicode_in_every_field_beside_honest_tables(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'unicode.db'}", max_open_tables_per_account=100)
    async def seats() -> tuple[dict[str, tuple[str, str]], str, str]:
        made = {}
        _, key = await new_account(server)
        for game, (config, variant, fill) in SETUP.items():
            async with LobbyClient(server.url, key) as lobby:
                table = await lobby.create_table(game, variant=variant, config=config, seed=3,
                                                 pacing=False, fill_with=fill)
                joined = await lobby.join(table["id"], "remote", seat=0)
            made[game] = (table["id"], joined["token"])
        async with LobbyClient(server.url, key) as lobby:
            spare = await lobby.create_table("dilemma", seed=1)
        return made, key, spare["id"]

    tables, key, spare = asyncio.run(seats())
    honest = HonestPlay(server)
    thread = threading.Thread(target=honest.run, name="honest-tables")
    thread.start()
    stack = contextlib.ExitStack()
    sockets = {game: _open_seat(stack, server, t, token) for game, (t, token) in tables.items()}
    for t, _ in tables.values():
        httpx.post(f"{server.url}/tables/{t}/start",
                   headers={"Authorization": f"Bearer {OPERATOR_KEY}"}).raise_for_status()
    http = httpx.Client(base_url=server.url)
    tried = {"frames": 0, "bodies": 0, "refused": 0}

    def post(who: str, path: str, body: Any) -> httpx.Response:
        return http.post(path, content=json.dumps(body),
                         headers={"Authorization": f"Bearer {who}",
                                  "Content-Type": "application/json"})

    bodies: list[tuple[str, str, Callable[[str], Any], str]] = [
        (OPERATOR_KEY, "/accounts", lambda s: {"name": s}, "name"),
        (OPERATOR_KEY, "/accounts/1/credits",
         lambda s: {"amount": 1, "idempotency_key": s}, "idempotency_key"),
        (key, "/tables", lambda s: {"game": "dilemma", "fill_with": s}, "fill_with"),
        (key, "/tables", lambda s: {"game": "ledger", "variant": s}, "variant"),
        (key, "/tables", lambda s: {"game": "commons", "config": {"rounds": s}},
         "config.rounds"),
        (key, f"/tables/{spare}/join", lambda s: {"kind": "llm", "prompt": s}, "prompt"),
        (key, f"/tables/{spare}/join", lambda s: {"name": s}, "name"),
        (OPERATOR_KEY, f"/tables/{spare}/abort", lambda s: {"detail": s}, "detail"),
    ]

    @settings(max_examples=200, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(text=TEXT, where=st.integers(0, 10**6), as_key=st.booleans())
    def attack(text: str, where: int, as_key: bool) -> None:
        # what the server decodes: an escaped high + low surrogate pair is one character
        bad = text_fault(json.loads(json.dumps(text))) is not None
        if where % 3:  # a frame on a seat of one of the three games
            game = list(FIELDS)[where % 3]
            fields = FIELDS[game]
            name = fields[where % len(fields)]
            doc: dict[str, Any] = {"type": "move", "turn_id": "stale-turn"}
            if as_key and name != "turn_id":
                doc[text] = 1
                name = "<key>"
            else:
                doc[name] = text
            reply = _reply(sockets[game], json.dumps(doc))  # surrogates go as \u escapes
            tried["frames"] += 1
            if bad:
                assert (reply["type"], reply["code"]) == ("error", "bad_text"), reply
                assert reply["message"].startswith(f"{name}: "), reply
                tried["refused"] += 1
            else:
                assert reply.get("code") != "bad_text", reply
            return
        who, path, body, name = bodies[where // 3 % len(bodies)]
        response = post(who, path, body(text))
        tried["bodies"] += 1
        assert response.status_code < 500, response.text
        if bad:
            error = response.json()["error"]
            assert (response.status_code, error["code"]) == (400, "bad_text"), error
            assert error["message"].startswith(f"{name}: "), error
            tried["refused"] += 1
        else:
            assert response.status_code >= 400 or "error" not in response.json()

    try:
        attack()
    finally:
        honest.stop.set()
        thread.join(300)
        stack.close()
        http.close()
    print("\nunicode:", json.dumps({**tried, "honest_tables": honest.played,
                                    "honest_changed": honest.changed}))
    assert honest.error is None, honest.error
    assert honest.played >= len(HONEST) and honest.changed == 0
    assert tried["frames"] > 50 and tried["bodies"] > 20 and tried["refused"] > 20
    assert server_errors(server.log_path.read_text()) == []
