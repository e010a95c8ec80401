"""The dilemma's model seat is told why a reply was refused and answers again, as every other
game's model seat is: through the official `openai` SDK against the provider test server, a
reply past the bracket cap (`MAX_REPLY_BRACKETS`) is refused, shown back with the refusal's
reason, and the seat's second answer is its move. The dilemma gives a remote seat no second
turn (its deadline is the rules' own), so the model seat's retries fit inside that deadline."""

from __future__ import annotations

from cogleague.core.episode import run_episode
from cogleague.core.game import DECISION_RETRIES
from cogleague.core.text import MAX_REPLY_BRACKETS
from cogleague.games.registry import get
from cogleague.seats.factory import make_seats
from cogleague.seats.llm import accounting_for
from helpers.model_toys import options_for
from helpers.provider_server import ProviderServer, Recorded, Reply

FLOOD = "[" * (MAX_REPLY_BRACKETS + 1)
REASON = f"at most {MAX_REPLY_BRACKETS:,}"


def _retry_text(req: Recorded) -> str | None:
    """The correction a retry request ends with (None: a first attempt)."""
    last = req.messages[-1]["content"]
    return last if "could not be used" in last else None


async def test_a_refused_dilemma_reply_is_retried_with_its_reason(
        server: ProviderServer) -> None:
    def script(req: Recorded) -> Reply:
        # every first attempt floods; the retry, told why, answers properly
        return Reply('{"action": "defect"}') if _retry_text(req) else Reply(FLOOD)

    server.script = script
    game = get("dilemma").make(None, {"rounds_total": 1}, 7, ["llm"] * 3)
    seats = make_seats(game, ["llm"] * 3, options_for(server, "openai"))
    outcome = await run_episode(game, seats)
    decisions = [d for step in outcome.log.decisions for d in step.values()]
    assert decisions and all(d.source == "seat" for d in decisions), decisions
    assert all(d.action == {"action": "defect"} for d in decisions)
    retries = [t for t in map(_retry_text, server.requests) if t]
    assert len(retries) == len(decisions) == len(server.requests) // 2
    assert all(REASON in t for t in retries), retries  # the refusal's reason, in words
    for req in server.requests:
        if _retry_text(req):  # the refused reply is shown back before the reason
            assert req.messages[-2]["role"] == "assistant"
            assert req.messages[-2]["content"].startswith("[[[")
    models = accounting_for(seats)
    assert models is not None and models["fallbacks"] == [{}, {}, {}]


async def test_a_dilemma_reply_refused_every_time_falls_back_after_the_retries(
        server: ProviderServer) -> None:
    server.script = lambda _req: Reply(FLOOD)
    game = get("dilemma").make(None, {"rounds_total": 1}, 7, ["llm"] * 3)
    seats = make_seats(game, ["llm"] * 3, options_for(server, "openai"))
    outcome = await run_episode(game, seats)
    decisions = [d for step in outcome.log.decisions for d in step.values()]
    assert decisions and all((d.source, d.cause) == ("fallback", "parse") for d in decisions)
    assert len(server.requests) == len(decisions) * (1 + DECISION_RETRIES)
    assert outcome.reasons and REASON in outcome.reasons[0]["parse"]
    models = accounting_for(seats)
    assert models is not None and models["fallbacks"] == [{"parse": 2}] * 3
