"""What `WS /ws/agent` says to a program written from the docs that gets its URL wrong (a
real server, a raw `websockets` client): the refusal names the missing query parameter and
the URL's form, not an agent named ''."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from season.season import account, register, season_file
from server.support import OPERATOR_KEY


async def _refusal(url: str) -> tuple[int, str]:
    with pytest.raises(InvalidStatus) as caught:
        async with connect(url, proxy=None):
            pass
    response = caught.value.response
    return response.status_code, json.loads(bytes(response.body or b""))["error"]["message"]


async def test_a_socket_without_the_agents_name_is_told_the_urls_form(make_server: Any,
                                                                      tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="raw", games=["dilemma"])
    base = server.url.replace("http://", "ws://") + "/ws/agent"
    for query in (f"?key={key}", f"?key={key}&agent="):
        status, message = await _refusal(base + query)
        assert status == 401 and message == (
            "agent: required; name the registered agent: /ws/agent?agent=NAME (the key in "
            "Authorization: Bearer KEY, or &key=KEY)"), message
    status, message = await _refusal(f"{base}?agent=raw")
    assert status == 401 and "Authorization: Bearer" in message, message


async def test_a_misspelt_agent_name_is_told_the_keys_agents_and_the_command(
        make_server: Any, tmp_path: Path) -> None:
    """`cogleague agent run … --agent my-bott` (a typo): the refusal names this key's
    remote agents and the command that registers one, not only an HTTP route."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="my-bot", games=["dilemma"])
    other = await account(server.url, OPERATOR_KEY, "bob")
    await register(server.url, other, name="bobs-bot", games=["dilemma"])
    base = server.url.replace("http://", "ws://") + "/ws/agent"
    status, message = await _refusal(f"{base}?agent=my-bott&key={key}")
    assert status == 401 and message == (
        "agent 'my-bott' does not exist (this key's agents: my-bot; register one: cogleague "
        "agent register NAME, or POST /agents)"), message
    status, message = await _refusal(f"{base}?agent=nope&key={other}")
    assert "this key's agents: bobs-bot;" in message and "my-bot" not in message, message


async def test_an_agent_socket_on_a_server_without_a_season_says_so(make_server: Any,
                                                                    tmp_path: Path) -> None:
    """`agent run` against a server started without `--season`: the refusal says the server
    runs no season (nothing is ever matched there), not "register one", which it refuses."""
    server = make_server(f"sqlite:///{tmp_path / 'plain.db'}")
    key = await account(server.url, OPERATOR_KEY, "ann")
    base = server.url.replace("http://", "ws://") + "/ws/agent"
    status, message = await _refusal(f"{base}?agent=my-bot&key={key}")
    assert status == 401 and "this server runs no season" in message \
        and "cogleague serve --season FILE" in message, message
