"""Every model request caps the reply's length, on both wire shapes, as the official SDK's own
typed call would send that cap: a model that rambles stops at the cap (and the seat is told it
was cut off) instead of spending tokens and the step's deadline."""

from __future__ import annotations

from typing import Any

import anthropic
import openai

from cogleague.seats.llm.providers import MAX_REPLY_TOKENS, Endpoint, make_provider
from helpers.provider_server import ProviderServer, Recorded

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
                max_completion_tokens=MAX_REPLY_TOKENS)
        finally:
            await client.close()
    else:
        client = anthropic.AsyncAnthropic(api_key="k", base_url=server.anthropic_url,
                                          max_retries=0)
        try:
            await client.messages.create(model="m", system=SYSTEM, messages=TURNS,
                                         max_tokens=MAX_REPLY_TOKENS)
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
    assert ours.body[cap] == MAX_REPLY_TOKENS == 1024
