"""What `cogleague table` and `cogleague account` share: the server options and one call to
the server's HTTP API, whose refusals become one line naming the field (exit 2)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, TypeVar

import typer

from cogleague.cli.common import fail

DEFAULT_SERVER = "http://127.0.0.1:8000"

ServerOpt = Annotated[str, typer.Option(
    "--server", envvar="COGLEAGUE_SERVER", help="the table server's URL")]

_T = TypeVar("_T")


def call(server: str, key: str | None, request: Callable[[Any], Awaitable[_T]],
         option_for: Mapping[str, str] | None = None, wait: float = 0.0) -> _T:
    """Run `request(lobby)` against `server`; a refusal or an unreachable server is `fail`.
    `option_for` maps the API's field names to the options that set them; `wait` is how long
    to keep trying a server that does not answer yet (one just started)."""
    import httpx

    from cogleague.client import LobbyClient, LobbyError

    if not server.startswith(("http://", "https://")):
        fail(f"--server must be an http:// or https:// URL (got {server!r})")

    async def run() -> _T:
        async with LobbyClient(server, key) as lobby:
            deadline = time.monotonic() + wait
            while True:
                try:
                    await lobby.request("GET", "/healthz")
                    break
                except httpx.TransportError:
                    if time.monotonic() >= deadline:
                        raise
                    await asyncio.sleep(0.2)
            return await request(lobby)

    try:
        return asyncio.run(run())
    except LobbyError as exc:
        message = exc.message
        for field, option in (option_for or {}).items():
            if message.startswith(field):  # "seed: must be …" (a request field's wording)
                rest = message[len(field):]  # reads "--seed must be …", as options do
                message = option + (rest[1:] if rest.startswith(": must ") else rest)
                break
        fail(f"{message} ({exc.code}, HTTP {exc.status})")
    except httpx.HTTPError as exc:
        waited = f" within {wait:g} s" if wait else ""
        fail(f"--server {server}: cannot reach it{waited} ({exc})")
