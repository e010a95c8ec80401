"""The agents API refuses text no database stores (a lone surrogate, a NUL) as every other
body does: 400 `bad_text` naming the field, nothing stored. Before, `POST /agents` stored a
NUL in a description on SQLite and answered 500 on PostgreSQL (which refuses it)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from season.season import account, register, season_file
from server.support import OPERATOR_KEY, ServerProcess

BAD = ["a\x00b", "x\ud800"]


def _post(server: ServerProcess, key: str, path: str, body: Any) -> httpx.Response:
    # json.dumps writes a surrogate as its \u escape: exactly what a hostile client sends
    return httpx.post(server.url + path, content=json.dumps(body), timeout=30,
                      headers={"Authorization": f"Bearer {key}",
                               "Content-Type": "application/json"})


def _check(server: ServerProcess) -> None:
    key = asyncio.run(account(server.url, OPERATOR_KEY, "writer"))
    asyncio.run(register(server.url, key, name="mind", kind="model", games=["dilemma"],
                         prompt="Cooperate.", model="m"))
    before = httpx.get(f"{server.url}/agents").json()
    for bad in BAD:
        for path, body, field in (
                ("/agents", {"name": "x", "games": ["dilemma"], "description": bad},
                 "description"),
                ("/agents", {"name": "y", "games": ["dilemma"], "kind": "model", "model": "m",
                             "prompt": bad}, "prompt"),
                ("/agents/mind/versions", {"prompt": f"Defect {bad}"}, "prompt")):
            response = _post(server, key, path, body)
            assert response.status_code == 400, (path, field, bad, response.text)
            error = response.json()["error"]
            assert error["code"] == "bad_text", (path, field, error)
            assert error["message"].startswith(f"{field}: "), (path, field, error)
    assert httpx.get(f"{server.url}/agents").json() == before


def test_agent_bodies_refuse_unstorable_text_on_sqlite(make_server: Any, tmp_path: Path
                                                       ) -> None:
    _check(make_server(f"sqlite:///{tmp_path / 'league.db'}",
                       season=str(season_file(tmp_path, tables=1, final_top=0))))


@pytest.mark.postgres
def test_agent_bodies_refuse_unstorable_text_on_postgresql(
        pg_cluster: Any, make_server: Any, tmp_path: Path) -> None:
    _check(make_server(pg_cluster.new_database(),
                       season=str(season_file(tmp_path, tables=1, final_top=0))))


@pytest.mark.postgres
def test_a_nul_in_an_agent_name_is_not_found_on_postgresql(
        pg_cluster: Any, make_server: Any, tmp_path: Path) -> None:
    """A name in a path or a query is not a body (no `bad_text` check ran): PostgreSQL cannot
    even look a NUL up, so such a name must be a 404 / a refused upgrade, never a 500."""
    from server.test_abuse import server_errors

    server = make_server(pg_cluster.new_database(),
                         season=str(season_file(tmp_path, tables=1, final_top=0)))
    key = asyncio.run(account(server.url, OPERATOR_KEY, "nul-prober"))
    for action in ("pause", "resume", "retire"):
        response = _post(server, key, f"/agents/a%00b/{action}", {})
        assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found"), \
            (action, response.text)
    response = _post(server, key, "/agents/a%00b/versions", {"prompt": "Cooperate."})
    assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found"), \
        response.text
    upgrade = httpx.get(server.url + "/ws/agent?agent=a%00b",
                        headers={"Authorization": f"Bearer {key}", "Connection": "Upgrade",
                                 "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                 "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert upgrade.status_code == 401 and "does not exist" in upgrade.text, upgrade.text
    assert server_errors(server.log_path.read_text()) == []
