"""A held-out agent is rated and matched but named nowhere public until the season ends: not on
the board, not on an agent page, and not in the public agent list (`GET /agents`,
`GET /agents/NAME`), nor in the league file the server serves; its owner still sees it in
their own list. The results and replay of a table it sat at, which name every seat's policy,
are withheld (409, saying why) until then, and served as stored after."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import httpx

from season.season import (
    account,
    constant_policy,
    file_b64,
    query,
    recorded,
    register,
    season_file,
    wait_for,
)
from server.support import OPERATOR_KEY


async def test_a_held_out_agent_is_not_in_the_public_agent_list(make_server: Any,
                                                                tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    season = season_file(tmp_path, tables=100000, final_top=0, held_out=("hidden",))
    server = make_server(db, season=str(season))
    url = server.url
    key = await account(url, OPERATOR_KEY, "hal")
    await register(url, key, name="hidden", games=["dilemma"])
    await register(url, key, name="shown", games=["dilemma"])

    public = httpx.get(f"{url}/agents", timeout=10).json()["agents"]
    names = {a["name"] for a in public}
    assert "shown" in names and "hidden" not in names, names
    one = httpx.get(f"{url}/agents/hidden", timeout=10)
    assert one.status_code == 404, one.text
    assert httpx.get(f"{url}/leagues/ci-season/agents/hidden", timeout=10).status_code == 404
    mine = httpx.get(f"{url}/agents?mine=true", timeout=10,
                     headers={"Authorization": f"Bearer {key}"}).json()["agents"]
    assert {a["name"] for a in mine} == {"hidden", "shown"}

    # the season's league file, served to rerun it offline, names no held-out agent either
    config = httpx.get(f"{url}/leagues/ci-season/config", timeout=10)
    assert config.status_code == 200 and "hidden" not in config.text, config.text
    served = tomllib.loads(config.text)
    assert served["season"]["held_out"] == [] and served["games"] == tomllib.loads(
        season.read_text())["games"]


async def test_a_held_out_agent_is_named_once_the_season_ends(
        make_server: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    season = season_file(tmp_path, tables=2, final_top=0, fill_after_s=0.0,
                         held_out=("hidden",))
    server = make_server(db, season=str(season), policy_dir=str(tmp_path / "hosted"))
    url = server.url
    key = await account(url, OPERATOR_KEY, "hal")
    await register(url, key, name="hidden", kind="policy", games=["dilemma"],
                   policy_file=file_b64(coop))
    await wait_for(lambda: httpx.get(f"{url}/leagues/ci-season/standings", timeout=10).json()
                   ["phase"] == "ended", 60, "the end")
    assert httpx.get(f"{url}/leagues/ci-season/config", timeout=10).text == season.read_text()
    assert "hidden" in {a["name"] for a in httpx.get(f"{url}/agents", timeout=10).json()
                        ["agents"]}
    assert httpx.get(f"{url}/leagues/ci-season/agents/hidden", timeout=10).status_code == 200
    await wait_for(lambda: recorded(db, "SELECT id FROM league_episodes WHERE lineup LIKE "
                                     "'%hidden@v1%'"), 30, "its table recorded in the league")
    assert "hidden@v1" in httpx.get(f"{url}/api/standings", params={"game": "dilemma"},
                                    timeout=30).text
    table = query(db, "SELECT ss.table_id FROM season_seats ss JOIN agents a ON a.id = "
                      "ss.agent_id WHERE a.name = 'hidden'")[0][0]
    for document in ("results", "replay"):  # served as stored, naming it
        got = httpx.get(f"{url}/tables/{table}/{document}", timeout=10)
        assert got.status_code == 200 and "hidden@v1" in got.text, (document, got.text[:200])


async def test_a_held_out_agent_is_not_named_by_its_tables_documents(make_server: Any,
                                                                    tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    fill_after_s=0.0, held_out=("hidden",))),
                         policy_dir=str(tmp_path / "hosted"))
    url = server.url
    key = await account(url, OPERATOR_KEY, "hal")
    await register(url, key, name="hidden", kind="policy", games=["dilemma"],
                   policy_file=file_b64(coop))
    sat = ("SELECT t.id FROM tables t JOIN season_seats ss ON ss.table_id = t.id JOIN agents a "
           "ON a.id = ss.agent_id WHERE t.state = 'finished' AND a.name = :n")
    await wait_for(lambda: query(db, sat, n="hidden"), 30, "a finished table of the agent's")
    table = query(db, sat, n="hidden")[0][0]
    others = query(db, "SELECT id FROM tables WHERE state = 'finished' AND id NOT IN "
                       "(SELECT table_id FROM season_seats ss JOIN agents a ON a.id = "
                       "ss.agent_id WHERE a.name = 'hidden')")
    assert httpx.get(f"{url}/leagues/ci-season/standings", timeout=10).json()["phase"] \
        == "running"
    for document in ("results", "replay"):
        got = httpx.get(f"{url}/tables/{table}/{document}", timeout=10)
        assert got.status_code == 409 and "hidden@v" not in got.text, (document, got.text)
        assert "held-out agent" in got.json()["error"]["message"], got.text
        if others:  # a table the agent did not sit at is served as ever
            assert httpx.get(f"{url}/tables/{others[0][0]}/{document}",
                             timeout=10).status_code == 200
    # nor does the Observatory's standings name it, from the tables it sat at
    await wait_for(lambda: recorded(db, "SELECT id FROM league_episodes WHERE lineup LIKE "
                                     "'%hidden@v1%'"), 30, "its table recorded in the league")
    observatory = httpx.get(f"{url}/api/standings", params={"game": "dilemma"}, timeout=30)
    assert observatory.status_code == 200 and "hidden@v" not in observatory.text, \
        observatory.text[:300]


async def test_the_operator_lists_held_out_agents(make_server: Any, tmp_path: Path) -> None:
    """The operator manages every agent, held-out ones too (pause, retire), but the only
    list it could read was the public one, which leaves them out until the season ends: with
    the operator's key `GET /agents` lists them; anyone else's list still does not."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    season = season_file(tmp_path, tables=100000, final_top=0, held_out=("hidden",))
    url = make_server(db, season=str(season)).url
    key = await account(url, OPERATOR_KEY, "hal")
    await register(url, key, name="hidden", games=["dilemma"])
    listed = {a["name"] for a in httpx.get(
        f"{url}/agents", timeout=10, headers={"Authorization": f"Bearer {OPERATOR_KEY}"}
    ).json()["agents"]}
    assert "hidden" in listed, listed
    one = httpx.get(f"{url}/agents/hidden", timeout=10,
                    headers={"Authorization": f"Bearer {OPERATOR_KEY}"})
    assert one.status_code == 200 and one.json()["versions"][0]["name"] == "hidden", one.text
    other = await account(url, OPERATOR_KEY, "eve")
    for headers in ({}, {"Authorization": f"Bearer {other}"}):
        public = httpx.get(f"{url}/agents", timeout=10, headers=headers).json()["agents"]
        assert "hidden" not in {a["name"] for a in public}
