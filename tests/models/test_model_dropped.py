"""A model seat is told what the game dropped from its accepted reply (`Parsed.reason`, such as
a Ledger note with the wrong subject): in its next turn's prompt and in its transcript row, and
a recorded episode that says so still replays with the provider stopped."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from cogleague.core.episode import run_episode
from cogleague.core.game import Parsed, Turn
from helpers.model_toys import TextToyGame, model_seats, options_for
from helpers.provider_server import ProviderServer, Recorded, Reply

WHY = "note dropped: subject must be 'Gizmo' (got 'Nobody'); the move stands"


class NotingToyGame(TextToyGame):
    """The text toy game, whose rules drop any ``note`` and say so in `Parsed.reason`."""

    def parse(self, turn: Turn, raw: Any) -> Parsed:
        parsed = super().parse(turn, raw)
        noted = '"note"' in raw if isinstance(raw, str) else "note" in raw
        return Parsed(parsed.action, parsed.clamped, WHY if noted else None)


def noting_in_round_one(req: Recorded) -> Reply:
    first = "Round 1." in req.messages[0]["content"]
    return Reply('{"n": 4, "note": "hi"}' if first else '{"n": 5}')


async def test_the_next_prompt_says_what_was_dropped_and_why(server: ProviderServer,
                                                             tmp_path: Path) -> None:
    server.script = noting_in_round_one
    path = tmp_path / "t.jsonl"
    game = NotingToyGame(seats=1, rounds=3)
    await run_episode(game, model_seats(game, options_for(server, transcript=str(path))))
    prompts = [r.user_text for r in server.requests]
    assert len(prompts) == 3
    assert WHY not in prompts[0] and WHY in prompts[1] and WHY not in prompts[2]
    assert "dropped" in prompts[1].split(WHY)[0].splitlines()[-1]  # said plainly, with why
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["dropped"] for r in rows] == [WHY, None, None]
    assert [r["decision"]["action"] for r in rows] == [{"n": 4}, {"n": 5}, {"n": 5}]


async def test_a_recording_that_told_the_model_replays_with_the_provider_stopped(
        tmp_path: Path) -> None:
    game = NotingToyGame(seats=2, rounds=3)
    with ProviderServer(noting_in_round_one) as live:
        options = options_for(live, recording=str(tmp_path / "rec"), recording_mode="record",
                              transcript=str(tmp_path / "live.jsonl"))
        recorded = await run_episode(game, model_seats(game, options))
    assert any(WHY in m["content"] for r in live.requests for m in r.messages)
    game = NotingToyGame(seats=2, rounds=3)
    replay = dataclasses.replace(options, recording_mode="replay", api_key=None,
                                 transcript=str(tmp_path / "replayed.jsonl"))
    replayed = await run_episode(game, model_seats(game, replay))  # no RecordingMiss
    assert replayed.log.to_json() == recorded.log.to_json()

    def prompts(name: str) -> list[Any]:
        lines = (tmp_path / name).read_text(encoding="utf-8").splitlines()
        return [(r["prompt"], r["dropped"]) for r in map(json.loads, lines)]
    assert prompts("replayed.jsonl") == prompts("live.jsonl")


async def test_a_reply_with_a_huge_integer_is_read_and_refused_only_where_it_is_the_number(
        server: ProviderServer, tmp_path: Path, shape: str) -> None:
    """Before: a 5,000-digit integer anywhere made the whole reply a parse failure."""
    huge = "1" * 5000
    server.script = lambda req: Reply('{"n": 3, "why": ' + huge + "}" if "seat 0." in
                                      req.user_text else '{"n": ' + huge + "}")
    path = tmp_path / "t.jsonl"
    game = TextToyGame(seats=2, rounds=1)
    await run_episode(game, model_seats(game, options_for(server, shape, transcript=str(path))))
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    read, refused = rows[0], rows[-1]
    assert (read["cause"], read["decision"]["action"]) == (None, {"n": 3})
    assert refused["seat"] == 1 and refused["cause"] == "illegal"
    assert refused["decision"]["reason"] == "n must be an integer 0..9"
