"""Behind a trusted reverse proxy (uvicorn's proxy headers, `FORWARDED_ALLOW_IPS`; here two
proxy addresses on loopback), the per-address connection cap counts the client the proxy
forwards, not the proxy: many clients share the proxy's address, one client still holds at
most its cap. A request counts against its own client while it is served; a kept-alive proxy
connection before and between requests counts against the proxy's own address — never against
the client it served last (that client would stay capped by connections it no longer uses)."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers.waiting import until
from server.support import ServerProcess

CAP = 4
PROXY_A = "127.0.0.1"
PROXY_B = "127.0.0.2"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    d = tmp_path_factory.mktemp("proxied")
    before = os.environ.get("FORWARDED_ALLOW_IPS")
    os.environ["FORWARDED_ALLOW_IPS"] = f"{PROXY_A},{PROXY_B}"
    try:
        started = ServerProcess(f"sqlite:///{d / 'proxied.db'}", d / "server.log",
                                max_connections_per_client=CAP, header_timeout_s=10.0).start()
    finally:
        if before is None:
            del os.environ["FORWARDED_ALLOW_IPS"]
        else:
            os.environ["FORWARDED_ALLOW_IPS"] = before
    yield started
    started.stop()


def _connect(server: ServerProcess, proxy: str = PROXY_A) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5,
                                    source_address=(proxy, 0))


def _kept(server: ServerProcess, client: str, proxy: str = PROXY_A
          ) -> tuple[socket.socket, bytes]:
    """A keep-alive connection (as the proxy holds one) that served one request of `client`."""
    s = _connect(server, proxy)
    return s, _ask(s, client)


def _read(s: socket.socket) -> bytes:
    """One whole response (head and body by its content-length); b"" if closed first."""
    out = b""
    while b"\r\n\r\n" not in out:
        chunk = s.recv(65536)
        if not chunk:
            return out
        out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def _ask(s: socket.socket, client: str) -> bytes:
    """One `GET /healthz` of `client` on `s`, its whole response read."""
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: "
              + client.encode() + b"\r\n\r\n")
    return _read(s)


def _busy(server: ServerProcess, client: str, proxy: str = PROXY_A) -> socket.socket:
    """A connection whose request of `client` is being served: its head sent, its announced
    body not yet (the server waits for it; `_finish` sends it)."""
    s = _connect(server, proxy)
    s.sendall(b"POST /accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: 2\r\nX-Forwarded-For: " + client.encode() + b"\r\n\r\n")
    return s


def _finish(s: socket.socket) -> bytes:
    s.sendall(b"[]")
    return _read(s)


def _get(server: ServerProcess, client: str, proxy: str = PROXY_A) -> bytes:
    s, out = _kept(server, client, proxy)
    s.close()
    return out


def test_a_kept_connection_is_not_counted_against_the_client_it_served_last(
        server: ServerProcess) -> None:
    held = [_kept(server, "198.51.100.20") for _ in range(CAP)]  # proxy A keeps these
    try:
        assert all(out.startswith(b"HTTP/1.1 200") for _, out in held), held
        # the client they served has nothing in flight: through proxy B it is served
        out = _get(server, "198.51.100.20", PROXY_B)
        assert out.startswith(b"HTTP/1.1 200"), out[:200]
        busy = [_busy(server, "198.51.100.21", PROXY_B) for _ in range(CAP - 1)]
        time.sleep(0.2)  # their heads are in: that client holds one below its cap
        for s, _ in held:  # each of proxy A's kept connections in turn serves it: counted
            out = _ask(s, "198.51.100.21")  # while served, then the proxy's again
            assert out.startswith(b"HTTP/1.1 200"), out[:200]
        out = _get(server, "198.51.100.21", PROXY_B)  # its last one, still free
        assert out.startswith(b"HTTP/1.1 200"), out[:200]
        for s in busy:
            assert not _finish(s).startswith(b"HTTP/1.1 503")
            s.close()
    finally:
        for s, _ in held:
            s.close()


def test_the_cap_counts_the_forwarded_client_not_the_proxy(server: ServerProcess) -> None:
    held: list[socket.socket] = []
    try:
        # many clients through one proxy address, each with a request in flight
        held += [_busy(server, f"203.0.113.{i}") for i in range(3 * CAP)]
        held += [_busy(server, "198.51.100.7") for _ in range(CAP)]  # one client's own
        time.sleep(0.2)  # cap still holds while its requests are served
        s, out = _kept(server, "198.51.100.7")
        held.append(s)
        assert out.startswith(b"HTTP/1.1 503") and b"at most 4 connections" in out, out[:200]
        for s in held[:-1]:
            out = _finish(s)
            assert out.startswith(b"HTTP/1.1 ") and not out.startswith(b"HTTP/1.1 503"), out
    finally:
        for s in held:
            s.close()
    # the closed connections are let go of: the client is served again
    until(lambda: httpx.get(f"{server.url}/healthz", headers={
        "X-Forwarded-For": "198.51.100.7"}).status_code == 200,
        "/healthz to answer 200 once the client's connections closed")


def test_a_proxy_holds_at_most_its_cap_of_idle_connections(server: ServerProcess) -> None:
    """Kept-alive connections between requests are the proxy's: at most its cap of them."""
    held = [_kept(server, f"203.0.113.{100 + i}", PROXY_B) for i in range(CAP)]
    try:
        assert all(out.startswith(b"HTTP/1.1 200") for _, out in held), held
        time.sleep(0.1)
        out = _get(server, "203.0.113.200", PROXY_B)
        assert out.startswith(b"HTTP/1.1 503"), out[:200]
    finally:
        for s, _ in held:
            s.close()
    # the server counts the closed connections down when it sees them go: a moment alone,
    # seconds on a loaded machine (a fixed 0.3 s wait was not always enough)
    until(lambda: _get(server, "203.0.113.200", PROXY_B).startswith(b"HTTP/1.1 200"),
          "the closed connections to be counted out", timeout_s=60)


def test_a_websocket_over_the_forwarded_clients_cap_is_refused(server: ServerProcess) -> None:
    held = [_busy(server, "192.0.2.9") for _ in range(CAP)]
    time.sleep(0.2)
    try:
        s = _connect(server)
        held.append(s)
        s.sendall(b"GET /v1/lobby/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                  b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  b"X-Forwarded-For: 192.0.2.9\r\n\r\n")
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        assert out.startswith(b"HTTP/1.1 503") and b"101" not in out.split(b"\r\n")[0], out
        assert out.count(b"HTTP/1.1") == 1, out
    finally:
        for s in held:
            s.close()
    time.sleep(0.3)
    assert "Traceback" not in server.log_path.read_text()


def test_trusting_every_address_is_warned_of(tmp_path: Path) -> None:
    """`FORWARDED_ALLOW_IPS=*` makes every client a trusted proxy: any client then names
    itself in X-Forwarded-For, and every per-address limit (connections, sign-ins, sign-ups)
    is void. A server started so says it once, at start."""
    before = os.environ.get("FORWARDED_ALLOW_IPS")
    os.environ["FORWARDED_ALLOW_IPS"] = "*"
    try:
        started = ServerProcess(f"sqlite:///{tmp_path / 'star.db'}", tmp_path / "star.log"
                                ).start()
    finally:
        if before is None:
            del os.environ["FORWARDED_ALLOW_IPS"]
        else:
            os.environ["FORWARDED_ALLOW_IPS"] = before
    try:
        text = started.log_path.read_text()
        assert "FORWARDED_ALLOW_IPS" in text and "per-address limits" in text, text[-2000:]
    finally:
        started.stop()
