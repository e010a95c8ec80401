"""Half-open connections: 300 partial HTTP requests held (and re-opened as they are closed)
from one address against a server started with a soft open-files limit of 256, while honest
clients on another address play a table and poll `/healthz`.

The server raises its soft limit to the hard one at start (and logs it), refuses that address
past its connection cap with a 503, and closes each request head that does not arrive within
`header_timeout_s`; every honest `/healthz` is answered 200, many of them while the attacker
holds most of its heads, and the honest table ends with the results of a headless run. (How
fast honest clients are answered meanwhile is a benchmark's figure:
`benchmarks/abuse_availability.py`, scenario ``half_open``.)
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server.support import ServerProcess, play_headless, play_table

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from dilemma_bot import PromiseKeeper

ATTACKER = "127.0.0.2"  # loopback too, but another client address than the honest 127.0.0.1
HALF_OPEN = 300
HOLD_S = 8.0


@pytest.fixture
def low_limit_server(tmp_path: Path) -> Iterator[ServerProcess]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2 * HALF_OPEN:
        pytest.skip(f"the hard open-files limit ({hard}) is below what this test needs")
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))  # the child inherits it
    try:
        server = ServerProcess(f"sqlite:///{tmp_path / 'half.db'}", tmp_path / "server.log",
                               header_timeout_s=2.0)
        server.start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    yield server
    server.stop()


async def _attack(port: int, stop: asyncio.Event, counts: dict[str, int]) -> None:
    """Keep `HALF_OPEN` request heads open; each one the server closes is opened again."""
    async def one() -> None:
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                               local_addr=(ATTACKER, 0))
            except OSError:
                counts["connect_failed"] += 1
                await asyncio.sleep(0.1)
                continue
            counts["opened"] += 1
            counts["held"] += 1
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            with contextlib.suppress(Exception):
                await writer.drain()
            waiting = asyncio.create_task(reader.read(4096))
            stopping = asyncio.create_task(stop.wait())
            done, _ = await asyncio.wait({waiting, stopping},
                                         return_when=asyncio.FIRST_COMPLETED)
            counts["held"] -= 1
            if waiting in done:
                data = waiting.result() if not waiting.exception() else b""
                refused = data.startswith(b"HTTP/1.1 503")
                counts["refused_503" if refused else "closed"] += 1
                await asyncio.sleep(0.5 if refused else 0.05)  # then at it again
            else:
                waiting.cancel()
            stopping.cancel()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    await asyncio.gather(*(one() for _ in range(HALF_OPEN)))


async def _health(url: str, stop: asyncio.Event, counts: dict[str, int], held: list[int],
                  failures: list[str]) -> None:
    """Poll `/healthz` until `stop`; each answer records how many heads the attacker held as
    it came (`held`), each failure what it was."""
    async with httpx.AsyncClient(timeout=5.0) as client:
        while not stop.is_set():
            try:
                r = await client.get(f"{url}/healthz")
                if r.status_code != 200:
                    failures.append(str(r.status_code))
                else:
                    held.append(counts["held"])
            except httpx.HTTPError as exc:
                failures.append(type(exc).__name__)
            await asyncio.sleep(0.05)


async def test_half_open_requests_do_not_starve_honest_clients(
        low_limit_server: ServerProcess) -> None:
    server = low_limit_server
    log = server.log_path.read_text()
    assert "open files limit raised from 256" in log, log[-2000:]
    stop = asyncio.Event()
    counts = {"opened": 0, "held": 0, "closed": 0, "refused_503": 0, "connect_failed": 0}
    held: list[int] = []  # per honest answer: the heads the attacker held as it came
    failures: list[str] = []
    attack = asyncio.create_task(_attack(server.port, stop, counts))
    await asyncio.sleep(1.0)  # the attacker holds its connections
    health = asyncio.create_task(_health(server.url, stop, counts, held, failures))
    lineup = [PromiseKeeper(), "tit_for_tat", PromiseKeeper(), "always_defect"]
    config = {"rounds_total": 10}
    played = await play_table(server, "dilemma", lineup, seed=11, config=config)
    elapsed = 0.0
    t0 = time.monotonic()
    while elapsed < HOLD_S:  # keep the pressure on past the header timeout
        await asyncio.sleep(0.5)
        elapsed = time.monotonic() - t0
    stop.set()
    await asyncio.wait_for(asyncio.gather(attack, health), 30)
    headless = await play_headless("dilemma", [PromiseKeeper(), "tit_for_tat", PromiseKeeper(),
                                               "always_defect"], seed=11, config=config)
    assert {k: v for k, v in played.results.items() if k != "generated_at"} == \
        {k: v for k, v in headless.items() if k != "generated_at"}
    assert not failures, failures[:10]  # every honest request answered 200
    under_attack = [h for h in held if h >= HALF_OPEN // 2]
    assert len(under_attack) >= 10, (counts, held)  # answered while the heads were held
    assert counts["refused_503"] > 0  # past the per-address cap
    assert counts["closed"] > 0  # heads that did not arrive in time
    assert server.alive()
    assert "Traceback" not in server.log_path.read_text()
