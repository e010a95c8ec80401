"""What a client can make the server hold, parse or log — bounded, on a real server.

Over-deep JSON frames get one `bad_frame` error each naming the limit and no traceback (the
log says so at most once a minute per client); chunked bodies over the limit get 413; a body
that does not arrive gets 408; a request head that does not arrive is closed; one address
holding too many connections gets 503; integers are JSON numbers, never strings; a path that
tries to leave its segment is a 404, not a redirect; unknown table ids leave nothing behind.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from websockets.asyncio.client import connect

from cogleague.client import LobbyClient
from cogleague.client.connection import ws_url
from cogleague.server.keyedlock import KeyedLocks
from cogleague.server.limits import MAX_JSON_DEPTH, json_too_deep
from helpers.waiting import until
from server.support import OPERATOR_KEY, ServerProcess, new_account

LIMITS = {"header_timeout_s": 1.0, "body_timeout_s": 1.0, "max_connections_per_client": 24,
          "max_body_bytes": 64 * 1024}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    d = tmp_path_factory.mktemp("limits")
    started = ServerProcess(f"sqlite:///{d / 'limits.db'}", d / "server.log", **LIMITS).start()
    yield started
    started.stop()


def _exchange(server: ServerProcess, data: bytes, wait_s: float = 3.0) -> tuple[bytes, bool]:
    """Send `data` on a fresh connection and read until the server closes it (or `wait_s`, a
    bound far past the server's own timeouts): what came, and whether the server closed it."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=wait_s) as s:
        s.sendall(data)
        out = b""
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                return out, False
            except ConnectionResetError:
                return out, True
            if not chunk:
                return out, True
            out += chunk
        return out, False


def _raw(server: ServerProcess, data: bytes, wait_s: float = 3.0) -> bytes:
    """What the server sent for `data` on a fresh connection (`_exchange`)."""
    return _exchange(server, data, wait_s)[0]


def test_json_depth_is_counted_outside_strings() -> None:
    assert not json_too_deep("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    assert json_too_deep("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    assert not json_too_deep(json.dumps({"text": "[" * 5000}))  # brackets in a string
    assert not json_too_deep(json.dumps([{"a": 1}] * 100))  # wide, not deep


async def test_unused_table_locks_are_dropped() -> None:
    locks = KeyedLocks()
    async with locks("t_a"):
        assert len(locks) == 1
    assert len(locks) == 0

    async def hold(key: str) -> None:
        async with locks(key):
            await asyncio.sleep(0.01)

    await asyncio.gather(*(hold("x" * 8000 + str(i % 7)) for i in range(200)))
    assert len(locks) == 0


async def test_deeply_nested_frames_get_one_error_each_and_no_traceback(
        server: ServerProcess) -> None:
    _, key = await new_account(server)
    async with LobbyClient(server.url, key) as lobby:
        table = await lobby.create_table("toy", config={"seats": 2}, seed=1)
    nested = "[" * 5000 + "]" * 5000
    errors = []
    async with connect(f"{ws_url(server.url)}/ws/watch?table={table['id']}", proxy=None,
                       compression=None) as ws:
        for _ in range(40):
            await ws.send(nested)
        while len(errors) < 40:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame["type"] == "error":
                errors.append(frame)
    assert {e["code"] for e in errors} == {"bad_frame"}
    assert all(str(MAX_JSON_DEPTH) in e["message"] for e in errors)
    def logged() -> str:
        text = server.log_path.read_text()
        return text if "refused a frame" in text else ""

    log = await asyncio.to_thread(until, logged, "the refusal's log line")
    assert "Traceback" not in log and "RecursionError" not in log
    assert log.count("refused a frame") == 1  # one line per client and kind a minute


def test_chunked_bodies_over_the_limit_get_413(server: ServerProcess) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(64):
            yield b"x" * 16384  # 1 MiB in all, no Content-Length

    r = httpx.post(f"{server.url}/tables", content=chunks(),
                   headers={"Authorization": f"Bearer {OPERATOR_KEY}",
                            "Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    assert str(LIMITS["max_body_bytes"]) in r.json()["error"]["message"]
    assert httpx.get(f"{server.url}/healthz").status_code == 200


def test_a_body_that_does_not_arrive_gets_408(server: ServerProcess) -> None:
    head = (b"POST /accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{\"name\":")
    out, closed = _exchange(server, head, wait_s=60.0)
    assert out.startswith(b"HTTP/1.1 408"), out[:200]
    assert closed  # by the server's body timeout, not by this test giving up


def test_a_request_head_that_does_not_arrive_is_closed(server: ServerProcess) -> None:
    out, closed = _exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", wait_s=60.0)
    assert out == b"" and closed, out  # by the server's header timeout, not by this test
    complete = _exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                 b"Connection: close\r\n\r\n", wait_s=60.0)
    assert complete[0].startswith(b"HTTP/1.1 200") and complete[1]  # a whole head is answered


def test_one_address_may_hold_only_so_many_connections(server: ServerProcess) -> None:
    held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(24)]
    try:
        time.sleep(0.2)
        out = _raw(server, b"", wait_s=2.0)
        assert out.startswith(b"HTTP/1.1 503"), out[:200]
        assert b"at most 24 connections" in out
    finally:
        for s in held:
            s.close()
    # the closed connections are let go of: the address is served again
    until(lambda: httpx.get(f"{server.url}/healthz").status_code == 200,
          "/healthz to answer 200 once the held connections closed")


async def test_integers_are_json_numbers_never_strings(server: ServerProcess) -> None:
    account, _ = await new_account(server)
    r = httpx.post(f"{server.url}/accounts/{account}/credits",
                   json={"amount": "100", "idempotency_key": "k1"},
                   headers={"Authorization": f"Bearer {OPERATOR_KEY}"})
    assert r.status_code == 400 and "amount" in r.json()["error"]["message"], r.text
    r = httpx.post(f"{server.url}/accounts/{account}/credits",
                   json={"amount": 100, "idempotency_key": "k1"},
                   headers={"Authorization": f"Bearer {OPERATOR_KEY}"})
    assert r.status_code == 200 and r.json()["balance"] == 100


def test_paths_that_leave_their_segment_are_404(server: ServerProcess) -> None:
    for path in (b"/tables/t_%2e%2e%2f", b"/tables/t_%2E%2E", b"/tables/..%5cx",
                 b"/tables/%2e%2e/tables"):
        out = _raw(server, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert out.startswith(b"HTTP/1.1 404"), (path, out[:200])


async def test_unknown_long_table_ids_are_404_without_a_trace(server: ServerProcess) -> None:
    _, key = await new_account(server)
    async with httpx.AsyncClient(base_url=server.url,
                                 headers={"Authorization": f"Bearer {key}"}) as client:
        for i in range(50):
            r = await client.post(f"/tables/t_{'a' * 8000}{i}/join", json={})
            assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("path", ["/tables", "/accounts", "/session", "/people"])
def test_a_deeply_nested_body_is_a_400_about_the_body(server: ServerProcess, path: str) -> None:
    """JSON nested past the frames' depth limit, in a request body: 400 naming the body and
    the limit, as a frame gets (before: FastAPI's 'There was an error parsing the body', from
    the parser's RecursionError, naming nothing)."""
    for body in ("[" * 5000 + "]" * 5000, '{"game": "dilemma", "config": {"a": '
                 + "[" * 100 + "]" * 100 + "}}"):
        r = httpx.post(f"{server.url}{path}", content=body.encode(),
                       headers={"Authorization": f"Bearer {OPERATOR_KEY}",
                                "Content-Type": "application/json"})
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert error["code"] == "bad_request", error
        assert error["message"] == (f"body: JSON nested deeper than {MAX_JSON_DEPTH} levels"), \
            error
