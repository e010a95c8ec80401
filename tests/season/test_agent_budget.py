"""A model agent over its daily token budget is paused, with the reason, and stays so for the
day: its owner cannot resume it over its budget, nor start its day again with a new version
(the budget is the agent's per day, not each version's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from cogleague.client import LobbyClient
from cogleague.client.lobby import LobbyError
from helpers.provider_server import ProviderServer, Reply
from season.season import account, post, query, register, season_file, wait_for
from server.support import OPERATOR_KEY


def _current(url: str, name: str) -> dict[str, Any]:
    return dict(httpx.get(f"{url}/agents/{name}", timeout=10).json()["versions"][0])


async def test_an_agent_over_its_budget_stays_paused_for_the_day(
        make_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    db = f"sqlite:///{tmp_path / 'league.db'}"
    with ProviderServer(lambda _r: Reply('{"action": "cooperate"}')) as provider:
        server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                        fill_after_s=0.0, max_running=2)),
                             model_provider="openai", model_name="m",
                             model_base_url=provider.openai_url)
        url = server.url
        key = await account(url, OPERATOR_KEY, "tia")
        await register(url, key, name="tiny", kind="model", games=["dilemma"],
                       prompt="Cooperate.", model="m", token_budget=50)
        row = await wait_for(lambda: (a := _current(url, "tiny"))["state"] == "paused" and a,
                             60, "the budget pause")
        assert row["reason"].startswith("token budget: ") and row["tokens_used"] >= 50

        with pytest.raises(LobbyError) as caught:
            await post(url, key, "/agents/tiny/resume")
        assert caught.value.status == 409 and "token budget" in caught.value.message
        assert _current(url, "tiny")["state"] == "paused"

        async with LobbyClient(url, key) as lobby:
            await lobby.request("POST", "/agents/tiny/versions",
                                {"prompt": "Cooperate, always.", "model": "m",
                                 "token_budget": 50})
        v2 = _current(url, "tiny")
        assert v2["version"] == 2 and v2["state"] == "paused"
        assert v2["tokens_used"] >= 50, v2
        with pytest.raises(LobbyError) as caught:
            await post(url, key, "/agents/tiny/resume")
        assert caught.value.status == 409 and "token budget" in caught.value.message
        assert _current(url, "tiny")["state"] == "paused"


async def test_tokens_of_a_table_that_ends_after_a_new_version_count_on_the_agent(
        make_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    db = f"sqlite:///{tmp_path / 'league.db'}"
    with ProviderServer(lambda _r: Reply('{"action": "cooperate"}', latency=0.4)) as provider:
        server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                        fill_after_s=0.0, max_running=1)),
                             model_provider="openai", model_name="m",
                             model_base_url=provider.openai_url)
        url = server.url
        key = await account(url, OPERATOR_KEY, "tia")
        await register(url, key, name="slow", kind="model", games=["dilemma"],
                       prompt="Cooperate.", model="m")
        playing = ("SELECT COUNT(*) FROM season_seats ss JOIN tables t ON t.id = ss.table_id "
                   "WHERE ss.agent_id = :a AND t.state = 'running'")
        v1 = _current(url, "slow")
        await wait_for(lambda: query(db, playing, a=v1["id"])[0][0], 30, "a table of v1")
        async with LobbyClient(url, key) as lobby:
            v2 = await lobby.request("POST", "/agents/slow/versions", {"prompt": "Cooperate!"})
        await wait_for(lambda: not query(db, playing, a=v1["id"])[0][0], 60,
                       "v1's table to end")
        used = dict(query(db, "SELECT version, tokens_used FROM agents WHERE name = 'slow'"))
    # v1's table ended after v2 was made: its tokens are the agent's, counted on the version
    # that plays now (the one the budget pauses), not on v1, which no longer plays
    assert used[1] == v2["tokens_used"], (used, v2["tokens_used"])
    assert used[2] > v2["tokens_used"], (used, v2["tokens_used"])
