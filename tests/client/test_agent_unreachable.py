"""`cogleague agent run` against a server that does not answer says so — the URL, the error,
that it retries and when it gives up — and gives up with a non-zero exit; it says "online"
only once a server greeted it. A URL it cannot use is refused at once."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve

from cogleague.client.agent import AgentRefused, AgentRunner
from cogleague.client.bot import Bot
from helpers.net import refused_port

BOT = str(Path(__file__).resolve().parents[2] / "examples" / "dilemma_bot.py") + ":PromiseKeeper"
CLI = str(Path(sys.executable).with_name("cogleague"))


def agent_run(*args: str, seconds: float, until: str | None = None) -> tuple[int | None, str]:
    """`cogleague agent run BOT ARGS…` for at most `seconds`, or `until` it printed that:
    (exit code or None if it was still running, everything it printed). `until` waits for
    what the test reads, not a time a loaded machine may not meet."""
    proc = subprocess.Popen([CLI, "agent", "run", BOT, "--key", "k", "--agent", "a1", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if until is not None:
        assert proc.stdout is not None
        lines: list[bytes] = []
        bound = threading.Timer(120.0, proc.terminate)  # never said: the loop still ends
        bound.start()
        for line in proc.stdout:
            lines.append(line)
            if until.encode() in line:
                break
        bound.cancel()
        proc.terminate()
        rest = proc.communicate(timeout=30)[0]
        return (proc.returncode if until.encode() not in b"".join(lines) else None,
                (b"".join(lines) + rest).decode())
    try:
        out = proc.communicate(timeout=seconds)[0]
        return proc.returncode, out.decode()
    except subprocess.TimeoutExpired:
        proc.terminate()
        return None, proc.communicate(timeout=30)[0].decode()


def test_an_unreachable_server_is_reported_at_once_and_never_called_online() -> None:
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}"
        code, out = agent_run("--server", url, seconds=0, until="giving up at")
    assert code is None and "online" not in out, out
    assert "cannot connect" in out and f"127.0.0.1:{url.rsplit(':', 1)[1]}" in out, out
    assert "refused" in out.lower() and "giving up at" in out, out


def test_it_gives_up_with_a_clear_message_and_a_non_zero_exit() -> None:
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}"
        code, out = agent_run("--server", url, "--give-up-after", "1", seconds=20)
    assert code == 2 and "online" not in out, out
    assert "gave up" in out and url in out and "refused" in out.lower(), out


@pytest.mark.parametrize("server", ["127.0.0.1:8000", "ftp://127.0.0.1:8000", ""])
def test_a_server_that_is_not_a_url_is_refused_at_once(server: str) -> None:
    code, out = agent_run("--server", server, seconds=15)
    assert code == 2 and "--server" in out and "online" not in out, out


def test_also_must_be_a_url_too() -> None:
    code, out = agent_run("--server", "http://127.0.0.1:1", "--also", "host:8001", seconds=15)
    assert code == 2 and "--also" in out, out


async def greeter(ws: ServerConnection) -> None:
    await ws.send(json.dumps({"type": "hello", "agent": "a1"}))
    await ws.recv()
    await ws.wait_closed()


async def test_online_is_said_once_the_server_greeted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="cogleague.agent")
    async with serve(greeter, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        runner = AgentRunner(Bot, f"http://127.0.0.1:{port}", "key", "a1")
        task = asyncio.create_task(runner.run())
        for _ in range(3000):
            if runner.run_state.hello:
                break
            await asyncio.sleep(0.01)
        runner.stop.set()
        await task
    said = [r.getMessage() for r in caplog.records if r.name == "cogleague.agent"]
    assert any("online at" in m and str(port) in m for m in said), said


async def test_the_runner_raises_naming_the_url_and_the_last_error() -> None:
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}"
        runner = AgentRunner(Bot, url, "key", "a1", reconnect_for_s=0.3)
        with pytest.raises(ConnectionError) as caught:
            await runner.run()
    assert url in str(caught.value) and "refused" in str(caught.value).lower()


async def garbler(ws: ServerConnection) -> None:
    """A server (or a proxy in front of one) that sends frames the agent cannot use first."""
    for bad in ("not json", "[1, 2]", '"hello"', '{"type": "assign", "table": "t1"}',
                '{"type": "assign", "table": "t2", "seat": "x", "token": "k"}'):
        await ws.send(bad)
    await ws.send(json.dumps({"type": "hello", "agent": "a1"}))
    await ws.recv()
    await ws.wait_closed()


async def test_frames_it_cannot_use_are_reported_and_skipped(
        caplog: pytest.LogCaptureFixture) -> None:
    async with serve(garbler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        runner = AgentRunner(Bot, f"http://127.0.0.1:{port}", "key", "a1",
                             reconnect_for_s=5)
        task = asyncio.create_task(runner.run())
        for _ in range(3000):
            if runner.run_state.hello or task.done():
                break
            await asyncio.sleep(0.01)
        runner.stop.set()
        await task  # no exception: the agent stays up
    assert runner.run_state.hello["agent"] == "a1" and runner.run_state.connects == 1
    assert runner.tables == {} and runner.run_state.assigned == []
    said = " ".join(r.getMessage() for r in caplog.records if r.name == "cogleague.agent")
    assert "not json" in said and "t1" in said and "t2" in said, said


async def test_max_tables_counts_the_tables_that_failed_too() -> None:
    """`--max-tables 2` stops after two tables, whether they ended or failed (here each seat
    is refused at /ws/play): before, only ended tables counted and the agent ran forever."""
    from websockets.asyncio.server import Request, Response
    from websockets.datastructures import Headers

    def refuse_seats(ws: ServerConnection, request: Request) -> Response | None:
        if request.path.startswith("/ws/play"):
            return Response(403, "Forbidden", Headers(), b"no such seat")
        return None

    async def assigner(ws: ServerConnection) -> None:
        await ws.send(json.dumps({"type": "hello", "agent": "a1"}))
        await ws.recv()
        for n in range(3):
            await ws.send(json.dumps({"type": "assign", "table": f"t{n}", "seat": 0,
                                      "game": "dilemma", "token": "k"}))
        await ws.wait_closed()

    async with serve(assigner, "127.0.0.1", 0, process_request=refuse_seats) as server:
        port = server.sockets[0].getsockname()[1]
        runner = AgentRunner(Bot, f"http://127.0.0.1:{port}", "key", "a1", max_tables=2)
        done = await asyncio.wait_for(runner.run(), 60)
    assert len(done.failures) >= 2 and done.finished == [], done
    assert all("refused" in f for f in done.failures), done.failures


async def test_a_bot_that_cannot_be_made_fails_its_table_not_the_agent(
        caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> Bot:
        raise RuntimeError("weights file missing")

    async def assigner(ws: ServerConnection) -> None:
        await ws.send(json.dumps({"type": "hello", "agent": "a1"}))
        await ws.recv()
        await ws.send(json.dumps({"type": "assign", "table": "t0", "seat": 0,
                                  "game": "dilemma", "token": "k"}))
        await ws.wait_closed()

    async with serve(assigner, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        runner = AgentRunner(broken, f"http://127.0.0.1:{port}", "key", "a1", max_tables=1)
        done = await asyncio.wait_for(runner.run(), 60)
    assert done.failures and "weights file missing" in done.failures[0], done.failures
    said = " ".join(r.getMessage() for r in caplog.records if r.name == "cogleague.agent")
    assert "t0" in said and "weights file missing" in said, said


def test_agent_run_refuses_a_bot_that_cannot_be_made(tmp_path: Path) -> None:
    bot = tmp_path / "broken_bot.py"
    bot.write_text("from cogleague.client import Bot\n\n\nclass Broken(Bot):\n"
                   "    def __init__(self) -> None:\n"
                   "        raise RuntimeError('weights file missing')\n", encoding="utf-8")
    with refused_port() as port:
        proc = subprocess.run([CLI, "agent", "run", f"{bot}:Broken", "--key", "k", "--agent",
                               "a1", "--server", f"http://127.0.0.1:{port}"],
                              capture_output=True, text=True, timeout=30)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2 and "weights file missing" in out, out
    assert "Traceback" not in out and "connecting" not in out, out


async def test_a_server_that_accepts_and_hangs_up_at_once_is_given_up_on() -> None:
    """A socket accepted and closed before any hello (a proxy whose upstream is gone) is no
    server: the agent backs off and gives up as if it could not connect, instead of
    reconnecting 20 times a second for ever."""
    async def hang_up(ws: ServerConnection) -> None:
        await ws.close()

    async with serve(hang_up, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        runner = AgentRunner(Bot, f"http://127.0.0.1:{port}", "key", "a1", reconnect_for_s=1)
        with pytest.raises(ConnectionError) as caught:
            await asyncio.wait_for(runner.run(), 60)
    assert "gave up" in str(caught.value) and "closed" in str(caught.value)
    assert runner.run_state.connects <= 10, runner.run_state.connects


async def test_a_seat_whose_socket_is_closed_before_hello_gives_up() -> None:
    """The same for a table's seat on /ws/play: no hello, no server; it gives up in time."""
    from cogleague.client import play_seat

    async def hang_up(ws: ServerConnection) -> None:
        await ws.close()

    async with serve(hang_up, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        with pytest.raises(ConnectionError):
            await asyncio.wait_for(play_seat(Bot(), f"http://127.0.0.1:{port}", "t1", 0, "k",
                                             reconnect_for_s=1), 10)


async def test_a_refusal_reads_as_the_servers_message() -> None:
    from websockets.asyncio.server import Request, Response
    from websockets.datastructures import Headers

    body = json.dumps({"error": {"code": "unauthorized", "message": "unknown API key"}})

    def refuse(ws: ServerConnection, request: Request) -> Response:
        return Response(401, "Unauthorized", Headers({"Content-Type": "application/json"}),
                        body.encode())

    async with serve(greeter, "127.0.0.1", 0, process_request=refuse) as server:
        port = server.sockets[0].getsockname()[1]
        runner = AgentRunner(Bot, f"http://127.0.0.1:{port}", "key", "a1")
        with pytest.raises(AgentRefused) as caught:
            await asyncio.wait_for(runner.run(), 60)
    assert str(caught.value) == "the server refused agent a1: unknown API key (HTTP 401)"


async def restarting(ws: ServerConnection) -> None:
    """A server that greets the agent, then shuts down as uvicorn does (close code 1012)."""
    await ws.send(json.dumps({"type": "hello", "agent": "a1"}))
    await ws.recv()  # ready
    await ws.close(1012, "")


async def test_a_server_restart_is_said_in_words(caplog: pytest.LogCaptureFixture) -> None:
    """The close a restarting server sends reads "the server is restarting", not the
    websockets library's "received 1012 (service restart); then sent 1012 …"."""
    async with serve(restarting, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        runner = AgentRunner(Bot, f"http://127.0.0.1:{port}", "key", "a1", reconnect_for_s=5)
        task = asyncio.create_task(runner.run())
        for _ in range(3000):
            if task.done() or any("lost the connection" in r.getMessage()
                                  for r in caplog.records):
                break
            await asyncio.sleep(0.01)
        runner.stop.set()
        await task
    said = [r.getMessage() for r in caplog.records if "lost the connection" in r.getMessage()]
    assert said and f"lost the connection to http://127.0.0.1:{port} (the server is " \
        "restarting or shutting down)" in said[0] and "1012" not in said[0], said
