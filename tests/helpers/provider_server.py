"""A local model-provider test server: real HTTP on loopback, both wire shapes, scripted replies.

It speaks the OpenAI chat-completions shape (``POST /v1/chat/completions``) and the Anthropic
messages shape (``POST /v1/messages``), so the official SDKs talk to it exactly as they talk to a
hosted provider. Each request is answered by a script: a `Reply` says what the "model" says
(`text`), how long it takes (`latency`, real seconds), and which fault to play instead —
``garbage`` (a 200 whose text is not JSON), ``malformed`` (a 200 whose body is not a valid
response), HTTP ``429`` / ``401`` / ``403`` / ``500``, ``404`` (the model is unknown: the body
names it, as hosted providers and vLLM / Ollama do), or ``hang`` (never answers until the client
gives up). The server records every request (with the client's port, so connection reuse shows)
and counts requests in flight (and the peak); `/_stats` also reports the server process's CPU
seconds, for a benchmark that runs it in another process.

Usage::

    with ProviderServer() as server:
        server.script = lambda req: Reply('{"move": 0}', latency=1.0)
        ModelOptions(provider="openai", model="m", base_url=server.openai_url, api_key="k")
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

FAULTS = ("garbage", "malformed", "429", "401", "403", "404", "500", "hang")
HANG_LIMIT_S = 30.0  # a hung request still ends by itself, so the server always shuts down
GARBAGE_TEXT = "I would rather not answer in JSON today."


@dataclass(frozen=True)
class Reply:
    """One scripted answer. `fault` (one of FAULTS) replaces the normal answer."""

    text: str = '{"n": 1}'
    latency: float = 0.0
    fault: str | None = None
    retry_after: float | None = None  # seconds, sent as the Retry-After header with a 429
    input_tokens: int | None = None  # default: a rough count of the prompt
    output_tokens: int | None = None
    cut: bool = False
    """The reply reached the length limit (``finish_reason`` ``length``, ``stop_reason``
    ``max_tokens``)."""
    extra: str | None = None
    """Raw JSON text spliced into the response object as one more member (a field no client
    reads), e.g. ``"created": 1111…`` with more digits than a JSON encoder here can write."""

    def __post_init__(self) -> None:
        if self.fault is not None and self.fault not in FAULTS:
            raise ValueError(f"fault must be one of {', '.join(FAULTS)} (got {self.fault!r})")


@dataclass(frozen=True)
class Recorded:
    """A request as the server saw it, normalized across the two shapes."""

    shape: str  # "openai" | "anthropic"
    model: str
    system: str
    messages: list[dict[str, str]]  # user/assistant turns, in order
    headers: dict[str, str]
    body: dict[str, Any]
    client_port: int = 0  # the client's TCP port: one per connection, so reuse shows


    @property
    def user_text(self) -> str:
        return "\n".join(m["content"] for m in self.messages if m["role"] == "user")


Script = Callable[[Recorded], Reply]


@dataclass
class _Stats:
    requests: list[Recorded] = field(default_factory=list)
    in_flight: int = 0
    peak_in_flight: int = 0


def _port(request: Request) -> int:
    return request.client.port if request.client is not None else 0


def _rough_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _text_of(content: Any) -> str:
    """Message content as text: a string, or a list of ``{"type": "text", "text": …}`` blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


class ProviderServer:
    """Start with `start()` (or as a context manager); `stop()` shuts it down."""

    def __init__(self, script: Script | None = None) -> None:
        self.script: Script = script or (lambda _req: Reply())
        self.models_route = True
        """Whether ``GET /v1/models`` exists; False: 404 there, as on a server without it."""
        self.refused_keys: set[str] = set()
        """API keys answered with 401 (the models list that `preflight` asks for, and every
        completion)."""
        self._stats = _Stats()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port: int = self._sock.getsockname()[1]
        app = Starlette(routes=[
            Route("/v1/chat/completions", self._openai, methods=["POST"]),
            Route("/v1/messages", self._anthropic, methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
            Route("/_stats", self._stats_route, methods=["GET"]),
            Route("/_reset", self._reset_route, methods=["POST"]),
        ])
        config = uvicorn.Config(app, log_level="error", lifespan="off", access_log=False,
                                timeout_graceful_shutdown=1, backlog=512)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]},
                                        daemon=True, name="provider-server")

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """The base URL an OpenAI client takes (``…/v1``)."""
        return f"{self.url}/v1"

    @property
    def anthropic_url(self) -> str:
        """The base URL an Anthropic client takes (it appends ``/v1/messages`` itself)."""
        return self.url

    def start(self) -> ProviderServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("provider test server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()

    def __enter__(self) -> ProviderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset(self, script: Script | None = None) -> None:
        """Forget recorded requests and the peak; optionally install a new script (and give
        back the models list)."""
        self.models_route = True
        with self._lock:
            self._stats = _Stats(in_flight=self._stats.in_flight)
        if script is not None:
            self.script = script

    # -- what the tests read ---------------------------------------------------------------
    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._stats.requests)

    @property
    def in_flight(self) -> int:
        return self._stats.in_flight

    @property
    def peak_in_flight(self) -> int:
        return self._stats.peak_in_flight

    # -- handlers --------------------------------------------------------------------------
    async def _stats_route(self, _request: Request) -> Response:
        """For a server in another process (the benchmark): what it saw."""
        return JSONResponse({"requests": len(self._stats.requests),
                             "in_flight": self._stats.in_flight,
                             "peak_in_flight": self._stats.peak_in_flight,
                             "cpu_s": time.process_time()})

    async def _reset_route(self, _request: Request) -> Response:
        self.reset()
        return JSONResponse({"ok": True})

    def _refused(self, request: Request) -> bool:
        auth = request.headers.get("authorization", "")
        key = auth.removeprefix("Bearer ").strip() or request.headers.get("x-api-key", "")
        return key in self.refused_keys

    async def _models(self, request: Request) -> Response:
        """The models list both SDKs can read; 401 for a refused key."""
        if not self.models_route:
            return Response("Not Found", status_code=404, media_type="text/plain")
        if self._refused(request):
            return JSONResponse({"error": {"message": "invalid api key", "type": "auth"}},
                                status_code=401)
        return JSONResponse({"object": "list", "data": [
            {"id": "test-model", "object": "model", "type": "model", "created": 0,
             "owned_by": "test", "display_name": "test", "created_at": "2026-01-01T00:00:00Z"}]})

    async def _openai(self, request: Request) -> Response:
        body = await request.json()
        messages = [{"role": m["role"], "content": _text_of(m.get("content"))}
                    for m in body.get("messages", [])]
        system = "\n".join(m["content"] for m in messages if m["role"] in ("system", "developer"))
        turns = [m for m in messages if m["role"] in ("user", "assistant")]
        rec = Recorded("openai", body.get("model", ""), system, turns, dict(request.headers), body,
                       _port(request))
        return await self._answer(request, rec)

    async def _anthropic(self, request: Request) -> Response:
        body = await request.json()
        system = _text_of(body.get("system", ""))
        turns = [{"role": m["role"], "content": _text_of(m.get("content"))}
                 for m in body.get("messages", [])]
        rec = Recorded("anthropic", body.get("model", ""), system, turns, dict(request.headers),
                       body, _port(request))
        return await self._answer(request, rec)

    async def _answer(self, request: Request, rec: Recorded) -> Response:
        with self._lock:
            self._stats.requests.append(rec)
            self._stats.in_flight += 1
            self._stats.peak_in_flight = max(self._stats.peak_in_flight, self._stats.in_flight)
        try:
            reply = self.script(rec)
            wait = HANG_LIMIT_S if reply.fault == "hang" else reply.latency
            if await self._wait_or_disconnect(request, wait):
                return Response(status_code=499)
            return self._render(rec, reply)
        finally:
            with self._lock:
                self._stats.in_flight -= 1

    @staticmethod
    async def _wait_or_disconnect(request: Request, seconds: float) -> bool:
        """Sleep `seconds`; True if the client went away first (its request was cancelled)."""
        if seconds <= 0:
            return False

        async def disconnected() -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass

        sleeper = asyncio.ensure_future(asyncio.sleep(seconds))
        watcher = asyncio.ensure_future(disconnected())
        done, pending = await asyncio.wait({sleeper, watcher},
                                           return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        return watcher in done

    def _render(self, rec: Recorded, reply: Reply) -> Response:
        fault = reply.fault
        if fault == "404":
            return JSONResponse(self._model_not_found(rec), status_code=404)
        if fault in ("429", "401", "403", "500"):
            status = int(fault)
            headers = {}
            if fault == "429" and reply.retry_after is not None:
                headers["retry-after"] = f"{reply.retry_after:g}"
            return JSONResponse(self._error_body(rec.shape, status), status_code=status,
                                headers=headers)
        if fault == "malformed":
            return Response("{not a response", media_type="application/json")
        text = GARBAGE_TEXT if fault == "garbage" else reply.text
        prompt = rec.system + "".join(m["content"] for m in rec.messages)
        tin = reply.input_tokens if reply.input_tokens is not None else _rough_tokens(prompt)
        tout = reply.output_tokens if reply.output_tokens is not None else _rough_tokens(text)
        n = next(self._ids)
        if reply.extra is not None:
            doc = json.loads(self._render(rec, dataclasses.replace(reply, extra=None)).body)
            body = json.dumps(doc)[:-1] + ", " + reply.extra + "}"
            return Response(body, media_type="application/json")
        response = JSONResponse if _utf8(text) else EscapedJSONResponse
        if rec.shape == "openai":
            return response({
                "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0,
                "model": rec.model,
                "choices": [{"index": 0, "finish_reason": "length" if reply.cut else "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": tin, "completion_tokens": tout,
                          "total_tokens": tin + tout},
            })
        return response({
            "id": f"msg_{n}", "type": "message", "role": "assistant", "model": rec.model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "max_tokens" if reply.cut else "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": tin, "output_tokens": tout},
        })

    @staticmethod
    def _model_not_found(rec: Recorded) -> dict[str, Any]:
        """A 404 for a model name, in each provider's words."""
        if rec.shape == "openai":
            return {"error": {"message": f"The model `{rec.model}` does not exist or you do "
                                         "not have access to it.",
                              "type": "invalid_request_error", "code": "model_not_found"}}
        return {"type": "error", "error": {"type": "not_found_error",
                                           "message": f"model: {rec.model}"}}

    @staticmethod
    def _error_body(shape: str, status: int) -> dict[str, Any]:
        kind = {429: "rate_limit_error", 401: "authentication_error",
                403: "permission_error", 500: "api_error"}[status]
        message = f"scripted {status}"
        if shape == "openai":
            return {"error": {"message": message, "type": kind, "code": None}}
        return {"type": "error", "error": {"type": kind, "message": message}}


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class EscapedJSONResponse(JSONResponse):
    """JSON with every non-ASCII character escaped: how a server sends reply text holding a
    lone surrogate (``\\ud800``, which UTF-8 cannot carry)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, separators=(",", ":")).encode("ascii")


def constant(text: str, latency: float = 0.0) -> Script:
    """A script that always says `text`."""
    reply = Reply(text, latency=latency)
    return lambda _req: reply


def sequence(*replies: Reply, then: Reply | None = None) -> Script:
    """A script that plays `replies` in order (across all requests), then `then` (or the last)."""
    queue = list(replies)
    lock = threading.Lock()
    tail = then or (replies[-1] if replies else Reply())

    def script(_req: Recorded) -> Reply:
        with lock:
            return queue.pop(0) if queue else tail

    return script


def json_reply(doc: dict[str, Any], latency: float = 0.0) -> Reply:
    return Reply(json.dumps(doc), latency=latency)


def main() -> None:
    """Run the server alone (another process, as the benchmark does): every request is answered
    with `--text` after `--latency` seconds. Prints the base URL, then serves until killed."""
    import argparse

    parser = argparse.ArgumentParser(description="the provider test server, standalone")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--text", default='{"n": 1}')
    args = parser.parse_args()
    server = ProviderServer(constant(args.text, args.latency)).start()
    print(server.url, flush=True)
    try:
        server._thread.join()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
