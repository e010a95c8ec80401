"""A bot whose process restarted takes its seat back: `LobbyClient.reclaim` asks the real server
(`cogleague serve` on loopback) for a fresh token, `join_and_play(..., reclaim=True)` and
`cogleague bot run --reclaim` take back the seat the account holds (or join when it holds
none) and play it to the end, before and after the table started. Without the flag, a second
join is refused with a message that names it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus

from cogleague.client import Bot, LobbyClient, LobbyError, SeatRefused, join_and_play, play_seat
from cogleague.seats.botref import load_bot_class
from server.rawws import next_frame, open_seat
from server.support import ServerProcess, new_account

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BOT = f"{EXAMPLES / 'dilemma_bot.py'}:PromiseKeeper"
COGLEAGUE = [sys.executable, "-c", "from cogleague.cli import main; main()"]
CONFIG = {"rounds_total": 2, "seats": 3, "turn_deadline_ms": 20_000}


def _bot() -> Bot:
    return load_bot_class(BOT, field="bot")()  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    d = tmp_path_factory.mktemp("reclaim")
    live = ServerProcess(f"sqlite:///{d / 'server.db'}", d / "server.log").start()
    yield live
    live.stop()


async def _held_table(server: ServerProcess, *, started: bool) -> tuple[str, str, int]:
    """A table where a fresh account holds seat 1 and lost its token: (table, key, seat)."""
    _, key = await new_account(server)
    async with LobbyClient(server.url, key) as lobby:
        table = await lobby.create_table("dilemma", config=CONFIG, seed=3, pacing=False,
                                         fill_with="always_cooperate")
        joined = await lobby.join(table["id"], "remote", seat=1)  # its token is then lost
        if started:
            await lobby.start(table["id"])
    return table["id"], key, int(joined["seat"])


async def _refused(server: ServerProcess, table: str, seat: int, token: str) -> bool:
    try:
        ws = await open_seat(server.url, table, seat, token)
    except InvalidStatus:
        return True
    await ws.close()
    return False


def test_reclaim_gives_a_fresh_token_and_the_old_one_stops_working(
        server: ServerProcess) -> None:
    async def go() -> None:
        _, key = await new_account(server)
        _, stranger = await new_account(server)
        async with LobbyClient(server.url, key) as lobby:
            tid = (await lobby.create_table("dilemma", config=CONFIG, seed=3, pacing=False,
                                            fill_with="always_cooperate"))["id"]
            old = await lobby.join(tid, "remote", seat=2)
            grant = await lobby.reclaim(tid)
            assert (grant["table"], grant["seat"], grant["alias"], grant["kind"]) == (
                tid, 2, old["alias"], "remote")
            assert grant["token"] and grant["token"] != old["token"]
            assert await _refused(server, tid, 2, old["token"])
            ws = await open_seat(server.url, tid, 2, grant["token"])
            assert (await next_frame(ws, "snapshot"))["type"] == "snapshot"
            await ws.close()
        async with LobbyClient(server.url, stranger) as other:
            with pytest.raises(LobbyError) as caught:
                await other.reclaim(tid)  # it holds no seat there
        assert (caught.value.status, caught.value.code) == (404, "not_found")

    asyncio.run(go())


@pytest.mark.parametrize("started", [False, True])
def test_join_and_play_with_reclaim_takes_the_held_seat_back_and_plays_it(
        server: ServerProcess, started: bool) -> None:
    async def go() -> None:
        tid, key, seat = await _held_table(server, started=started)
        outcome = await join_and_play(_bot(), server.url, key, tid, reclaim=True,
                                      start=not started)
        assert outcome.reason == "complete"
        assert outcome.seat == seat and outcome.turns > 0

    asyncio.run(go())


def test_join_and_play_with_reclaim_joins_when_no_seat_is_held(server: ServerProcess) -> None:
    async def go() -> None:
        _, key = await new_account(server)
        async with LobbyClient(server.url, key) as lobby:
            tid = (await lobby.create_table("dilemma", config=CONFIG, seed=4, pacing=False,
                                            fill_with="always_cooperate"))["id"]
        outcome = await join_and_play(_bot(), server.url, key, tid, reclaim=True,
                                      start=True)
        assert outcome.reason == "complete" and outcome.turns > 0

    asyncio.run(go())


def _bot_run(server: ServerProcess, table: str, key: str, *flags: str
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COGLEAGUE, "bot", "run", BOT, "--server", server.url, "--key", key,
                           "--table", table, *flags],
                          capture_output=True, text=True, timeout=120)


def test_bot_run_reclaim_takes_the_seat_back_after_a_restart(server: ServerProcess) -> None:
    tid, key, seat = asyncio.run(_held_table(server, started=False))
    refused = _bot_run(server, tid, key, "--start")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "already_seated" in refused.stderr and "--reclaim" in refused.stderr, refused.stderr
    done = _bot_run(server, tid, key, "--reclaim", "--start")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"table {tid} ended (complete); seat {seat} " in done.stdout, done.stdout


def test_a_bot_whose_seat_was_taken_back_stops_saying_so(server: ServerProcess) -> None:
    """The old bot (still running when a new one took its seat back with `--reclaim`) stops
    with the server's reason, not a bare "refused (HTTP 401)" after retrying its dead
    token."""
    async def go() -> None:
        _, key = await new_account(server)
        async with LobbyClient(server.url, key) as lobby:
            tid = (await lobby.create_table("dilemma", config=CONFIG, seed=3, pacing=False,
                                            fill_with="always_cooperate"))["id"]
            old = await lobby.join(tid, "remote", seat=0)
            greeted = asyncio.Event()

            def seen(frame: dict[str, object]) -> None:
                if frame.get("type") == "snapshot":
                    greeted.set()

            playing = asyncio.create_task(play_seat(_bot(), server.url, tid, 0, old["token"],
                                                    on_frame=seen))
            await asyncio.wait_for(greeted.wait(), 30)
            await lobby.reclaim(tid)
            with pytest.raises(SeatRefused) as caught:
                await asyncio.wait_for(playing, 30)
        text = str(caught.value)
        assert "taken back with a new token" in text and f"table {tid}" in text, text

    asyncio.run(go())


def test_a_wrong_token_is_refused_with_the_servers_reason(server: ServerProcess) -> None:
    async def go() -> None:
        tid, _, seat = await _held_table(server, started=False)
        with pytest.raises(SeatRefused) as caught:
            await play_seat(_bot(), server.url, tid, seat, "cls_not-the-token")
        text = str(caught.value)
        assert "HTTP 401" in text and "wrong seat or token" in text, text

    asyncio.run(go())
