"""The League board is a live view (WS /ws/leagues/ID pushes the standings after each rated
table): left open while its server restarts, it says the connection is lost, then comes back
by itself and goes on updating — it never sits on standings that stopped moving."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from cogleague.client.agent import run_agent
from cogleague.server.app import create_app
from cogleague.server.settings import Settings
from cogleague.web.replay_server import bind
from season.bots import Either
from season.season import account, register, season_file

from .conftest import OPERATOR_KEY, LiveServer
from .test_audit import audit

pytestmark = pytest.mark.browser


def _serve(folder: Path, sock: Any = None) -> LiveServer:
    settings = Settings(db_url=f"sqlite:///{folder / 'site.db'}", operator_key=OPERATOR_KEY,
                        season=str(season_file(folder, tables=500, final_top=0)),
                        tune_gc=False)
    return LiveServer(create_app(settings), sock)


def _agent_plays(url: str, tables: int, key: str | None = None) -> str:
    """`bot-l` plays `tables` season tables (registered on the first call); its account key."""
    got: list[str] = []

    async def play() -> None:
        k = key
        if k is None:
            k = await account(url, OPERATOR_KEY, "lena")
            await register(url, k, name="bot-l", games=["dilemma"], cap=1)
        got.append(k)
        await run_agent(Either, url, k, "bot-l", max_tables=tables)
    thread = threading.Thread(target=lambda: asyncio.run(play()))
    thread.start()
    thread.join(120)
    assert not thread.is_alive() and got
    return got[0]


def _rated(page: Any) -> int:
    text = page.locator("#summary, [data-testid=summary]").first.inner_text()
    found = re.search(r"(\d+) rated", text)
    return int(found.group(1)) if found else 0


def test_the_board_comes_back_after_a_server_restart_and_goes_on_updating(
        tmp_path: Path, open_page: Any) -> None:
    first = _serve(tmp_path)
    with first:
        key = _agent_plays(first.url, 1)
        p = open_page(1280, 900)
        page = p.page
        page.goto(f"{first.url}/league")
        page.wait_for_selector("body[data-ready=league]")
        before = _rated(page)
        assert before >= 1
        port = int(first.url.rsplit(":", 1)[1])
    page.wait_for_selector("[data-testid=board-lost]:not([hidden])", timeout=15_000)
    assert audit(page) == []
    with _serve(tmp_path, bind("127.0.0.1", port)) as second:
        page.wait_for_selector("[data-testid=board-lost][hidden]", state="attached",
                               timeout=30_000)
        _agent_plays(second.url, 2, key)
        page.wait_for_function("(n) => /(\\d+) rated/.test(document.body.innerText) && "
                               "Number(document.body.innerText.match(/(\\d+) rated/)[1]) > n",
                               arg=before, timeout=30_000)
    assert [e for e in p.errors if "WebSocket" not in e and "Failed to load" not in e] == []
