"""A model seat whose answer is refused and whose retry then runs out of time falls back with
cause ``timeout`` (the counts by cause are as before), and the results' ``faults`` reasons
say why it needed a retry: ``timeout: its retry of a reply refused as parse (…) ran out of
time``. The same in the dilemma, where the model seat retries inside the rules' one deadline,
and in a game whose runner retries. The replay's decision carries no reason (a reason there
is a parse or illegal fallback's only, as the verifier requires)."""

from __future__ import annotations

from cogleague.core.episode import run_episode
from cogleague.core.game import Timing
from cogleague.core.text import MAX_REPLY_BRACKETS
from cogleague.games.registry import get
from cogleague.seats.factory import make_seats
from cogleague.seats.faults import faults_section
from helpers.model_toys import TextToyGame, model_seats, options_for
from helpers.provider_server import ProviderServer, Recorded, Reply

FLOOD = "[" * (MAX_REPLY_BRACKETS + 1)


def _first_unparseable_then_hang(req: Recorded) -> Reply:
    told = any("could not be used" in str(m["content"]) for m in req.messages[1:])
    return Reply(fault="hang") if told else Reply(FLOOD)


async def test_a_dilemma_retry_that_runs_out_of_time_says_it_followed_a_parse_refusal(
        server: ProviderServer) -> None:
    server.script = _first_unparseable_then_hang
    game = get("dilemma").make(None, {"rounds_total": 1, "turn_deadline_ms": 1000}, 7,
                               ["llm"] * 3)
    seats = make_seats(game, ["llm"] * 3, options_for(server, "openai"))
    outcome = await run_episode(game, seats)
    decisions = [d for step in outcome.log.decisions for d in step.values()]
    assert decisions and all((d.source, d.cause) == ("fallback", "timeout")
                             for d in decisions), decisions
    assert all(d.reason is None for d in decisions)  # the replay's format is unchanged
    section = faults_section(outcome.faults, seats, outcome.reasons)
    for row in section["seats"]:
        assert set(row["fallbacks"]) == {"timeout"}, row
        why = row["reasons"]["timeout"]
        assert why.startswith("its retry of a reply refused as parse ("), why
        assert f"at most {MAX_REPLY_BRACKETS:,}" in why and why.endswith(") ran out of time")


async def test_a_runner_retry_that_runs_out_of_time_is_told_alike(server: ProviderServer) -> None:
    server.script = _first_unparseable_then_hang
    game = TextToyGame(seats=1, rounds=1, timing=Timing(decision_timeout_s=0.5, retries=1))
    seats = model_seats(game, options_for(server, "openai"))
    outcome = await run_episode(game, seats)
    ((d,),) = [list(step.values()) for step in outcome.log.decisions]
    assert (d.source, d.cause, d.attempts, d.reason) == ("fallback", "timeout", 2, None)
    why = outcome.reasons[0]["timeout"]
    assert why.startswith("its retry of a reply refused as parse ("), why
    assert why.endswith(") ran out of time"), why


async def test_a_plain_timeout_has_no_such_reason(server: ProviderServer) -> None:
    server.script = lambda _req: Reply(fault="hang")
    game = TextToyGame(seats=1, rounds=1, timing=Timing(decision_timeout_s=0.3, retries=1))
    outcome = await run_episode(game, model_seats(game, options_for(server, "openai")))
    assert outcome.faults[0] == {"timeout": 1}
    assert "timeout" not in outcome.reasons[0]
