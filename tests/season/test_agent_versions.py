"""Versions of an agent on a real server: a new prompt alone makes a new version of a model
agent (`cogleague agent version NAME --prompt FILE`), which keeps the model and the daily
token budget its owner chose; bad input is a 400 naming the field and stores nothing."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from cogleague.client import LobbyClient
from cogleague.client.lobby import LobbyError
from season.season import account, query, register, season_file
from server.support import OPERATOR_KEY

CLI = str(Path(sys.executable).with_name("cogleague"))


async def test_a_new_prompt_keeps_the_model_and_the_budget(make_server: Any,
                                                           tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    url = server.url
    key = await account(url, OPERATOR_KEY, "mo")
    await register(url, key, name="mind", kind="model", games=["dilemma"], prompt="Cooperate.",
                   model="m", token_budget=50)
    async with LobbyClient(url, key) as lobby:
        for body, field in (({"prompt": ""}, "prompt"), ({"prompt": "p", "model": "gpt-9"},
                                                         "model must be one of m"),
                            ({"prompt": "p", "token_budget": 10**9}, "token_budget")):
            with pytest.raises(LobbyError) as caught:
                await lobby.request("POST", "/agents/mind/versions", body)
            assert caught.value.status == 400 and field in caught.value.message, body
        assert query(db, "SELECT COUNT(*) FROM agents WHERE name = 'mind'")[0][0] == 1
        v2 = await lobby.request("POST", "/agents/mind/versions", {"prompt": "Defect."})
    assert (v2["version"], v2["model"], v2["token_budget"]) == (2, "m", 50), v2
    versions = httpx.get(f"{url}/agents/mind", timeout=10).json()["versions"]
    assert [(v["version"], v["current"]) for v in versions] == [(2, True), (1, False)]


async def test_new_versions_at_once_never_fail_the_server(make_server: Any,
                                                          tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    url = server.url
    key = await account(url, OPERATOR_KEY, "mo")
    await register(url, key, name="mind", kind="model", games=["dilemma"], prompt="Cooperate.",
                   model="m")

    async def version(prompt: str) -> Any:
        async with LobbyClient(url, key) as lobby:
            return await lobby.request("POST", "/agents/mind/versions", {"prompt": prompt})

    done = await asyncio.gather(*(version(f"Prompt {i}.") for i in range(3)),
                                return_exceptions=True)
    made = [d for d in done if not isinstance(d, BaseException)]
    refused = [d for d in done if isinstance(d, BaseException)]
    # one built on a version another has replaced meanwhile is refused (a 409, not a 500)
    assert made and all(isinstance(d, LobbyError) and d.status == 409 for d in refused), done
    assert sorted(d["version"] for d in made) == list(range(2, 2 + len(made)))
    rows = query(db, "SELECT version, current FROM agents WHERE name = 'mind' ORDER BY version")
    assert [(v, bool(c)) for v, c in rows] == [(v, v == 1 + len(made))
                                               for v in range(1, 2 + len(made))]


async def test_a_pause_says_who_paused_the_agent(make_server: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    url = server.url
    key = await account(url, OPERATOR_KEY, "bo")
    await register(url, key, name="bot", games=["dilemma"])
    for who, reason in ((key, "paused by its owner"), (OPERATOR_KEY, "paused by the operator")):
        async with LobbyClient(url, who) as lobby:
            await lobby.request("POST", "/agents/bot/resume")
            assert (await lobby.request("POST", "/agents/bot/pause"))["reason"] == reason
        shown = httpx.get(f"{url}/agents/bot", timeout=10).json()["versions"][0]
        assert (shown["state"], shown["reason"]) == ("paused", reason)


async def test_an_operators_change_answers_with_the_agents_owner(make_server: Any,
                                                                 tmp_path: Path) -> None:
    """The operator pausing, resuming or versioning someone's agent changes its state, not its
    owner: the answer names the account that owns it, as `GET /agents/NAME` does."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    url = server.url
    key = await account(url, OPERATOR_KEY, "ann")
    await register(url, key, name="mind", kind="model", games=["dilemma"], prompt="Cooperate.",
                   model="m")
    async with LobbyClient(url, OPERATOR_KEY) as lobby:
        answers = [await lobby.request("POST", "/agents/mind/pause"),
                   await lobby.request("POST", "/agents/mind/resume"),
                   await lobby.request("POST", "/agents/mind/versions", {"prompt": "Defect."})]
    assert [a["owner"] for a in answers] == ["ann", "ann", "ann"], answers
    shown = httpx.get(f"{url}/agents/mind", timeout=10).json()["versions"]
    assert {v["owner"] for v in shown} == {"ann"}


async def test_an_agent_the_operator_paused_stays_paused_for_its_owner(make_server: Any,
                                                                      tmp_path: Path) -> None:
    """The operator pauses an agent (a misbehaving bot, a complaint): its owner's
    `cogleague agent resume` undid that at once. Only the operator resumes it now; a pause
    of the owner's own the owner still resumes."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    url = server.url
    key = await account(url, OPERATOR_KEY, "bo")
    await register(url, key, name="bot", games=["dilemma"])
    async with LobbyClient(url, OPERATOR_KEY) as op:
        await op.request("POST", "/agents/bot/pause")
    async with LobbyClient(url, key) as owner:
        await owner.request("POST", "/agents/bot/pause")  # not a pause of its own to lift
        with pytest.raises(LobbyError) as caught:
            await owner.request("POST", "/agents/bot/resume")
    assert caught.value.status == 403 and "operator" in caught.value.message
    shown = httpx.get(f"{url}/agents/bot", timeout=10).json()["versions"][0]
    assert (shown["state"], shown["reason"]) == ("paused", "paused by the operator")
    async with LobbyClient(url, OPERATOR_KEY) as op:
        assert (await op.request("POST", "/agents/bot/resume"))["state"] == "active"
    async with LobbyClient(url, key) as owner:
        await owner.request("POST", "/agents/bot/pause")
        assert (await owner.request("POST", "/agents/bot/resume"))["state"] == "active"


async def test_a_model_agent_on_a_season_without_models_is_told_how_to_allow_one(
        make_server: Any, tmp_path: Path) -> None:
    """It read "model must be one of (none: the operator allows no model) (got 'm')": the
    refusal now names the settings that allow one."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    path = season_file(tmp_path, tables=100000, final_top=0)
    path.write_text(path.read_text().replace('models = ["m"]\n', ""))
    url = make_server(db, season=str(path)).url
    key = await account(url, OPERATOR_KEY, "mo")
    with pytest.raises(LobbyError) as caught:
        await register(url, key, name="mind", kind="model", games=["dilemma"],
                       prompt="Cooperate.", model="m")
    assert caught.value.status == 400
    assert caught.value.message == (
        "model: this season allows no model agents (the operator lists them in [season] "
        "models, or serves one with cogleague serve --model) (got 'm')"), caught.value.message


async def test_a_new_version_of_a_remote_agent_says_what_to_do_instead(
        make_server: Any, tmp_path: Path) -> None:
    """`cogleague agent version NAME` for a remote agent (its program is the owner's): the
    refusal says so and what to do — run the new code under it, or register another agent —
    without naming a --kind option the command does not have."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="my-bot", games=["dilemma"])
    done = await asyncio.to_thread(
        subprocess.run, [CLI, "agent", "version", "my-bot", "--server", server.url,
                         "--key", key], capture_output=True, text=True, timeout=60)
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "--kind" not in said and "agent my-bot is a remote agent" in said, said
    assert "run the new code under it" in said and "cogleague agent register" in said, said
    assert query(db, "SELECT COUNT(*) FROM agents WHERE name = 'my-bot'")[0][0] == 1
