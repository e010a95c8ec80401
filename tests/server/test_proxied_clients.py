"""Behind a trusted reverse proxy (uvicorn's proxy headers: loopback is trusted by default, as
in docs/deploy.md), the per-address connection cap counts the client the proxy forwards, not
the proxy: many clients share the proxy's address, one client still holds at most its cap."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from helpers.waiting import until
from server.support import ServerProcess

CAP = 4


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    d = tmp_path_factory.mktemp("proxied")
    started = ServerProcess(f"sqlite:///{d / 'proxied.db'}", d / "server.log",
                            max_connections_per_client=CAP, header_timeout_s=10.0).start()
    yield started
    started.stop()


def _kept(server: ServerProcess, client: str) -> tuple[socket.socket, bytes]:
    """A keep-alive connection (as the proxy holds one) that served one request of `client`."""
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: "
              + client.encode() + b"\r\n\r\n")
    out = b""
    while b"\r\n\r\n" not in out:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
    return s, out


def test_the_cap_counts_the_forwarded_client_not_the_proxy(server: ServerProcess) -> None:
    held: list[socket.socket] = []
    try:
        for i in range(3 * CAP):  # many clients through one proxy address
            s, out = _kept(server, f"203.0.113.{i}")
            held.append(s)
            assert out.startswith(b"HTTP/1.1 200"), (i, out[:200])
        for _ in range(CAP):  # one client's own cap still holds
            s, out = _kept(server, "198.51.100.7")
            held.append(s)
            assert out.startswith(b"HTTP/1.1 200"), out[:200]
        s, out = _kept(server, "198.51.100.7")
        held.append(s)
        assert out.startswith(b"HTTP/1.1 503") and b"at most 4 connections" in out, out[:200]
    finally:
        for s in held:
            s.close()
    # the closed connections are let go of: the client is served again
    until(lambda: httpx.get(f"{server.url}/healthz", headers={
        "X-Forwarded-For": "198.51.100.7"}).status_code == 200,
        "/healthz to answer 200 once the client's connections closed")


def test_a_websocket_over_the_forwarded_clients_cap_is_refused(server: ServerProcess) -> None:
    held = [_kept(server, "192.0.2.9")[0] for _ in range(CAP)]
    try:
        s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
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
