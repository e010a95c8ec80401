"""API keys against the local provider test server: the key goes out in the request headers and
nowhere else — not in the repr of the options, seats or endpoints that carry it (what tracebacks
with locals and logs print), the results' ``models`` section, transcripts or recordings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from cogleague.core import jsonio
from cogleague.core.episode import run_episode
from cogleague.games.registry import get
from cogleague.seats.factory import ModelOptions, make_seats
from cogleague.seats.llm import accounting_for
from helpers.model_toys import options_for
from helpers.provider_server import ProviderServer, Reply

LINEUP = ["llm", "tit_for_tat", "llm", "always_defect"]
SECRET = "sk-test-0123456789abcdefSECRET"


async def play(options: ModelOptions, seed: int = 5) -> tuple[bytes, list[object]]:
    desc = get("dilemma")
    game = desc.make(None, {"rounds_total": 3}, seed, LINEUP, None)
    seats = make_seats(game, LINEUP, options)
    outcome = await run_episode(game, seats)
    return jsonio.dumps(desc.replay_document(game, outcome.log)).encode(), list(seats)


@pytest.mark.parametrize("shape", ["openai", "anthropic"])
async def test_the_api_key_is_in_no_repr_recording_or_transcript(
        tmp_path: Path, server: ProviderServer, shape: str) -> None:
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    options = dataclasses.replace(options_for(server, shape), api_key=SECRET,
                                  recording=str(tmp_path / "calls"),
                                  transcript=str(tmp_path / "t.jsonl"))
    _, seats = await play(options)
    assert server.requests and all(SECRET in json.dumps(r.headers) for r in server.requests)
    models = accounting_for(seats)
    for text in (repr(options), str(options), repr(seats), str(models),
                 repr([getattr(s, "endpoint", None) for s in seats]),
                 (tmp_path / "t.jsonl").read_text(),
                 *(p.read_text() for p in (tmp_path / "calls").glob("*.jsonl"))):
        assert SECRET not in text
