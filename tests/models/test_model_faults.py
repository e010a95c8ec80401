"""Model seats against the provider test server (real HTTP, both shapes): batching, retries,
fallbacks with their causes, the request budget, disabling, and no provider at all."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cogleague.core.episode import run_episode
from cogleague.core.game import Timing
from cogleague.seats import ScriptedSeat
from cogleague.seats.factory import ModelOptions
from cogleague.seats.llm import accounting_for
from helpers.model_toys import HINT, TextToyGame, model_seats, options_for
from helpers.provider_server import GARBAGE_TEXT, ProviderServer, Recorded, Reply, sequence


def decisions_of(outcome, seat: int):  # type: ignore[no-untyped-def]
    return [d for step in outcome.log.decisions for k, d in step.items() if k.endswith(f"p{seat}")]


async def test_eight_seats_with_one_second_latency_settle_a_round_in_about_one_second(
        server: ProviderServer, shape: str) -> None:
    server.script = lambda _req: Reply('{"n": 4}', latency=1.0)
    game = TextToyGame(seats=8, rounds=1)
    seats = model_seats(game, options_for(server, shape))
    started = time.monotonic()
    outcome = await run_episode(game, seats)
    wall = time.monotonic() - started
    assert server.peak_in_flight == 8  # one concurrent batch
    assert len(server.requests) == 8
    assert wall < 3.0  # generous: the target (≈ 1.0 s) is measured by the benchmark
    assert outcome.results["scores"] == [4] * 8


async def test_garbage_gets_one_retry_with_the_hint_then_the_fallback_counted(
        server: ProviderServer, shape: str) -> None:
    server.script = lambda _req: Reply(fault="garbage")
    game = TextToyGame(seats=2, rounds=1)
    seats = model_seats(game, options_for(server, shape))
    outcome = await run_episode(game, seats)
    for seat in (0, 1):
        (d,) = decisions_of(outcome, seat)
        assert (d.source, d.cause, d.attempts, d.action) == ("fallback", "parse", 2, {"n": 0})
    assert len(server.requests) == 4  # two seats × (attempt + one retry)
    retries = [r for r in server.requests if len(r.messages) == 3]
    assert len(retries) == 2
    for r in retries:
        assert r.messages[1] == {"role": "assistant", "content": GARBAGE_TEXT}
        assert HINT in r.messages[2]["content"]
    models = accounting_for(seats)
    assert models is not None
    assert models["fallbacks"] == [{"parse": 1}, {"parse": 1}]
    assert models["requests"] == [2, 2]


async def test_a_good_retry_is_the_seats_own_move(server: ProviderServer, shape: str) -> None:
    server.script = sequence(Reply(fault="garbage"), then=Reply('Sure! {"n": 6}'))
    game = TextToyGame(seats=1, rounds=1)
    outcome = await run_episode(game, model_seats(game, options_for(server, shape)))
    (d,) = decisions_of(outcome, 0)
    assert (d.source, d.attempts, d.action) == ("seat", 2, {"n": 6})


async def test_a_hung_provider_times_out_and_falls_back(server: ProviderServer,
                                                        shape: str) -> None:
    server.script = lambda _req: Reply(fault="hang")
    timing = Timing(decision_timeout_s=0.3, retries=1)
    game = TextToyGame(seats=2, rounds=1, timing=timing)
    seats = model_seats(game, options_for(server, shape))
    started = time.monotonic()
    outcome = await run_episode(game, seats)
    assert time.monotonic() - started < 3.0  # two 0.3 s attempts, not the server's hang
    for seat in (0, 1):
        (d,) = decisions_of(outcome, seat)
        assert (d.source, d.cause, d.timeouts, d.attempts) == ("fallback", "timeout", 2, 2)
    assert len(server.requests) == 4
    models = accounting_for(seats)
    assert models is not None and models["fallbacks"] == [{"timeout": 1}] * 2


async def test_a_server_error_is_a_transport_failure_retried_once_by_us_alone(
        server: ProviderServer, shape: str) -> None:
    server.script = lambda _req: Reply(fault="500")
    game = TextToyGame(seats=1, rounds=2)
    seats = model_seats(game, options_for(server, shape))
    outcome = await run_episode(game, seats)
    assert [(d.cause, d.attempts) for d in decisions_of(outcome, 0)] == [("transport", 2)] * 2
    assert len(server.requests) == 4  # SDK retries are off: exactly our one retry per turn


async def test_an_unreadable_response_body_is_a_transport_failure(server: ProviderServer,
                                                                  shape: str) -> None:
    server.script = sequence(Reply(fault="malformed"), then=Reply('{"n": 2}'))
    game = TextToyGame(seats=1, rounds=1)
    outcome = await run_episode(game, model_seats(game, options_for(server, shape)))
    (d,) = decisions_of(outcome, 0)
    assert (d.source, d.attempts, d.action) == ("seat", 2, {"n": 2})


async def test_429_backs_off_and_the_resend_fits_the_budget(server: ProviderServer,
                                                            shape: str) -> None:
    server.script = sequence(Reply(fault="429", retry_after=0.2), then=Reply('{"n": 5}'))
    game = TextToyGame(seats=1, rounds=1, timing=Timing(decision_timeout_s=5.0))
    seats = model_seats(game, options_for(server, shape))
    started = time.monotonic()
    outcome = await run_episode(game, seats)
    assert time.monotonic() - started >= 0.2  # waited for Retry-After before sending again
    (d,) = decisions_of(outcome, 0)
    assert (d.source, d.attempts, d.action) == ("seat", 1, {"n": 5})
    assert len(server.requests) == 2
    assert seats[0].stats.requests == 2


async def test_429_without_retry_after_uses_our_exponential_backoff(server: ProviderServer,
                                                                   shape: str) -> None:
    server.script = sequence(Reply(fault="429"), then=Reply('{"n": 5}'))
    game = TextToyGame(seats=1, rounds=1, timing=Timing(decision_timeout_s=5.0))
    outcome = await run_episode(game, model_seats(game, options_for(server, shape)))
    (d,) = decisions_of(outcome, 0)
    assert (d.source, d.action) == ("seat", {"n": 5})
    assert len(server.requests) == 2


async def test_429_whose_backoff_outlasts_the_deadline_falls_back_as_rate_budget(
        server: ProviderServer, shape: str) -> None:
    server.script = lambda _req: Reply(fault="429", retry_after=10)
    game = TextToyGame(seats=1, rounds=2, timing=Timing(decision_timeout_s=1.0))
    seats = model_seats(game, options_for(server, shape))
    started = time.monotonic()
    outcome = await run_episode(game, seats)
    assert time.monotonic() - started < 1.0  # gave up at once instead of waiting
    first, second = decisions_of(outcome, 0)
    assert (first.cause, first.attempts) == ("rate_budget", 1)  # no retry after rate_budget
    assert second.cause == "rate_budget"
    assert len(server.requests) == 1  # round 1: the endpoint is still paused, nothing sent
    models = accounting_for(seats)
    assert models is not None and models["fallbacks"] == [{"rate_budget": 2}]


async def test_the_requests_per_minute_budget_is_shared_by_the_episode(
        server: ProviderServer, shape: str) -> None:
    server.script = lambda _req: Reply('{"n": 1}')
    game = TextToyGame(seats=3, rounds=1, timing=Timing(decision_timeout_s=5.0))
    seats = model_seats(game, options_for(server, shape, requests_per_minute=2))
    outcome = await run_episode(game, seats)
    causes = sorted(str(d.cause) for s in range(3) for d in decisions_of(outcome, s))
    assert causes == ["None", "None", "rate_budget"]
    assert len(server.requests) == 2


@pytest.mark.parametrize("status", ["401", "403"])
async def test_a_refused_key_disables_the_provider_for_the_episode(
        server: ProviderServer, shape: str, status: str) -> None:
    server.script = lambda _req: Reply(fault=status)
    game = TextToyGame(seats=2, rounds=3)
    seats = model_seats(game, options_for(server, shape))
    outcome = await run_episode(game, seats)
    first_round = len(server.requests)
    assert 1 <= first_round <= 2  # both seats' first requests may already be in flight
    for seat in (0, 1):
        ds = decisions_of(outcome, seat)
        assert [d.cause for d in ds] == ["disabled"] * 3
        assert all(d.attempts == 1 for d in ds)  # disabled falls back at once, no retry
    models = accounting_for(seats)
    assert models is not None and models["fallbacks"] == [{"disabled": 3}] * 2


async def test_no_provider_configured_means_zero_requests(server: ProviderServer,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    game = TextToyGame(seats=4, rounds=2)
    seats = model_seats(game, ModelOptions(), count=2)
    # a hosted provider named without a key is "not configured" too
    seats += model_seats(game, ModelOptions(provider="anthropic", model="m"), count=4)[2:]
    outcome = await run_episode(game, seats)
    assert server.requests == []
    for seat in range(4):
        assert [d.cause for d in decisions_of(outcome, seat)] == ["disabled"] * 2
    models = accounting_for(seats)
    assert models is not None
    assert models["requests"] == [0] * 4 and models["fallbacks"] == [{"disabled": 2}] * 4


async def test_only_the_failing_seat_falls_back(server: ProviderServer, shape: str) -> None:
    def script(req: Recorded) -> Reply:
        return Reply(fault="garbage") if "seat 1." in req.user_text else Reply('{"n": 3}')

    server.script = script
    game = TextToyGame(seats=3, rounds=1)
    seats = [*model_seats(game, options_for(server, shape), count=2),
             ScriptedSeat(game.make_baseline("const7", 2), "const7")]
    outcome = await run_episode(game, seats)
    assert outcome.results["scores"] == [3, 0, 7]
    models = accounting_for(seats)
    assert models is not None
    assert models["fallbacks"] == [{}, {"parse": 1}, {}]
    assert models["model"] == [f"test-{shape}", f"test-{shape}", None]
    assert models["requests"] == [1, 2, 0]


async def test_a_reply_holding_a_lone_surrogate_is_shown_back_and_retried(
        server: ProviderServer, shape: str, tmp_path: Path) -> None:
    """A provider's reply text may hold a lone surrogate (``\\ud800`` escaped in its JSON: a
    broken tokenizer's half character). Unusable, it is shown back on the retry with the hint
    like any other reply, its half character as U+FFFD: the request body is UTF-8, which
    cannot carry it (the retry failed as ``transport`` with no request sent, and the model was
    never told), and the transcript holds it too."""
    server.script = sequence(Reply("not json \ud800 at all"), then=Reply('{"n": 6}'))
    game = TextToyGame(seats=1, rounds=1)
    transcript = tmp_path / "t.jsonl"
    seats = model_seats(game, options_for(server, shape, transcript=str(transcript)))
    outcome = await run_episode(game, seats)
    (d,) = decisions_of(outcome, 0)
    assert (d.source, d.attempts, d.action) == ("seat", 2, {"n": 6})
    assert len(server.requests) == 2
    assert server.requests[1].messages[1] == {"role": "assistant",
                                              "content": "not json \ufffd at all"}
    assert HINT in server.requests[1].messages[2]["content"]
    assert "not json \ufffd at all" in transcript.read_text(encoding="utf-8")


async def test_a_reply_cut_at_the_length_limit_is_told_so_on_the_retry(
        server: ProviderServer, shape: str) -> None:
    """A model that reasons at length before its JSON is cut off at the reply limit
    (`DEFAULT_REPLY_TOKENS`, 1,024 on both wire shapes): the retry says the reply was cut off and
    to answer briefly, not only the form (which the model had not failed to follow: it never
    got there, and would reason at length again); a reply that ended on its own is not told so."""
    server.script = sequence(Reply("Let me think about this step by step. First,", cut=True),
                             Reply('{"n": 6}'), Reply("no JSON here"), then=Reply('{"n": 5}'))
    game = TextToyGame(seats=1, rounds=2)
    outcome = await run_episode(game, model_seats(game, options_for(server, shape)))
    first, second = decisions_of(outcome, 0)
    assert (first.source, first.attempts, first.action) == ("seat", 2, {"n": 6})
    assert (second.source, second.attempts, second.action) == ("seat", 2, {"n": 5})
    retry = server.requests[1].messages[-1]["content"]
    assert "cut off" in retry and HINT in retry
    later = server.requests[3].messages[-1]["content"]
    assert "cut off" not in later and HINT in later
