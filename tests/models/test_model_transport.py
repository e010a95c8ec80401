"""The lean HTTP transport under the SDKs (`seats/llm/transport.py`) and the shared clients.

Two real loopback servers: `RawServer` below (an asyncio HTTP/1.1 server in the test's own event
loop, which counts connections and answers with exact bytes — Content-Length, chunked, gzip,
dropped or hung connections), and the provider test server (uvicorn) for whole episodes.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import ssl
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from cogleague.core.episode import run_episode
from cogleague.core.errors import ConfigError
from cogleague.seats.llm import ModelSeat, make_model_seat
from cogleague.seats.llm.providers import (
    Endpoint,
    ProviderFailure,
    http_client,
    make_provider,
    proxy_configured,
)
from cogleague.seats.llm.session import episode_for
from cogleague.seats.llm.transport import MAX_RESPONSE_BYTES, LeanTransportBase, transport_for
from helpers.model_toys import TextToyGame, model_seats, options_for
from helpers.net import refused_port
from helpers.provider_server import ProviderServer, Reply

OPENAI_REPLY = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": '{"n": 4}'}}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}}
ANTHROPIC_REPLY = {"id": "m1", "type": "message", "role": "assistant", "model": "m",
                   "content": [{"type": "text", "text": '{"n": 4}'}], "stop_reason": "end_turn",
                   "stop_sequence": None, "usage": {"input_tokens": 11, "output_tokens": 3}}


def with_length(doc: dict[str, Any], extra: bytes = b"") -> bytes:
    body = json.dumps(doc).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n"
            % (len(body), extra)) + body


def chunked(doc: dict[str, Any], size: int = 7) -> bytes:
    body = json.dumps(doc).encode()
    pieces = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size])
                      for i in range(0, len(body), size))
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + pieces + b"0\r\nX-Trailer: t\r\n\r\n")


DROP = b""  # close the connection without answering
HANG = b"hang"  # never answer (until the client goes away)


class RawServer:
    """HTTP/1.1 on loopback in the test's event loop. `answer(n)` gives the bytes for the n-th
    request (0-based): a response, `DROP` or `HANG`; after a response the connection stays open
    unless `close_after` is set."""

    def __init__(self, answer: Callable[[int], bytes], close_after: bool = False) -> None:
        self.answer = answer
        self.close_after = close_after
        self.connections = 0
        self.requests: list[tuple[bytes, bytes]] = []  # (head, body)
        self._server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> RawServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    return
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                body = await reader.readexactly(length)
                self.requests.append((head, body))
                data = self.answer(len(self.requests) - 1)
                if data == DROP:
                    return
                if data == HANG:
                    await reader.read()  # returns at the client's close
                    return
                writer.write(data)
                await writer.drain()
                if self.close_after:
                    return
        finally:
            writer.close()


def endpoint(provider: str, url: str, key: str = "k") -> Endpoint:
    return Endpoint(provider, "m", f"{url}/v1" if provider == "openai" else url, key)


def reply_for(provider: str) -> dict[str, Any]:
    return OPENAI_REPLY if provider == "openai" else ANTHROPIC_REPLY


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(autouse=True)
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy",
                 "COGLEAGUE_MODEL_TRANSPORT"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


async def complete(p: Any, timeout: float = 5.0) -> Any:
    return await p.complete("rules", [{"role": "user", "content": "go"}], timeout)


# -- the transport ---------------------------------------------------------------------------


async def test_many_requests_go_over_one_kept_alive_connection(provider: str) -> None:
    async with RawServer(lambda n: with_length(reply_for(provider))) as server:
        p = make_provider(endpoint(provider, server.url))
        try:
            for _ in range(5):
                completion = await complete(p)
                assert (completion.text, completion.input_tokens) == ('{"n": 4}', 11)
        finally:
            await p.aclose()
    assert (len(server.requests), server.connections) == (5, 1)
    head, body = server.requests[0]
    assert head.startswith(b"POST /v1/") and b"\r\nContent-Length: %d\r\n" % len(body) in head
    assert json.loads(body)["model"] == "m"


async def test_concurrent_requests_each_take_a_connection_then_reuse_them(provider: str) -> None:
    async with RawServer(lambda n: with_length(reply_for(provider))) as server:
        p = make_provider(endpoint(provider, server.url))
        try:
            for _ in range(3):
                texts = await asyncio.gather(*[complete(p) for _ in range(6)])
                assert texts == [texts[0]] * 6
        finally:
            await p.aclose()
    assert (len(server.requests), server.connections) == (18, 6)


async def test_chunked_and_gzip_bodies_are_read(provider: str) -> None:
    zipped = gzip.compress(json.dumps(reply_for(provider)).encode())
    gz = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
          b"Content-Length: %d\r\n\r\n" % len(zipped)) + zipped
    answers = [chunked(reply_for(provider)), gz, chunked(reply_for(provider), size=1)]
    async with RawServer(lambda n: answers[n]) as server:
        p = make_provider(endpoint(provider, server.url))
        try:
            for _ in answers:
                assert (await complete(p)).text == '{"n": 4}'
        finally:
            await p.aclose()
    assert server.connections == 1


async def test_connection_close_and_a_server_closed_idle_connection_are_not_reused(
        provider: str) -> None:
    closing = with_length(reply_for(provider), b"Connection: close\r\n")
    async with RawServer(lambda n: closing) as server:
        p = make_provider(endpoint(provider, server.url))
        try:
            for _ in range(3):
                await complete(p)
        finally:
            await p.aclose()
    assert server.connections == 3
    async with RawServer(lambda n: with_length(reply_for(provider)), close_after=True) as server:
        p = make_provider(endpoint(provider, server.url))
        try:
            for _ in range(3):
                await complete(p)
                await asyncio.sleep(0.05)  # the server's FIN arrives while the connection idles
        finally:
            await p.aclose()
    assert (len(server.requests), server.connections) == (3, 3)


async def test_a_connection_with_stray_bytes_after_the_response_is_not_reused(
        provider: str) -> None:
    """Bytes past a response's end (a second response the client never asked for) must not be
    read as the answer to the next request on that connection."""
    smuggled = json.loads(json.dumps(reply_for(provider)).replace("4}", "9}"))
    assert smuggled != reply_for(provider)
    first = with_length(reply_for(provider)) + with_length(smuggled)
    async with RawServer(lambda n: first if n == 0 else with_length(reply_for(provider))
                         ) as server:
        p = make_provider(endpoint(provider, server.url))
        try:
            texts = [(await complete(p)).text for _ in range(3)]
        finally:
            await p.aclose()
    assert texts == ['{"n": 4}'] * 3
    assert len(server.requests) == 3


async def test_failures_are_the_sdks_own_exceptions(provider: str) -> None:
    sdk: Any = openai if provider == "openai" else anthropic
    with refused_port() as port:  # held: no other worker's server can listen there meanwhile
        p = make_provider(endpoint(provider, f"http://127.0.0.1:{port}"))
        with pytest.raises(ProviderFailure) as info:
            await complete(p)
    assert type(info.value.__cause__) is sdk.APIConnectionError
    await p.aclose()
    for answer, error in ((HANG, sdk.APITimeoutError), (DROP, sdk.APIConnectionError),
                          (b"HTTP/1.1 200 OK\r\nContent-Length: 999\r\n\r\n{", None),
                          (b"garbage\r\n\r\n", sdk.APIConnectionError)):
        async with RawServer(lambda n, a=answer: a, close_after=True) as server:
            p = make_provider(endpoint(provider, server.url))
            try:
                with pytest.raises(ProviderFailure) as info:
                    await complete(p, timeout=0.3)
            finally:
                await p.aclose()
        assert type(info.value.__cause__) is (error or sdk.APIConnectionError), answer


async def test_the_sdks_own_retries_still_work(provider: str) -> None:
    """A dropped connection and a hung one are retried by the SDK itself; the timeout leaves
    room for a loaded machine to answer the third attempt in time."""
    sdk: Any = openai if provider == "openai" else anthropic
    answers = [DROP, HANG, with_length(reply_for(provider))]
    async with RawServer(lambda n: answers[n]) as server:
        cls = sdk.AsyncOpenAI if provider == "openai" else sdk.AsyncAnthropic
        client = cls(api_key="k", base_url=endpoint(provider, server.url).base_url,
                     max_retries=2, timeout=1.5, http_client=http_client(sdk))
        assert isinstance(client._client._transport, LeanTransportBase)
        try:
            if provider == "openai":
                reply = await client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "go"}])
                text = reply.choices[0].message.content
            else:
                reply = await client.messages.create(
                    model="m", max_tokens=10, messages=[{"role": "user", "content": "go"}])
                text = reply.content[0].text
        finally:
            await client.close()
    assert text == '{"n": 4}'
    assert (len(server.requests), server.connections) == (3, 3)  # a failed connection is dropped


async def test_a_proxy_in_the_environment_keeps_the_sdks_own_transport(
        provider: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """With HTTP_PROXY set the request really goes to the proxy (the SDK's transport honours
    it), and the choice is logged."""
    async with RawServer(lambda n: with_length(reply_for(provider))) as target, \
            RawServer(lambda n: with_length(reply_for(provider))) as proxy:
        monkeypatch.setenv("http_proxy", proxy.url)
        assert proxy_configured() == "http_proxy"
        with caplog.at_level("INFO", logger="cogleague.seats.llm.providers"):
            p = make_provider(endpoint(provider, target.url))
        assert "http_proxy is set" in caplog.text and "SDK's own HTTP transport" in caplog.text
        try:
            assert (await complete(p)).text == '{"n": 4}'
        finally:
            await p.aclose()
    assert (target.connections, proxy.connections) == (0, 1)
    head = proxy.requests[0][0]
    assert head.startswith(f"POST {target.url}/v1/".encode())  # absolute form: a proxy request
    monkeypatch.delenv("http_proxy")
    monkeypatch.setenv("COGLEAGUE_MODEL_TRANSPORT", "sdk")
    sdk: Any = openai if provider == "openai" else anthropic
    client = http_client(sdk)
    assert not isinstance(client._transport, LeanTransportBase)
    await client.aclose()
    monkeypatch.setenv("COGLEAGUE_MODEL_TRANSPORT", "lean")
    client = http_client(sdk)
    assert isinstance(client._transport, LeanTransportBase)
    await client.aclose()


def test_proxy_variables_are_read_in_either_case() -> None:
    assert proxy_configured({}) is None
    assert proxy_configured({"NO_PROXY": "x", "HTTPS_PROXY": ""}) is None
    assert proxy_configured({"HTTPS_PROXY": "http://p:1"}) == "HTTPS_PROXY"
    assert proxy_configured({"all_proxy": "socks5://p:1"}) == "all_proxy"


# -- one client per endpoint per episode ------------------------------------------------------


def live_of(seat: ModelSeat) -> Any:
    return seat._provider


async def test_the_seats_of_an_episode_share_one_client_per_endpoint(
        server: ProviderServer, shape: str) -> None:
    server.script = lambda _req: Reply('{"n": 2}', latency=0.05)
    game = TextToyGame(seats=4, rounds=3)
    seats = model_seats(game, options_for(server, shape), count=3)
    other = [make_model_seat(game, 3, "llm", replace(options_for(server, shape),
                                                     api_key="other-key"), prompt="")]
    ours, theirs = {id(live_of(s)) for s in seats}, {id(live_of(s)) for s in other}
    assert len(ours) == 1 and len(theirs) == 1 and ours != theirs
    clients = [live_of(seats[0])._client, live_of(other[0])._client]
    outcome = await run_episode(game, [*seats, *other])
    assert outcome.results["scores"] == [6, 6, 6, 6]
    ports = [r.client_port for r in server.requests]
    # each round's 4 requests run at once on 4 connections, reused by the next rounds
    assert len(ports) == 12 and len(set(ports)) == 4
    assert all(c.is_closed() for c in clients)  # closed when the last seat closed
    assert not episode_for(game)._clients
    assert all(live_of(s) is None for s in [*seats, *other])


async def test_transcripts_results_and_requests_match_the_sdks_own_transport(
        server: ProviderServer, shape: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    def script(req: Any) -> Reply:
        return Reply("nonsense" if "seat 1." in req.user_text else '{"n": 7}', latency=0.01)

    async def run_with(transport: str) -> tuple[list[dict[str, Any]], dict[str, Any], list[Any]]:
        monkeypatch.setenv("COGLEAGUE_MODEL_TRANSPORT", transport)
        server.reset(script)
        path = tmp_path / f"{transport}.jsonl"
        game = TextToyGame(seats=3, rounds=2)
        outcome = await run_episode(
            game, model_seats(game, options_for(server, shape, transcript=str(path))))
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for row in rows:
            row.pop("latency_ms")
        seen = [(r.user_text, r.body, {k: v for k, v in r.headers.items()
                                       if k not in ("host", "x-stainless-timeout",
                                                    "x-stainless-read-timeout")})
                for r in server.requests]
        return rows, outcome.results, sorted(seen, key=json.dumps)

    lean, sdk = await run_with("lean"), await run_with("sdk")
    assert lean == sdk
    assert lean[1]["scores"] == [14, 0, 14]


def test_an_unknown_transport_choice_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGLEAGUE_MODEL_TRANSPORT", "fast")
    with pytest.raises(ConfigError, match="COGLEAGUE_MODEL_TRANSPORT must be lean or sdk"):
        http_client(openai)


# -- the response size cap -------------------------------------------------------------------


def over_cap_answers() -> list[bytes]:
    """Bodies past `MAX_RESPONSE_BYTES` in the three framings, none of them ever finished: a
    client that read on (to the declared length, the last chunk, the close) would wait for its
    read timeout instead of refusing at the cap."""
    big = MAX_RESPONSE_BYTES + (1 << 20)
    declared = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n{" % (1 << 30)
    chunk = b"x" * 65536
    chunks = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
              + b"%x\r\n%s\r\n" % (len(chunk), chunk) * (big // len(chunk)))
    to_close = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b"x" * big
    return [declared, chunks, to_close]


async def test_a_response_body_past_the_cap_is_refused_naming_the_limit(provider: str) -> None:
    for answer in over_cap_answers():
        async with RawServer(lambda n, a=answer: a) as server:
            p = make_provider(endpoint(provider, server.url))
            try:
                with pytest.raises(ProviderFailure, match="MAX_RESPONSE_BYTES") as info:
                    await complete(p, timeout=60.0)
            finally:
                await p.aclose()
        assert f"({MAX_RESPONSE_BYTES} bytes)" in str(info.value), answer[:60]


async def test_the_lean_transport_itself_refuses_a_body_past_the_cap() -> None:
    for answer in over_cap_answers():
        async with RawServer(lambda n, a=answer: a) as server, httpx.AsyncClient(
                transport=transport_for(httpx, ssl.create_default_context())) as client:
            with pytest.raises(httpx.RemoteProtocolError, match="exceeds MAX_RESPONSE_BYTES"):
                await client.get(server.url, timeout=60.0)
    at_cap = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (
        MAX_RESPONSE_BYTES, b"x" * MAX_RESPONSE_BYTES)
    async with RawServer(lambda n: at_cap) as server, httpx.AsyncClient(
            transport=transport_for(httpx, ssl.create_default_context())) as client:
        assert len((await client.get(server.url, timeout=60.0)).content) == MAX_RESPONSE_BYTES


async def test_an_sdk_client_given_a_huge_reply_fails_naming_the_limit(
        server: ProviderServer, shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the official SDKs against the provider test server, on the lean transport and
    on the SDK's own (kept under a proxy), then as a seat's fallback."""
    server.script = lambda _req: Reply("x" * (MAX_RESPONSE_BYTES + 1))
    for transport in ("lean", "sdk"):
        monkeypatch.setenv("COGLEAGUE_MODEL_TRANSPORT", transport)
        p = make_provider(endpoint(shape, server.url, "test-key"))
        try:
            with pytest.raises(ProviderFailure, match="exceeds MAX_RESPONSE_BYTES"):
                await complete(p)
        finally:
            await p.aclose()
    game = TextToyGame(seats=1, rounds=1)
    outcome = await run_episode(game, model_seats(game, options_for(server, shape)))
    (d,) = [d for step in outcome.log.decisions for d in step.values()]
    assert (d.cause, d.attempts) == ("transport", 2)


async def test_a_compressed_body_that_decodes_past_the_cap_is_refused() -> None:
    """64 KiB of gzip that holds 64 MiB: refused by the transport, decoding stopped at the cap;
    a compressed body within the cap still reads."""
    bomb = gzip.compress(b"0" * (64 << 20), compresslevel=1)
    small = gzip.compress(b"x" * 1000)
    for body, encoding in ((bomb, b"gzip"), (gzip.compress(bomb), b"gzip, gzip"),
                           (bomb, b"gzip, identity")):
        answer = (b"HTTP/1.1 200 OK\r\nContent-Encoding: %s\r\nContent-Length: %d\r\n\r\n"
                  % (encoding, len(body))) + body
        async with RawServer(lambda n, a=answer: a) as server, httpx.AsyncClient(
                transport=transport_for(httpx, ssl.create_default_context())) as client:
            with pytest.raises(httpx.RemoteProtocolError, match="decoded"):
                await client.get(server.url, timeout=60.0)
    answer = (b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n"
              % len(small)) + small
    async with RawServer(lambda n: answer) as server, httpx.AsyncClient(
            transport=transport_for(httpx, ssl.create_default_context())) as client:
        assert (await client.get(server.url, timeout=60.0)).content == b"x" * 1000
