"""`cogleague serve` on uvicorn, with the connection limits a public server needs.

uvicorn bounds neither how long a client may take to send a request's headers nor how many
connections one client address holds, so a few hundred half-open requests exhaust the
process's open files and every honest request fails. Here:

- the soft open-files limit is raised to the hard limit at start (logged);
- `GuardedHttpProtocol` (uvicorn's httptools protocol) refuses a connection beyond
  `Settings.max_connections` in all or `Settings.max_connections_per_client` from one address
  with an HTTP 503 and a close (behind a trusted proxy, uvicorn's `FORWARDED_ALLOW_IPS`, a
  request counts against the client its `X-Forwarded-For` names while it is served, and a
  WebSocket for as long as it lives; a proxy's connection before its first request and
  between requests counts against the proxy's own address — never against the client it
  served last), and closes a connection that has not sent a complete request
  head within `Settings.header_timeout_s` (a new connection, or an idle keep-alive one);
- a request body must arrive within `Settings.body_timeout_s` (`limits.py`: 408);
- WebSockets are pinged by the protocol every `ws_ping_interval_s` and closed when a pong is
  `ws_ping_timeout_s` late.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import time
from typing import Any

from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from cogleague.core import jsonio
from cogleague.server.loglimit import Throttled
from cogleague.server.settings import TRANSPORT_MAX_FRAME_BYTES, Settings

log = logging.getLogger("cogleague.server")
throttle = Throttled(log)
NOFILE_CEILING = 1 << 20
"""The soft limit asked for when the hard limit is unlimited (Linux's default nr_open)."""


def raise_open_files_limit() -> tuple[int, int]:
    """Raise the soft RLIMIT_NOFILE to the hard limit; returns (before, after)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = NOFILE_CEILING if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as exc:
            log.warning("open files limit stays %d (raising it to %d failed: %s)", soft,
                        target, exc)
            return soft, soft
        log.warning("open files limit raised from %d to %d", soft, target)
        return soft, target
    return soft, soft


class Guard:
    """Every HTTP connection of this process, by client address (WebSockets included: an
    upgraded connection keeps its transport)."""

    def __init__(self, settings: Settings, proxies: _TrustedHosts | None = None) -> None:
        self.proxies = proxies
        """The trusted proxies (uvicorn's proxy headers on): a connection from one counts
        against the client its `X-Forwarded-For` names once its request head arrives."""
        self.max_total = settings.max_connections
        self.max_per_client = settings.max_connections_per_client
        self.header_timeout_s = settings.header_timeout_s
        self.by_client: dict[str, set[asyncio.BaseTransport]] = {}
        self.refused = 0
        self.timed_out = 0
        self._made = 0

    def proxied(self, host: str) -> bool:
        """Whether `host` is a trusted proxy (its connections serve many clients)."""
        return self.proxies is not None and host in self.proxies

    def admit(self, host: str, transport: asyncio.BaseTransport, connections: int) -> str | None:
        """None to serve the connection, else why it is refused."""
        self._made += 1
        if self._made % 1024 == 0:
            self.prune()
        mine = self.by_client.setdefault(host, set())
        for t in [t for t in mine if t.is_closing()]:
            mine.discard(t)
        if connections > self.max_total:
            return f"the server holds its limit of {self.max_total} connections"
        if len(mine) >= self.max_per_client:
            return f"one address may hold at most {self.max_per_client} connections"
        mine.add(transport)
        return None

    def attribute(self, old: str, new: str, transport: asyncio.BaseTransport) -> str | None:
        """Count `transport` (counted against `old`) against `new` from now on; None, or why
        it is refused (`new` already holds its limit)."""
        if old == new:
            return None
        self.by_client.get(old, set()).discard(transport)
        mine = self.by_client.setdefault(new, set())
        for t in [t for t in mine if t.is_closing()]:
            mine.discard(t)
        if len(mine) >= self.max_per_client:
            return f"one address may hold at most {self.max_per_client} connections"
        mine.add(transport)
        return None

    def prune(self) -> None:
        for host in list(self.by_client):
            live = {t for t in self.by_client[host] if not t.is_closing()}
            if live:
                self.by_client[host] = live
            else:
                del self.by_client[host]


GUARD: Guard | None = None
"""The process's guard (`run` sets it before uvicorn starts)."""


def _refusal(message: str) -> bytes:
    body = jsonio.dumps({"error": {"code": "unavailable", "message": message}}).encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
            b"connection: close\r\nretry-after: 1\r\ncontent-length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body)


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol with `GUARD`'s caps and a deadline for each request head."""

    _refused = False
    """Refused and closing: the rest of what the client sent is not parsed into requests."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        guard = GUARD
        if guard is None:
            return
        host = self.client[0] if self.client else "?"
        self._counted_as = host
        why = guard.admit(host, transport, len(self.connections))
        if why is not None:
            self._refuse(guard, host, why)
            return
        self._idle_since = time.monotonic()
        self._head_timer = self.loop.call_later(guard.header_timeout_s, self._check_head)

    def _refuse(self, guard: Guard, host: str, why: str) -> None:
        self._refused = True
        guard.refused += 1
        throttle.warn(("refused", host), "connection from %s refused: %s", host, why)
        self.transport.write(_refusal(why))
        self.transport.close()

    def on_headers_complete(self) -> None:
        """Behind a trusted proxy, count the connection against the client it forwards (the
        proxy's own address would cap every client together)."""
        guard = GUARD
        if self._refused:
            return
        proxies = guard.proxies if guard is not None else None
        if guard is not None and proxies is not None and self.client \
                and self.client[0] in proxies:
            forwarded = b", ".join(v for n, v in self.headers if n == b"x-forwarded-for")
            client = (proxies.get_trusted_client_address(forwarded.decode("latin1"))[0]
                      if forwarded else "") or self.client[0]
            why = guard.attribute(self._counted_as, client, self.transport)
            self._counted_as = client
            if why is not None:
                self._refuse(guard, client, why)
                return
        super().on_headers_complete()

    def handle_websocket_upgrade(self) -> None:
        if not self._refused:
            super().handle_websocket_upgrade()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if not self._refused:
            super().on_message_complete()

    def on_response_complete(self) -> None:
        """A proxy's connection, its response sent, is the proxy's again until its next
        request names a client (unless a pipelined request already waits): kept alive, it
        must not count against the client it served last. Closed if the proxy's address
        holds its limit already."""
        self._idle_since = time.monotonic()
        guard = GUARD
        if guard is not None and not self._refused and not self.pipeline and self.client \
                and guard.proxied(self.client[0]) and self._counted_as != self.client[0]:
            why = guard.attribute(self._counted_as, self.client[0], self.transport)
            self._counted_as = self.client[0]
            if why is not None:
                self.transport.close()
        super().on_response_complete()

    def _check_head(self) -> None:
        """Close a connection that sent no complete request head for `header_timeout_s`
        since it opened or since its last response (slow or stalled headers)."""
        guard = GUARD
        transport = self.transport
        if guard is None or transport.is_closing() or transport.get_protocol() is not self:
            return  # closed, or upgraded to a WebSocket (its own pings watch it)
        busy = self.cycle is not None and not self.cycle.response_complete
        waited = time.monotonic() - self._idle_since
        if not busy and waited >= guard.header_timeout_s:
            guard.timed_out += 1
            host = self.client[0] if self.client else "?"
            throttle.warn(("head", host), "closed a connection from %s: no complete request "
                                          "head within %g s", host, guard.header_timeout_s)
            transport.close()
            return
        delay = guard.header_timeout_s - waited if not busy else guard.header_timeout_s
        self._head_timer = self.loop.call_later(max(0.05, delay), self._check_head)

    def connection_lost(self, exc: Exception | None) -> None:
        timer = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
        super().connection_lost(exc)


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """What `uvicorn.run` / `uvicorn.Config` take besides the app, host and port."""
    from cogleague.server.transport import WS_PROTOCOL

    return {"http": GuardedHttpProtocol, "ws": WS_PROTOCOL, "access_log": False,
            "ws_max_size": TRANSPORT_MAX_FRAME_BYTES,
            "ws_ping_interval": settings.ws_ping_interval_s,
            "ws_ping_timeout": settings.ws_ping_timeout_s,
            "timeout_keep_alive": min(5, int(settings.header_timeout_s) or 1)}


def install_logging(log_level: str) -> None:
    """The server's own lines (``cogleague.*``: a new database's schema, tables resumed, lease
    take-overs, outages) at `cogleague serve --log-level`, worded as uvicorn's are. Without a
    handler its info lines went nowhere and its warnings reached stderr only through Python's
    last-resort handler."""
    from uvicorn.config import LOG_LEVELS
    from uvicorn.logging import DefaultFormatter

    logger = logging.getLogger("cogleague")
    if any(getattr(h, "cogleague_serve", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler()
    handler.setFormatter(DefaultFormatter("%(levelprefix)s %(message)s"))
    handler.cogleague_serve = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(LOG_LEVELS[log_level])


def run(app: Any, settings: Settings, sock: socket.socket, log_level: str = "info") -> None:
    """Serve `app` (made from `settings`) on the bound `sock` until interrupted."""
    import uvicorn

    global GUARD
    raise_open_files_limit()
    config = uvicorn.Config(app, log_level=log_level, **uvicorn_options(settings))
    GUARD = Guard(settings, _TrustedHosts(config.forwarded_allow_ips)
                  if config.proxy_headers else None)
    if GUARD.proxies is not None and GUARD.proxies.always_trust:
        log.warning("FORWARDED_ALLOW_IPS trusts every address: any client names itself in "
                    "X-Forwarded-For, so the per-address limits (connections, sign-ins, "
                    "sign-ups) hold no one back; name the proxy's address instead "
                    "(docs/deploy.md)")
    uvicorn.Server(config).run(sockets=[sock])
