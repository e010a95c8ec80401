"""A held-out agent is rated and matched but named nowhere public until the season ends: not on
the board, not on an agent page, and not in the public agent list (`GET /agents`,
`GET /agents/NAME`); its owner still sees it in their own list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from season.season import account, register, season_file
from server.support import OPERATOR_KEY


async def test_a_held_out_agent_is_not_in_the_public_agent_list(make_server: Any,
                                                                tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    held_out=("hidden",))))
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
