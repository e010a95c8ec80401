"""A seat's private text (a Commons `note`, a Ledger `memo`) is the seat's own: its transcript
row's `action` keeps it, as the game read it, in every game alike, though the Commons note
never enters the episode log or the replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cogleague.core import jsonio
from cogleague.core.episode import run_episode
from cogleague.games.registry import get
from cogleague.seats.factory import make_seats
from helpers.model_toys import options_for
from helpers.provider_server import ProviderServer, Reply

SECRET = "plan: clean first,\tthen harvest"
KEPT = "plan: clean first, then harvest"  # the tab cleaned to a space, as the game keeps it


def rows_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_a_commons_transcript_keeps_the_seats_note_off_the_log(
        server: ProviderServer, tmp_path: Path) -> None:
    server.script = lambda _req: Reply(jsonio.dumps({"harvest": 1, "clean": 1, "note": SECRET}))
    game = get("commons").make("cleanup", {"rounds": 2}, 7, ["llm"] * 6)
    path = tmp_path / "t.jsonl"
    outcome = await run_episode(
        game, make_seats(game, ["llm"] * 6, options_for(server, transcript=str(path))))
    rows = rows_of(path)
    assert len(rows) == 12
    assert all(r["action"] == {**r["decision"]["action"], "note": KEPT} for r in rows)
    assert KEPT not in jsonio.dumps(outcome.log.to_json())  # the note stays private
    assert all("note" not in r["decision"]["action"] for r in rows)
    assert any(KEPT in m["content"] for m in rows[-1]["prompt"])  # shown back to its author


async def test_a_ledger_transcript_keeps_the_seats_memo(server: ProviderServer,
                                                        tmp_path: Path) -> None:
    server.script = lambda _req: Reply(jsonio.dumps({"move": 1, "memo": SECRET}))
    game = get("ledger").make(None, {"rounds": 4}, 7, ["llm"] * 8)
    path = tmp_path / "t.jsonl"
    await run_episode(game, make_seats(game, ["llm"] * 8, options_for(server,
                                                                      transcript=str(path))))
    assert all(r["action"]["memo"] == KEPT for r in rows_of(path))
