"""A lean HTTP/1.1 keep-alive transport for the provider SDKs' httpx clients.

The official `openai` and `anthropic` SDKs send through an httpx (or httpx2) client, whose default
transport is httpcore (+ h11, anyio): about a millisecond of client CPU per request, spent
serially on the episode's one event loop — with 64 model seats the last request of a step leaves
tens of milliseconds after the first. `LeanTransport` replaces only that bottom layer: the SDK
still builds the request (auth, headers, JSON, timeout), checks the status and maps errors; the
transport writes the request on a pooled asyncio stream and parses the reply.

What it does, and no more: HTTP/1.1 over TCP (TLS with the given context for ``https``), one
write per request (request line, headers and body), a per-host pool of idle keep-alive
connections (LIFO, idle ones older than `KEEPALIVE_EXPIRY_S` or closed by the server are dropped),
``Content-Length``, chunked and read-to-close bodies (the body is read whole before the response
is returned: these are small JSON replies; one longer than `MAX_RESPONSE_BYTES`, as sent or once
gzip / deflate decoded, is refused as a `RemoteProtocolError` naming the limit, no further byte
read or decoded), and the request's timeout
extensions (connect, write, and read — each read bounded by the read timeout, as httpcore does).
A connection that fails, is cancelled mid-request, or says ``Connection: close`` is closed and
never reused. Failures raise the HTTP library's own exceptions (`ConnectTimeout`,
`ReadTimeout`, `WriteTimeout`, `ConnectError`, `ReadError`, `WriteError`,
`RemoteProtocolError`), so the SDKs map them onto `APITimeoutError` / `APIConnectionError`
exactly as before. No proxies, no HTTP/2, no streaming
of bodies: `providers.http_client` keeps the SDK's own transport when a proxy is configured.

`transport_for(library)` builds one for the httpx-like module the SDK runs on (`httpx` for
`openai`, the `httpx2` fork for later `anthropic` versions): the class must derive from that
module's `AsyncBaseTransport`, and the responses must be that module's `Response`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import ssl
import zlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

KEEPALIVE_EXPIRY_S = 5.0
"""An idle connection older than this is closed rather than reused (httpx's default)."""
MAX_IDLE_PER_HOST = 256
"""Idle connections kept per host; more than the seats of any step."""
STREAM_LIMIT = 1 << 20
"""The longest response head (status line and headers) accepted, in bytes."""
MAX_RESPONSE_BYTES = 4 << 20
"""The longest response body accepted, in bytes, as sent and once gzip / deflate decoded: a reply
within any max_tokens budget is a few KiB, and a broken or hostile provider (or proxy) must not
make the client hold, and the games' reply readers scan, hundreds of megabytes."""
DEFAULT_PORTS = {b"http": 80, b"https": 443}
NO_BODY_STATUS = frozenset({204, 304})


class _Connection:
    __slots__ = ("idle_since", "loop", "reader", "writer")

    def __init__(self, loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.loop = loop
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def reusable(self, loop: asyncio.AbstractEventLoop, now: float) -> bool:
        """Still open on our side and the server's (no EOF, no stray bytes), on this loop, and
        not idle for too long."""
        return (self.loop is loop and not self.writer.is_closing()
                and not self.reader.at_eof() and not _buffered(self.reader)
                and now - self.idle_since < KEEPALIVE_EXPIRY_S)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # its loop may already be closed
            self.writer.transport.abort()


def _buffered(reader: asyncio.StreamReader) -> int:
    """Bytes received but not read. On an idle connection they answer no request (a server's
    extra response, a late error): read as the next request's answer, every later answer on the
    connection would be one behind. StreamReader has no public count; `_buffer` is its
    bytearray."""
    return len(getattr(reader, "_buffer", b""))


class _ProtocolError(Exception):
    """The server's bytes are not a valid HTTP/1.1 response."""


def too_large(size: str) -> str:
    """Why a response body is refused (one wording for the transport and the providers)."""
    return f"response body of {size} exceeds MAX_RESPONSE_BYTES ({MAX_RESPONSE_BYTES} bytes)"


class LeanTransportBase:
    """The transport's logic; `transport_for` mixes it with the library's base class."""

    _lib: ModuleType  # set on the per-library subclass

    def __init__(self, ssl_context: ssl.SSLContext | Callable[[], ssl.SSLContext]) -> None:
        self._ssl_context = ssl_context
        self._idle: dict[tuple[bytes, bytes, int], list[_Connection]] = {}
        self._closed = False
        self.connections_opened = 0
        """How many connections this transport has opened (for tests and benchmarks)."""

    # -- the pool ----------------------------------------------------------------------------
    def _checkout(self, key: tuple[bytes, bytes, int],
                  loop: asyncio.AbstractEventLoop) -> _Connection | None:
        idle = self._idle.get(key)
        if not idle:
            return None
        now = loop.time()
        while idle:
            conn = idle.pop()
            if conn.reusable(loop, now):
                return conn
            conn.close()
        return None

    def _checkin(self, key: tuple[bytes, bytes, int], conn: _Connection) -> None:
        idle = self._idle.setdefault(key, [])
        if self._closed or len(idle) >= MAX_IDLE_PER_HOST:
            conn.close()
            return
        conn.idle_since = conn.loop.time()
        idle.append(conn)

    async def _connect(self, scheme: bytes, host: str, port: int, timeout: float | None,
                       request: Any) -> _Connection:
        lib = self._lib
        tls: ssl.SSLContext | None = None
        if scheme == b"https":
            context = self._ssl_context
            tls = context if isinstance(context, ssl.SSLContext) else context()
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=tls, server_hostname=host if tls else None,
                    limit=STREAM_LIMIT)
        except TimeoutError as exc:
            raise lib.ConnectTimeout(f"connecting to {host}:{port} timed out",
                                     request=request) from exc
        except OSError as exc:  # refused, unreachable, DNS, TLS (ssl.SSLError is an OSError)
            raise lib.ConnectError(f"connecting to {host}:{port}: {exc}",
                                   request=request) from exc
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        self.connections_opened += 1
        return _Connection(asyncio.get_running_loop(), reader, writer)

    # -- one request -------------------------------------------------------------------------
    async def handle_async_request(self, request: Any) -> Any:
        lib = self._lib
        if self._closed:
            raise RuntimeError("the transport has been closed")
        url = request.url
        scheme = url.raw_scheme
        if scheme not in DEFAULT_PORTS:
            raise lib.UnsupportedProtocol(f"unsupported URL scheme {url.scheme!r}",
                                          request=request)
        host: str = url.host
        port: int = url.port or DEFAULT_PORTS[scheme]
        timeouts = request.extensions.get("timeout") or {}
        loop = asyncio.get_running_loop()
        key = (scheme, url.raw_host, port)
        conn = self._checkout(key, loop)
        if conn is None:
            conn = await self._connect(scheme, host, port, timeouts.get("connect"), request)
        try:
            data = _request_head(request, url) + await _request_body(request, lib)
            try:
                conn.writer.write(data)
                async with asyncio.timeout(timeouts.get("write")):
                    await conn.writer.drain()
            except TimeoutError as exc:
                raise lib.WriteTimeout("writing the request timed out", request=request) from exc
            except OSError as exc:
                raise lib.WriteError(f"writing the request: {exc}", request=request) from exc
            status, reason, version, headers, content, keep = await _read_response(
                conn.reader, request.method, timeouts.get("read"), lib, request)
        except BaseException:  # including cancellation: the connection's state is unknown
            conn.close()
            raise
        if keep and not _says_close(request.headers.get("connection")):
            self._checkin(key, conn)
        else:
            conn.close()
        return lib.Response(status, headers=headers, stream=lib.ByteStream(content),
                            extensions={"http_version": version, "reason_phrase": reason})

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.close()


def _says_close(value: str | None) -> bool:
    return value is not None and "close" in value.lower()


def _request_head(request: Any, url: Any) -> bytes:
    target = url.raw_path or b"/"
    lines = [request.method.encode("ascii"), b" ", target, b" HTTP/1.1\r\n"]
    has_host = False
    for name, value in request.headers.raw:
        if not has_host and name.lower() == b"host":
            has_host = True
        lines += (name, b": ", value, b"\r\n")
    if not has_host:
        lines += (b"Host: ", url.netloc, b"\r\n")
    lines.append(b"\r\n")
    return b"".join(lines)


async def _request_body(request: Any, lib: ModuleType) -> bytes:
    """The body bytes (already in memory for the SDKs' JSON posts; a stream is collected)."""
    try:
        content: bytes = request.content
    except lib.RequestNotRead:
        content = b"".join([chunk async for chunk in request.stream])
        if _says_chunked(request.headers.get("transfer-encoding")):  # sent as one chunk
            return (b"%x\r\n%s\r\n0\r\n\r\n" % (len(content), content) if content
                    else b"0\r\n\r\n")
    return content


def _says_chunked(value: str | None) -> bool:
    return value is not None and "chunked" in value.lower()


async def _read_response(reader: asyncio.StreamReader, method: str, timeout: float | None,
                         lib: ModuleType, request: Any
                         ) -> tuple[int, bytes, bytes, list[tuple[bytes, bytes]], bytes, bool]:
    """(status, reason, version, headers, body, keep-alive) of the next response."""
    try:
        async with asyncio.timeout(timeout) as deadline:
            while True:
                status, reason, version, headers = _parse_head(
                    await reader.readuntil(b"\r\n\r\n"))
                if not 100 <= status < 200:
                    break
                if timeout is not None:
                    deadline.reschedule(asyncio.get_running_loop().time() + timeout)
            length: int | None = None
            chunked = False
            keep = version == b"HTTP/1.1"
            for name, value in headers:
                lower = name.lower()
                if lower == b"content-length":
                    length = int(value)
                    if length < 0:
                        raise _ProtocolError("negative Content-Length")
                    if length > MAX_RESPONSE_BYTES:
                        raise _ProtocolError(too_large(f"{length} bytes"))
                elif lower == b"transfer-encoding":
                    chunked = b"chunked" in value.lower()
                elif lower == b"connection":
                    tokens = value.lower()
                    keep = b"close" not in tokens and (keep or b"keep-alive" in tokens)
            if method == "HEAD" or status in NO_BODY_STATUS:
                return status, reason, version, headers, b"", keep

            def again() -> None:  # each further read gets the whole read timeout (as httpcore)
                if timeout is not None:
                    deadline.reschedule(asyncio.get_running_loop().time() + timeout)

            if chunked:
                content = await _read_chunked(reader, again)
            elif length is not None:
                again()
                content = await reader.readexactly(length)
            else:  # no framing: the body runs to the end of the connection
                parts: list[bytes] = []
                total = 0
                while part := await reader.read(65536):
                    parts.append(part)
                    total += len(part)
                    if total > MAX_RESPONSE_BYTES:
                        raise _ProtocolError(too_large(f"more than {MAX_RESPONSE_BYTES} bytes"))
                    again()
                content, keep = b"".join(parts), False
            _check_decoded(headers, content)
            return status, reason, version, headers, content, keep
    except TimeoutError as exc:
        raise lib.ReadTimeout("reading the response timed out", request=request) from exc
    except asyncio.IncompleteReadError as exc:
        what = ("the server closed the connection without a response" if not exc.partial
                else "the server closed the connection mid-response")
        raise lib.RemoteProtocolError(what, request=request) from exc
    except (_ProtocolError, ValueError, asyncio.LimitOverrunError) as exc:
        raise lib.RemoteProtocolError(f"unreadable response: {exc}", request=request) from exc
    except OSError as exc:
        raise lib.ReadError(f"reading the response: {exc}", request=request) from exc


def _check_decoded(headers: list[tuple[bytes, bytes]], content: bytes) -> None:
    """Refuse a compressed body that decodes past `MAX_RESPONSE_BYTES` (a few KiB of gzip can
    hold gigabytes), decoding no further than the cap, layer by layer as the HTTP library will
    (the last encoding first). An encoding it cannot read, or a corrupt stream, is left to the
    library, which reports its own error."""
    encodings = [token.strip().lower() for name, value in headers
                 if name.lower() == b"content-encoding" for token in value.split(b",")]
    data = content
    for encoding in reversed(encodings):
        if encoding in (b"gzip", b"x-gzip"):
            attempts = [zlib.MAX_WBITS | 16]
        elif encoding == b"deflate":  # zlib-wrapped, or raw as some servers send it
            attempts = [zlib.MAX_WBITS, -zlib.MAX_WBITS]
        elif encoding in (b"identity", b""):
            continue
        else:
            return
        for wbits in attempts:
            try:
                data = zlib.decompressobj(wbits).decompress(data, MAX_RESPONSE_BYTES + 1)
                break
            except zlib.error:
                continue
        else:
            return
        if len(data) > MAX_RESPONSE_BYTES:
            raise _ProtocolError(too_large(f"more than {MAX_RESPONSE_BYTES} bytes decoded"))


def _parse_head(head: bytes) -> tuple[int, bytes, bytes, list[tuple[bytes, bytes]]]:
    lines = head[:-4].split(b"\r\n")
    version, _, rest = lines[0].partition(b" ")
    code, _, reason = rest.partition(b" ")
    if not version.startswith(b"HTTP/1.") or len(code) != 3 or not code.isdigit():
        raise _ProtocolError(f"bad status line {lines[0][:80]!r}")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip():
            raise _ProtocolError(f"bad header line {line[:80]!r}")
        headers.append((name, value.strip()))
    return int(code), reason, version, headers


async def _read_chunked(reader: asyncio.StreamReader, again: Callable[[], None]) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        again()
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.partition(b";")[0].strip(), 16)
        if size < 0:
            raise _ProtocolError("negative chunk size")
        total += size
        if total > MAX_RESPONSE_BYTES:
            raise _ProtocolError(too_large(f"more than {MAX_RESPONSE_BYTES} bytes"))
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, ignored
                again()
            return b"".join(parts)
        again()
        chunk = await reader.readexactly(size + 2)
        if chunk[-2:] != b"\r\n":
            raise _ProtocolError("chunk not followed by CRLF")
        parts.append(chunk[:-2])


@functools.cache
def _transport_class(lib: ModuleType) -> type[LeanTransportBase]:
    base: type = lib.AsyncBaseTransport
    return type("LeanTransport", (LeanTransportBase, base),
                {"_lib": lib, "__module__": __name__, "__doc__": LeanTransportBase.__doc__})


def transport_for(lib: ModuleType,
                  ssl_context: ssl.SSLContext | Callable[[], ssl.SSLContext]) -> Any:
    """A `LeanTransport` for the httpx-like module `lib` (its `AsyncBaseTransport`, its
    `Response`, its exceptions). `ssl_context` (or a function making it, called on the first
    ``https`` connection) verifies TLS."""
    return _transport_class(lib)(ssl_context)
