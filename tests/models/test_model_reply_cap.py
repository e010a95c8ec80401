"""Every model request caps the reply's length, on both wire shapes, as the official SDK's own
typed call would send that cap: a model that rambles stops at the cap (and the seat is told it
was cut off) instead of spending tokens and the step's deadline."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core import jsonio
from cogleague.core.episode import run_episode
from cogleague.core.errors import ConfigError
from cogleague.core.model_limits import DEFAULT_REPLY_TOKENS, MAX_REPLY_TOKENS, MIN_REPLY_TOKENS
from cogleague.seats.factory import ModelOptions
from cogleague.seats.llm import RecordingMiss, make_model_seat
from cogleague.seats.llm.providers import Endpoint, make_provider
from helpers.model_toys import TextToyGame, model_seats, options_for
from helpers.provider_server import ProviderServer, Recorded, Reply

SYSTEM = "You play a number game."
TURNS = [{"role": "user", "content": "Round 1. Name a number."}]


async def sdk_request(server: ProviderServer, shape: str) -> Recorded:
    """What the official SDK's typed call sends with the reply cap as its own parameter."""
    server.reset()
    if shape == "openai":
        client: Any = openai.AsyncOpenAI(api_key="k", base_url=server.openai_url, max_retries=0)
        try:
            await client.chat.completions.create(
                model="m", messages=[{"role": "system", "content": SYSTEM}, *TURNS],
                max_completion_tokens=DEFAULT_REPLY_TOKENS)
        finally:
            await client.close()
    else:
        client = anthropic.AsyncAnthropic(api_key="k", base_url=server.anthropic_url,
                                          max_retries=0)
        try:
            await client.messages.create(model="m", system=SYSTEM, messages=TURNS,
                                         max_tokens=DEFAULT_REPLY_TOKENS)
        finally:
            await client.close()
    (request,) = server.requests
    return request


async def our_request(server: ProviderServer, shape: str) -> Recorded:
    server.reset()
    url = server.openai_url if shape == "openai" else server.anthropic_url
    provider = make_provider(Endpoint(shape, "m", url, "k"))
    try:
        await provider.complete(SYSTEM, TURNS, timeout=10.0)
    finally:
        await provider.aclose()
    (request,) = server.requests
    return request


async def test_a_request_caps_the_reply_as_the_sdks_typed_call_does(
        server: ProviderServer, shape: str) -> None:
    ours, theirs = await our_request(server, shape), await sdk_request(server, shape)
    assert ours.body == theirs.body
    cap = "max_completion_tokens" if shape == "openai" else "max_tokens"
    assert ours.body[cap] == DEFAULT_REPLY_TOKENS == 1024


# -- the prompt writer's own cap -------------------------------------------------------------

WIDE_CAP = 8000


async def test_the_prompt_writer_sets_the_reply_cap(server: ProviderServer, shape: str) -> None:
    """A reasoning model spends most of 1024 tokens on hidden reasoning and answers empty or
    cut, which then falls back: the cap was fixed. `max_reply_tokens` sets it, sent as each
    SDK's typed call names it."""
    game = TextToyGame(seats=1, rounds=1)
    await run_episode(game, model_seats(game, options_for(server, shape,
                                                          max_reply_tokens=WIDE_CAP)))
    (request,) = server.requests
    cap = "max_completion_tokens" if shape == "openai" else "max_tokens"
    assert request.body[cap] == WIDE_CAP


@pytest.mark.parametrize("value", [0, -5, MAX_REPLY_TOKENS + 1, True, 1.5, "2048"])
def test_a_reply_cap_out_of_range_names_the_field_and_range(value: object) -> None:
    with pytest.raises(ConfigError) as bad:
        make_model_seat(TextToyGame(seats=1), 0, "llm", ModelOptions(
            provider="openai", model="m", base_url="http://127.0.0.1:9/v1",
            max_reply_tokens=value))  # type: ignore[arg-type]
    assert bad.value.field == "max_reply_tokens"
    assert str(bad.value) == (f"max_reply_tokens must be an integer in "
                              f"{MIN_REPLY_TOKENS}..{MAX_REPLY_TOKENS} (got {value!r})")


def test_play_takes_the_reply_cap_and_names_its_range(server: ProviderServer,
                                                      tmp_path: Path) -> None:
    server.script = lambda _req: Reply('{"action": "cooperate"}')
    base = ["play", "dilemma", "--seats", "llm,tit_for_tat,always_defect,pavlov", "--rounds",
            "1", "--model", "m", "--base-url", server.openai_url]
    bad = CliRunner().invoke(app, [*base, "--max-reply-tokens", "0",
                                   "--out", str(tmp_path / "bad")])
    assert bad.exit_code == 2
    assert bad.output.strip() == (f"error: --max-reply-tokens must be an integer in "
                                  f"{MIN_REPLY_TOKENS}..{MAX_REPLY_TOKENS} (got 0)")
    done = CliRunner().invoke(app, [*base, "--max-reply-tokens", "3000",
                                    "--out", str(tmp_path / "run")])
    assert done.exit_code == 0, done.output
    assert server.requests
    assert {r.body["max_completion_tokens"] for r in server.requests} == {3000}
    shown = CliRunner().invoke(app, ["play", "dilemma", "--help"], env={"COLUMNS": "300"})
    assert (f"({MIN_REPLY_TOKENS}..{MAX_REPLY_TOKENS}; default {DEFAULT_REPLY_TOKENS})"
            in " ".join(shown.output.split()))


def test_python_play_takes_the_reply_cap(server: ProviderServer) -> None:
    import cogleague

    server.script = lambda _req: Reply('{"action": "cooperate"}')
    cogleague.play("dilemma", ["llm", "tit_for_tat", "always_defect", "pavlov"],
                   rounds_total=1, seed=1, model="m", base_url=server.openai_url,
                   max_reply_tokens=2500)
    assert {r.body["max_completion_tokens"] for r in server.requests} == {2500}
    with pytest.raises(ConfigError) as bad:
        cogleague.play("dilemma", ["llm", "tit_for_tat", "always_defect", "pavlov"],
                       model="m", base_url=server.openai_url, max_reply_tokens=0)
    assert bad.value.field == "max_reply_tokens"


def old_key(provider: str, model: str, system: str, messages: object) -> str:
    """The recording key as written before the cap could be set: a recording made then at the
    default cap must keep replaying."""
    doc = {"provider": provider, "model": model, "system": system, "messages": messages}
    return hashlib.sha256(jsonio.dumps(doc, sort_keys=True).encode()).hexdigest()


async def test_a_changed_reply_cap_is_a_replay_miss_naming_it(server: ProviderServer,
                                                              tmp_path: Path) -> None:
    """Another cap can change every reply (a cut one, an empty one): a recording made at one
    cap and replayed at another would replay answers the new cap would not have given."""
    recorded = options_for(server, recording=str(tmp_path), recording_mode="record")
    game = TextToyGame(seats=1, rounds=2)
    await run_episode(game, model_seats(game, recorded))
    rows = [json.loads(line) for line in next(tmp_path.glob("*.jsonl")).read_text().splitlines()]
    assert rows and all(r["key"] == old_key(r["provider"], r["model"], r["request"]["system"],
                                            r["request"]["messages"]) for r in rows)
    replay = dataclasses.replace(recorded, recording_mode="replay", api_key=None)
    game = TextToyGame(seats=1, rounds=2)
    await run_episode(game, model_seats(game, replay))  # the same cap: replays
    for cap in (WIDE_CAP, DEFAULT_REPLY_TOKENS):
        changed = dataclasses.replace(replay, max_reply_tokens=cap)
        game = TextToyGame(seats=1, rounds=2)
        if cap == DEFAULT_REPLY_TOKENS:  # the default named: the same requests
            await run_episode(game, model_seats(game, changed))
            continue
        with pytest.raises(RecordingMiss) as miss:
            await run_episode(game, model_seats(game, changed))
        assert (f"max_reply_tokens {WIDE_CAP} differs from the {DEFAULT_REPLY_TOKENS} recorded"
                in str(miss.value))


def test_a_league_prompt_policy_sets_the_reply_cap(tmp_path: Path) -> None:
    """A league file sets a prompt policy's model and base URL: its reply cap goes beside them,
    checked with the same range."""
    from cogleague.league.policies import parse_policy

    (tmp_path / "p.txt").write_text("Cooperate.", encoding="utf-8")
    doc = {"name": "deep", "author": "a", "prompt": "p.txt", "model": "m"}
    policy = parse_policy({**doc, "max_reply_tokens": WIDE_CAP}, "policies[0]", tmp_path)
    assert policy.model_options() == {"provider": "openai", "model": "m", "base_url": None,
                                      "max_reply_tokens": WIDE_CAP}
    assert ModelOptions(**policy.model_options() or {}).max_reply_tokens == WIDE_CAP
    assert "max_reply_tokens" not in (parse_policy(doc, "policies[0]", tmp_path).model_options()
                                      or {})
    with pytest.raises(ConfigError) as bad:
        parse_policy({**doc, "max_reply_tokens": 0}, "policies[0]", tmp_path)
    assert str(bad.value) == (f"policies[0].max_reply_tokens must be an integer in "
                              f"{MIN_REPLY_TOKENS}..{MAX_REPLY_TOKENS} (got 0)")
