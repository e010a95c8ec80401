"""An agent's `cap` and `games` after registration, on a real server: its owner changes them
(`PATCH /agents/NAME`, `cogleague agent set NAME`) with the checks registration makes (a 400
naming the field and the allowed values, nothing stored); the change counts from the next
match, and the tables the agent is playing go on."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from cogleague.client import LobbyClient
from cogleague.client.lobby import LobbyError
from season.season import (
    account,
    constant_policy,
    file_b64,
    post,
    query,
    register,
    season_file,
)
from server.support import OPERATOR_KEY

CLI = str(Path(sys.executable).with_name("cogleague"))


def _shown(url: str, name: str) -> dict[str, Any]:
    return dict(httpx.get(f"{url}/agents/{name}", timeout=10).json()["versions"][0])


async def _refused(url: str, key: str, name: str, body: Any) -> LobbyError:
    async with LobbyClient(url, key) as lobby:
        with pytest.raises(LobbyError) as caught:
            await lobby.request("PATCH", f"/agents/{name}", body)
    return caught.value


async def test_an_owner_changes_the_cap_and_the_games(make_server: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    url = server.url
    key = await account(url, OPERATOR_KEY, "ann")
    await register(url, key, name="bot", games=["dilemma"], cap=1, description="first")
    async with LobbyClient(url, key) as lobby:
        changed = await lobby.request("PATCH", "/agents/bot",
                                      {"cap": 3, "games": ["dilemma", "commons"]})
        assert (changed["cap"], changed["games"], changed["description"]) == (
            3, ["dilemma", "commons"], "first"), changed
        only_cap = await lobby.request("PATCH", "/agents/bot", {"cap": 2})
    assert (only_cap["cap"], only_cap["games"]) == (2, ["dilemma", "commons"]), only_cap
    shown = _shown(url, "bot")
    assert (shown["cap"], shown["games"], shown["version"]) == (2, ["dilemma", "commons"], 1)


BAD: list[tuple[Any, str]] = [
    ({"cap": 0}, r"cap:? must be an integer in 1\.\.64 \(got 0\)"),
    ({"cap": 65}, r"cap:? must be an integer in 1\.\.64 \(got 65\)"),
    ({"cap": True}, r"cap:? must be an integer in 1\.\.64 \(got [Tt]rue\)"),
    ({"cap": "2"}, r"cap:? must be an integer in 1\.\.64 \(got '2'\)"),
    ({"cap": 1.5}, r"cap:? must be an integer in 1\.\.64 \(got 1\.5\)"),
    ({"cap": None}, r"cap:? must be an integer in 1\.\.64 \(got None\)"),
    ({"games": []}, r"games:? must be a (non-empty list|list of at least 1 item)"),
    ({"games": "dilemma"}, r"games:? must be a"),
    ({"games": ["dilemma", "chess"]},
     r"games\[1\] must be one of dilemma, commons \(got 'chess'\)"),
    ({}, r"give at least one of cap, games, description"),
    ({"cap": 2, "name": "other"}, r"name"),
    ({"kind": "model"}, r"kind"),
]
"""A refused body and the message it must get (a pattern: the field, the allowed values)."""


async def test_a_bad_change_is_refused_naming_the_field_and_stores_nothing(
        make_server: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    url = server.url
    key = await account(url, OPERATOR_KEY, "ann")
    await register(url, key, name="bot", games=["dilemma"], cap=1)
    for body, message in BAD:
        refused = await _refused(url, key, "bot", body)
        assert refused.status == 400 and re.search(message, refused.message), (body, refused)
    assert query(db, "SELECT cap, games FROM agents WHERE name = 'bot'") == [(1, '["dilemma"]')]
    other = await account(url, OPERATOR_KEY, "bob")
    refused = await _refused(url, other, "bot", {"cap": 2})
    assert refused.status == 403 and "another account" in refused.message
    refused = await _refused(url, key, "nobody", {"cap": 2})
    assert refused.status == 404 and "'nobody' does not exist" in refused.message
    await post(url, key, "/agents/bot/retire")
    refused = await _refused(url, key, "bot", {"cap": 2})
    assert refused.status == 409 and "retired" in refused.message
    assert query(db, "SELECT cap, games FROM agents WHERE name = 'bot'") == [(1, '["dilemma"]')]


async def test_a_baseline_agents_new_game_must_have_its_baseline(make_server: Any,
                                                                 tmp_path: Path) -> None:
    """The check registration makes against every game it names: a baseline agent cannot
    take a game whose baselines do not include its own."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    refused = await _refused(server.url, OPERATOR_KEY, "tft", {"games": ["dilemma", "commons"]})
    assert refused.status == 400 and "baseline must be one of" in refused.message \
        and "for commons (got 'tit_for_tat')" in refused.message, refused
    assert _shown(server.url, "tft")["games"] == ["dilemma"]


async def test_a_policy_agents_new_game_must_fit_its_policy_file(make_server: Any,
                                                                  tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)),
                         policy_dir=str(tmp_path / "hosted"))
    key = await account(server.url, OPERATOR_KEY, "ann")
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    await register(server.url, key, name="pol", kind="policy", games=["dilemma"],
                   policy_file=file_b64(coop))
    refused = await _refused(server.url, key, "pol", {"games": ["dilemma", "commons"]})
    assert refused.status == 400 and refused.message.startswith(
        "games[1]: the agent's policy file does not play commons") \
        and "was trained for game 'dilemma'" in refused.message, refused
    assert str(tmp_path) not in refused.message and ".npz" not in refused.message, refused
    assert _shown(server.url, "pol")["games"] == ["dilemma"]


async def test_cli_agent_set(make_server: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="bot", games=["dilemma"], cap=1)
    env = {"COGLEAGUE_SERVER": server.url, "COGLEAGUE_KEY": key, "PATH": "/usr/bin:/bin",
           "NO_COLOR": "1", "COLUMNS": "200"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([CLI, "agent", "set", *args], env=env, capture_output=True,
                              text=True, timeout=60)

    done = await asyncio.to_thread(cli, "bot", "--cap", "4", "--games", "dilemma,commons")
    assert done.returncode == 0, done.stderr
    assert "bot v1  remote  dilemma, commons  cap 4  active" in done.stdout, done.stdout
    bad = await asyncio.to_thread(cli, "bot", "--games", "chess")
    assert bad.returncode != 0 and "--games[0] must be one of dilemma, commons (got 'chess')" \
        in bad.stderr + bad.stdout, (bad.stdout, bad.stderr)
    bad = await asyncio.to_thread(cli, "bot", "--cap", "0")
    assert bad.returncode != 0 and "--cap" in bad.stderr + bad.stdout, (bad.stdout, bad.stderr)
    nothing = await asyncio.to_thread(cli, "bot")
    assert nothing.returncode != 0 and "--cap, --games" in nothing.stderr + nothing.stdout, (
        nothing.stdout, nothing.stderr)
    assert _shown(server.url, "bot")["cap"] == 4


async def _agent(url: str, key: str, name: str) -> ClientConnection:
    q = urlencode({"agent": name, "key": key})
    return await connect(url.replace("http://", "ws://") + "/ws/agent?" + q, proxy=None)


async def _next(ws: ClientConnection, kind: str, timeout: float = 30.0) -> dict[str, Any]:
    async def loop() -> dict[str, Any]:
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == "ping":
                await ws.send('{"type": "pong"}')
            elif frame["type"] == kind:
                return dict(frame)

    return await asyncio.wait_for(loop(), timeout)


async def test_a_change_counts_from_the_next_match_and_tables_in_play_go_on(
        make_server: Any, tmp_path: Path) -> None:
    """A connected agent at its cap of one gets a second table once its cap is two, and a
    commons table once its games are commons only; the dilemma table it was assigned first is
    still running, its seat still the agent's."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, max_running=6,
                                                    fill_after_s=0.2, final_top=0)),
                         ping_interval_s=1.0)
    url = server.url
    key = await account(url, OPERATOR_KEY, "ann")
    await register(url, key, name="bot", games=["dilemma"], cap=1)
    ws = await _agent(url, key, "bot")
    try:
        await _next(ws, "hello")
        await ws.send(json.dumps({"type": "ready"}))
        first = await _next(ws, "assign")  # never played: the table waits for its seat
        assert first["game"] == "dilemma"
        async with LobbyClient(url, key) as lobby:
            await lobby.request("PATCH", "/agents/bot", {"cap": 2})
        second = await _next(ws, "assign")
        assert second["table"] != first["table"] and second["game"] == "dilemma"
        async with LobbyClient(url, key) as lobby:
            await lobby.request("PATCH", "/agents/bot", {"cap": 3, "games": ["commons"]})
        third = await _next(ws, "assign")
        assert third["game"] == "commons", third
        states = dict(query(db, "SELECT id, state FROM tables WHERE id IN (:a, :b)",
                            a=first["table"], b=second["table"]))
        assert states == {first["table"]: "running", second["table"]: "running"}, states
        seat = query(db, "SELECT a.name FROM season_seats ss JOIN agents a ON a.id = "
                         "ss.agent_id WHERE ss.table_id = :t AND ss.active", t=first["table"])
        assert ("bot",) in seat, seat
    finally:
        await ws.close()


HELLO_FIELDS = {"type", "agent", "version", "cap", "games", "state", "reason", "phase"}


async def test_a_connected_agent_is_told_its_new_settings(make_server: Any,
                                                          tmp_path: Path) -> None:
    """`hello` gives the values when the socket opened; a change made while it is open
    (`PATCH`, a pause, a resume, a retirement) comes on the open socket as a `changed` frame
    of the same fields, so the agent never plays on with a cap or games it no longer has."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    url = server.url
    key = await account(url, OPERATOR_KEY, "ann")
    await register(url, key, name="bot", games=["dilemma"], cap=1)
    await post(url, key, "/agents/bot/pause")  # not matched: only its settings come
    ws = await _agent(url, key, "bot")
    try:
        hello = await _next(ws, "hello")
        assert set(hello) == HELLO_FIELDS and hello["cap"] == 1, hello
        await ws.send(json.dumps({"type": "ready"}))
        async with LobbyClient(url, key) as lobby:
            await lobby.request("PATCH", "/agents/bot",
                                {"cap": 3, "games": ["dilemma", "commons"]})
        changed = await _next(ws, "changed")
        assert changed == {"type": "changed", "agent": "bot", "version": 1, "cap": 3,
                           "games": ["dilemma", "commons"], "state": "paused",
                           "reason": "paused by its owner", "phase": "running"}, changed
        await post(url, key, "/agents/bot/resume")
        resumed = await _next(ws, "changed")
        assert (resumed["state"], resumed["reason"], resumed["cap"]) == ("active", None, 3)
        async with LobbyClient(url, key) as lobby:  # nothing an agent plays by: no frame
            await lobby.request("PATCH", "/agents/bot", {"description": "new words"})
            await lobby.request("PATCH", "/agents/bot", {"cap": 2})
        assert (await _next(ws, "changed"))["cap"] == 2  # the next one is the cap's
        await post(url, key, "/agents/bot/retire")
        assert (await _next(ws, "changed"))["state"] == "retired"
    finally:
        await ws.close()


async def test_a_change_made_before_ready_is_told_after_it(make_server: Any,
                                                           tmp_path: Path) -> None:
    """A change between the `hello` and the agent's `ready` is not lost: it comes once the
    agent is online."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    url = server.url
    key = await account(url, OPERATOR_KEY, "ann")
    await register(url, key, name="bot", games=["dilemma"], cap=1)
    await post(url, key, "/agents/bot/pause")
    ws = await _agent(url, key, "bot")
    try:
        assert (await _next(ws, "hello"))["cap"] == 1
        async with LobbyClient(url, key) as lobby:
            await lobby.request("PATCH", "/agents/bot", {"cap": 5})
        await ws.send(json.dumps({"type": "ready"}))
        assert (await _next(ws, "changed"))["cap"] == 5
    finally:
        await ws.close()


@pytest.mark.postgres
async def test_on_postgres_a_change_made_on_another_process_reaches_the_socket(
        make_server: Any, tmp_path: Path, pg_cluster: Any) -> None:
    """Two processes on one database: the agent's socket on one, its owner's `PATCH` on the
    other; the socket's process reads the change and sends `changed`."""
    db = pg_cluster.new_database()
    season = str(season_file(tmp_path, tables=100000, final_top=0))
    one = make_server(db, season=season)
    two = make_server(db, season=season)
    key = await account(one.url, OPERATOR_KEY, "ann")
    await register(one.url, key, name="bot", games=["dilemma"], cap=1)
    await post(one.url, key, "/agents/bot/pause")
    ws = await _agent(one.url, key, "bot")
    try:
        await _next(ws, "hello")
        await ws.send(json.dumps({"type": "ready"}))
        async with LobbyClient(two.url, key) as lobby:
            await lobby.request("PATCH", "/agents/bot", {"cap": 6})
        assert (await _next(ws, "changed"))["cap"] == 6
    finally:
        await ws.close()


async def test_registering_ones_own_agent_again_says_it_is_yours(make_server: Any,
                                                                 tmp_path: Path) -> None:
    """The join snippet run a second time: registering a name the account already holds
    says it is this account's agent and how to change it, not only "taken"; another
    account's name is still just taken."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="my-bot", games=["dilemma"])
    with pytest.raises(LobbyError) as caught:
        await register(server.url, key, name="my-bot", games=["dilemma"], cap=2)
    assert caught.value.status == 409 and caught.value.message == (
        "name 'my-bot' is already your agent (registered once; keep it online with cogleague "
        "agent run BOT --agent my-bot, change it with cogleague agent set my-bot)"), \
        caught.value.message
    other = await account(server.url, OPERATOR_KEY, "bob")
    with pytest.raises(LobbyError) as caught:
        await register(server.url, other, name="my-bot", games=["dilemma"])
    assert caught.value.message == "name 'my-bot' is taken in this league", caught.value.message


async def test_a_name_with_a_space_is_refused_in_words(make_server: Any, tmp_path: Path) -> None:
    """`cogleague agent register "my bot"`: the refusal says which characters a name may
    hold, not a regular expression."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    with pytest.raises(LobbyError) as caught:
        await register(server.url, key, name="my bot", games=["dilemma"])
    assert caught.value.status == 400 and caught.value.message == (
        "name: must be a text of 1..64 letters, digits, _ . or - (got 'my bot')"), \
        caught.value.message
