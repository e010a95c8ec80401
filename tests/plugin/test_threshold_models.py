"""Model seats play the fourth game (`model_prompts=True`): the game's system text and prompt
reach the provider test server, its JSON replies are read by the game's own `parse`, and a
reply in the wrong form falls back to the game's fallback with the cause recorded."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from cogleague.core import jsonio
from cogleague.core.episode import run_episode
from cogleague.core.verify import verify_replay
from cogleague.seats.factory import make_seats
from helpers.model_toys import options_for
from helpers.provider_server import ProviderServer, Recorded, Reply
from plugin.support import need_plugin

need_plugin()

from cogleague_threshold import GAME  # noqa: E402

PROMPT = Path(__file__).parents[2] / "examples/threshold/prompts/fair.txt"


def script_for(prose_alias: str) -> Callable[[Recorded], Reply]:
    def script(req: Recorded) -> Reply:
        if req.system.startswith(f"You are {prose_alias},"):
            return Reply("I shall give generously.")  # prose: parse fails, then falls back
        last = req.user_text.strip().splitlines()[-1]
        return Reply('{"pledge": 4}' if '"pledge"' in last else '{"contribute": 6}')

    return script


async def test_model_seats_play_through_the_games_prompts() -> None:
    lineup = [f"llm:{PROMPT}", "llm", "llm", "fair_share"]
    game = GAME.make("quick", {}, 21, lineup, None)
    prose = 2
    with ProviderServer(script_for(game.aliases[prose])) as server:
        seats = make_seats(game, lineup, options_for(server))
        outcome = await run_episode(game, seats)
        requests = server.requests
    assert outcome.results["reason"] == "complete"
    seen: Counter[str] = Counter()
    for entry in outcome.log.entries:
        for tid, d in (entry.decisions or {}).items():
            seat = int(tid.rsplit(".s", 1)[1])
            seen[d.source] += 1
            if seat == 3:
                assert d.source == "scripted"
            elif seat == prose:
                assert d.source == "fallback" and d.cause == "parse" and d.attempts == 2
                assert next(iter(d.action.values())) == 0
            else:
                assert d.source == "seat" and d.action in ({"pledge": 4}, {"contribute": 6})
    assert seen == {"scripted": 6, "fallback": 6, "seat": 12}  # 3 rounds x 2 steps
    assert requests and all(r.system.startswith("You are ") for r in requests)
    assert any("threshold public-goods game" in r.system for r in requests)
    assert any(PROMPT.read_text(encoding="utf-8").split("\n")[0] in r.system + r.user_text
               for r in requests)
    assert any('Reply {"contribute": N} with N in 0..10.' in r.user_text for r in requests)
    verify_replay(json.loads(jsonio.dumps(GAME.replay_document(game, outcome.log))), GAME)
