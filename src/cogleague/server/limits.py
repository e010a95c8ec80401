"""What a client may make the server hold or parse: request bodies, paths and JSON frames.

- `BodyLimit` (ASGI middleware): a request body over `Settings.max_body_bytes` gets 413,
  whether it is announced (Content-Length) or not (chunked): the body is read here, counted,
  and handed on from memory, so no more than the limit is ever buffered for one request; a
  body that does not arrive within `Settings.body_timeout_s` gets 408; one nested deeper than
  `MAX_JSON_DEPTH` gets 400 (every body here is JSON; its parser would recurse). A path that
  tries to leave its segment (``..``, ``.``, an encoded slash or backslash) gets 404, never a
  redirect.
- `json_too_deep`: the nesting depth of a JSON text, counted before it is parsed (a frame
  nested 5,000 deep would otherwise exhaust the parser's recursion).
- `oversized`, `too_large_message`, `TOO_DEEP_MESSAGE`, `rate_limited_message`: a WebSocket
  text frame's limits and what a refusal says, for every socket that reads JSON frames
  (`/ws/play`, `/ws/agent`; both count frames with `play.RateLimit`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from cogleague.core import jsonio

MAX_JSON_DEPTH = 32
"""Nesting depth of a client's JSON frame or request body (objects and arrays); deeper is
`bad_frame` (a frame) or 400 (a body)."""
TOO_DEEP_MESSAGE = f"bad frame: JSON nested deeper than {MAX_JSON_DEPTH} levels"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_TRICKS = re.compile(rb"%2[eEfF]|%5[cC]|\\")


def oversized(text: str, max_bytes: int) -> bool:
    """Whether a text frame is over `max_bytes` in UTF-8 (encoded only when it could be)."""
    return len(text) > max_bytes or (len(text) * 4 > max_bytes and
                                      len(text.encode("utf-8", "surrogatepass")) > max_bytes)


def too_large_message(max_bytes: int) -> str:
    return f"a frame may be at most {max_bytes} bytes"


def rate_limited_message(per_second: float) -> str:
    return f"at most {per_second:g} frames per second; slow down"


def json_too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when `text` nests objects/arrays deeper than `limit` (strings are skipped)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _TOKENS.finditer(text):
        c = match.group()
        if c == "[" or c == "{":
            depth += 1
            if depth > limit:
                return True
        elif c == "]" or c == "}":
            depth -= 1
    return False


def path_trick(scope: Scope) -> bool:
    """A path with a dot segment or an encoded dot, slash or backslash: no route has one."""
    raw = scope.get("raw_path") or scope.get("path", "").encode()
    if _TRICKS.search(raw):
        return True
    return any(seg in (".", "..") for seg in scope.get("path", "").split("/"))


async def _answer(send: Send, status: int, code: str, message: str) -> None:
    body = jsonio.dumps({"error": {"code": code, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int, timeout_s: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if path_trick(scope):
            if scope["type"] == "http":
                await _answer(send, 404, "not_found", "no such path")
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        too_large = f"a request body may be at most {self.max_bytes} bytes"
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await _answer(send, 413, "too_large", too_large)
                return
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.timeout_s):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_bytes:
                        await _answer(send, 413, "too_large", too_large)
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _answer(send, 408, "timeout", f"the request body must arrive within "
                                                f"{self.timeout_s:g} s")
            return
        body = b"".join(chunks)
        if json_too_deep(body.decode("utf-8", "replace")):  # the parser would recurse
            await _answer(send, 400, "bad_request",
                          f"body: JSON nested deeper than {MAX_JSON_DEPTH} levels")
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
