"""A Ledger model seat against a real local provider server (loopback HTTP, the openai SDK):
the system text and the rendered prompt go out, text replies come back through `parse`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cogleague.core.episode import play_headless
from cogleague.seats.factory import ModelOptions, make_seats
from helpers.provider_server import ProviderServer, Recorded, Reply

from .support import make_game


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with ProviderServer() as server:
        yield server


def test_a_model_seat_plays_ledger_from_its_prompts(provider: ProviderServer) -> None:
    def script(request: Recorded) -> Reply:
        if "Round 2 of 4" in request.user_text:
            return Reply("Let me think. I'd rather not.")  # no JSON: parse fails, retry
        return Reply('My move: {"move": "50%", "note": "steady partner", "memo": "plan A"}')

    provider.script = script
    game = make_game(seed=7, rounds=4, lineup=["llm", "mirror", "shark", "grim", "saint",
                                               "opportunist", "mirror", "grim"])
    options = ModelOptions(provider="openai", model="test-model", base_url=provider.openai_url,
                           api_key="test-key")
    outcome = play_headless(game, make_seats(game, game.policy_names, options))
    requests = [r for r in provider.requests if "You are Bolt" in r.system]
    assert len(requests) == 5  # rounds 1, 3, 4 once; round 2 an attempt and its retry
    assert "one bare JSON object" in requests[0].system
    assert "Round 1 of 4. You are Bolt" in requests[0].user_text
    assert "no JSON object found" not in requests[0].user_text
    retry = requests[2]
    assert '"move": <integer' in retry.user_text  # the hint names the legal form
    steps = outcome.log.decisions
    assert steps[1]["r1s0"].source == "fallback" and steps[1]["r1s0"].cause == "parse"
    for r in (0, 2, 3):
        decision = steps[r][f"r{r}s0"]
        assert decision.source == "seat"
        slot = game.table.slots[r][0]
        assert decision.action["move"] == min(50, slot.hi)  # "50%" read, clamped to the role
        assert decision.clamped is (slot.hi < 50)
    assert game.table.memos[0] == "plan A"
    notes = [n for n in game.table.board if n.author == 0]
    assert [n.round for n in notes] == [2, 3]  # round 1 has no target; round 2 fell back
    assert outcome.results["fallbacks"][0] == 1


def test_a_round_one_note_is_recorded_as_dropped_and_told_next_round(
        provider: ProviderServer, tmp_path: Path) -> None:
    """The note a model writes in round 1 has no target and is dropped: its transcript row
    says so (`dropped`), as its next prompt does, and the export leaves the mended reply out."""
    provider.script = lambda _req: Reply('{"move": 1, "note": "looks fair"}')
    game = make_game(seed=7, rounds=4, lineup=["llm", "mirror", "shark", "grim", "saint",
                                               "opportunist", "mirror", "grim"])
    path = tmp_path / "t.jsonl"
    options = ModelOptions(provider="openai", model="test-model", base_url=provider.openai_url,
                           api_key="test-key", transcript=str(path))
    outcome = play_headless(game, make_seats(game, game.policy_names, options))
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["round"] for r in rows] == [0, 1, 2, 3]
    assert rows[0]["dropped"] is not None and "round 1" in rows[0]["dropped"]
    assert [r["dropped"] for r in rows[1:]] == [None] * 3
    assert rows[0]["dropped"] in rows[1]["prompt"][-1]["content"]  # told with round 2's view
    assert rows[0]["dropped"] not in rows[2]["prompt"][-1]["content"]
    assert outcome.faults[0] == {"wrong_shape": 1}
    assert [n.round for n in game.table.board if n.author == 0] == [1, 2, 3]
