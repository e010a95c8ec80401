"""Tables played on the server outside a season reach the league standings (league
``"server"``) with a book entry per seat name saying what sat there: a baseline, a remote
bot or person, by the account that seated it. Without one the Observatory called every
server seat a "server account", the built-in strategies included."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from cogleague.league import store
from cogleague.league.rankings.standings import standings_json
from server.support import ServerProcess, play_table

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from dilemma_bot import PromiseKeeper


async def test_server_tables_book_each_seat_by_its_kind(make_server: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'book.db'}"
    server: ServerProcess = make_server(url)
    lineup: list[Any] = ["tit_for_tat", PromiseKeeper(), "always_defect", "pavlov"]
    names = ["tit_for_tat", "keeper-bot", "my defector", "pavlov"]
    await play_table(server, "dilemma", lineup, seed=5, config={"rounds_total": 4},
                     names=names)
    deadline = time.monotonic() + 60
    while not (book := _book(url)) or len(book) < 4:
        assert time.monotonic() < deadline, book
        await asyncio.sleep(0.2)
    assert {n: book[n]["kind"] for n in names} == {
        "tit_for_tat": "baseline", "keeper-bot": "remote", "my defector": "baseline",
        "pavlov": "baseline"}
    assert book["my defector"]["ref"] == "always_defect"  # the strategy behind the name
    assert all(book[n]["author"].startswith("acct") for n in names)  # who seated it
    document = standings_json(url, league=store.SERVER_LEAGUE, resamples=10)
    kinds = {r["policy"]: r["kind"] for table in document["tables"] for r in table["rows"]}
    assert kinds == {"tit_for_tat": "baseline", "keeper-bot": "remote",
                     "my defector": "baseline", "pavlov": "baseline"}


def _book(url: str) -> dict[str, dict[str, Any]]:
    try:
        return store.load_policies(url, store.SERVER_LEAGUE)
    except Exception:  # nothing recorded yet: the league's tables come with the first record
        return {}

