"""An agent's page shows its behaviour traits (the batch refit's rows for it) as soon as there
are any: on a server where nobody has opened the League board first. The refit is also what
the board shows, so the two agree (a page read never waits for another page's visit)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest

from cogleague.client.agent import run_agent
from cogleague.server.app import create_app
from cogleague.server.settings import Settings
from season.bots import Either
from season.season import account, register, season_file

from .conftest import OPERATOR_KEY, LiveServer


@pytest.fixture
def fresh_site(tmp_path: Any) -> Any:
    """A season on a server whose board nobody has read: three tables played by `bot-t`."""
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'site.db'}", operator_key=OPERATOR_KEY,
                        season=str(season_file(tmp_path, tables=500, final_top=0)),
                        tune_gc=False)
    with LiveServer(create_app(settings)) as server:
        async def play() -> None:
            key = await account(server.url, OPERATOR_KEY, "tess")
            await register(server.url, key, name="bot-t", games=["dilemma"], cap=2)
            await run_agent(Either, server.url, key, "bot-t", max_tables=3)
        agent = threading.Thread(target=lambda: asyncio.run(play()))
        agent.start()
        agent.join(120)
        assert not agent.is_alive()
        yield server


def test_an_agents_page_shows_its_traits_before_anyone_opened_the_board(fresh_site: Any
                                                                         ) -> None:
    with httpx.Client(base_url=fresh_site.url, timeout=60) as http:
        page = http.get("/leagues/ci-season/agents/bot-t")
        assert page.status_code == 200, page.text
        traits = page.json()["traits"]
        assert traits.get("dilemma"), traits
        assert {r["policy"].split("@")[0] for r in traits["dilemma"]} == {"bot-t"}
        board = http.get("/leagues/ci-season/standings").json()
        fit = next(g["refit"] for g in board["games"] if g["game"] == "dilemma")
        mine = [r for r in fit["rows"] if r["policy"].split("@")[0] == "bot-t"]
        assert mine == traits["dilemma"]
