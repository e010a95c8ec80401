"""WebSocket play against the real server on loopback: auth, errors, limits, reconnection."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from cogleague.client import Bot, LobbyClient, TurnInfo, play_seat
from server.rawws import next_frame, open_seat, send
from server.support import Recorder, ServerProcess, attached, new_account, operator


class Constant(Bot):
    def __init__(self, n: int) -> None:
        self.n = n

    def on_turn(self, turn: TurnInfo) -> Any:
        return {"n": self.n}


async def toy_table(server: ServerProcess, seats: int = 2, rounds: int = 2,
                    timeout_s: float = 5.0) -> tuple[str, str, list[dict[str, Any]]]:
    """An open toy table with every seat joined as remote: (id, creator key, joins)."""
    _, creator = await new_account(server)
    async with LobbyClient(server.url, creator) as lobby:
        table = await lobby.create_table("toy", config={"seats": seats, "rounds": rounds,
                                                        "timeout_s": timeout_s})
    joins = []
    for seat in range(seats):
        _, key = await new_account(server)
        async with LobbyClient(server.url, key) as lobby:
            joins.append(await lobby.join(table["id"], "remote", seat=seat,
                                          name=f"toy-policy-{seat}"))
    return table["id"], creator, joins


async def start(server: ServerProcess, tid: str, key: str) -> None:
    async with LobbyClient(server.url, key) as lobby:
        await lobby.start(tid)


async def results(server: ServerProcess, tid: str) -> dict[str, Any]:
    async with LobbyClient(server.url) as lobby:
        return await lobby.results(tid)


async def test_sdk_bots_play_a_toy_table_to_the_end(shared_server: ServerProcess) -> None:
    tid, creator, joins = await toy_table(shared_server, seats=3, rounds=4)
    recs = [Recorder() for _ in joins]
    tasks = [asyncio.create_task(play_seat(Constant(i + 2), shared_server.url, tid, i,
                                           j["token"], on_frame=recs[i]))
             for i, j in enumerate(joins)]
    await attached(recs)
    await start(shared_server, tid, creator)
    outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 30)
    assert [o.reason for o in outcomes] == ["complete"] * 3
    assert [o.results["scores"] for o in outcomes] == [8, 12, 16]  # own score only
    assert (await results(shared_server, tid))["scores"] == [8, 12, 16]
    for rec in recs:
        kinds = [f["type"] for f in rec.frames]
        assert kinds[0] == "hello" and kinds[-1] == "end" and kinds.count("your_turn") == 4
        seqs = [f["seq"] for f in rec.frames if f["type"] == "event"]
        assert seqs == list(range(1, len(seqs) + 1))


async def test_a_wrong_token_is_refused_at_the_upgrade(shared_server: ServerProcess) -> None:
    tid, _, joins = await toy_table(shared_server)
    other_tid, _, other_joins = await toy_table(shared_server)
    attempts = [
        (tid, 0, "cls_not-a-token"),
        (tid, 0, ""),
        (tid, 1, joins[0]["token"]),  # seat 0's token cannot act for seat 1
        (other_tid, 0, joins[0]["token"]),  # nor at another table
        (tid, 0, other_joins[0]["token"]),
        ("t_missing", 0, joins[0]["token"]),
    ]
    for table, seat, token in attempts:
        with pytest.raises(InvalidStatus) as refused:
            ws = await open_seat(shared_server.url, table, seat, token)
            await ws.close()
        assert refused.value.response.status_code in (401, 404)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    hello = await next_frame(ws, "hello")
    assert (hello["seat"], hello["alias"], hello["protocol"]) == (0, joins[0]["alias"],
                                                                   "table.v1")
    await ws.close()


async def test_malformed_input_gets_error_frames_and_nothing_is_lost(
        shared_server: ServerProcess) -> None:
    tid, creator, joins = await toy_table(shared_server, seats=2, rounds=2, timeout_s=20)
    # A second table plays to its end meanwhile: one seat's garbage harms no one else.
    tid2, creator2, joins2 = await toy_table(shared_server, seats=2, rounds=3)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await next_frame(ws, "snapshot")
    helper = asyncio.create_task(play_seat(Constant(1), shared_server.url, tid, 1,
                                           joins[1]["token"]))
    others = [asyncio.create_task(play_seat(Constant(5), shared_server.url, tid2, i, j["token"]))
              for i, j in enumerate(joins2)]

    async def expect(doc: Any, code: str) -> dict[str, Any]:
        await send(ws, doc)
        frame = await next_frame(ws, "error")
        assert frame["code"] == code, frame
        return frame

    await expect("{not json", "bad_frame")
    await expect("[1, 2]", "bad_frame")
    await expect({"type": "dance"}, "bad_frame")
    await expect({"type": "move", "turn_id": 7}, "bad_frame")
    await expect({"type": "resume", "last_seq": "x"}, "bad_frame")
    await expect("x" * (1024 * 1024), "too_large")
    await expect({"type": "move", "turn_id": "r0s0p0", "n": 1}, "not_your_turn")
    await asyncio.sleep(0.1)
    await start(shared_server, tid, creator)
    await start(shared_server, tid2, creator2)
    turn = await next_frame(ws, "your_turn")
    await expect({"type": "move", "turn_id": "r9s0p0", "n": 1}, "unknown_turn")
    bad = await expect({"type": "move", "turn_id": turn["turn_id"], "n": "four"},
                       "illegal_action")
    assert bad["turn_id"] == turn["turn_id"]
    await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 4})  # corrected in time
    ack = await next_frame(ws, "ack")
    await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 9})  # a replay: same ack
    skipped: list[dict[str, Any]] = []
    assert await next_frame(ws, "ack", seen=skipped) == ack
    # the other seat may have moved meanwhile: the next turn can come before the replay's ack
    early = [f for f in skipped if f["type"] == "your_turn"]
    turn2 = early[0] if early else await next_frame(ws, "your_turn")
    await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 9})
    assert (await next_frame(ws, "ack"))["turn_id"] == turn["turn_id"]
    await send(ws, {"type": "move", "turn_id": turn2["turn_id"], "n": 2})
    await next_frame(ws, "ack")
    end = await next_frame(ws, "end")
    assert end["results"]["scores"] == 6  # 4 + 2: the refused and replayed moves changed nothing
    await asyncio.wait_for(asyncio.gather(helper, *others), 30)
    assert (await results(shared_server, tid))["scores"] == [6, 2]
    assert (await results(shared_server, tid2))["scores"] == [15, 15]


async def test_a_late_move_gets_too_late(shared_server: ServerProcess) -> None:
    # ten rounds of 0.3 s: the late move reaches the server while the table still runs (with
    # two, a loaded machine could let the second turn run out first and the table end)
    tid, creator, joins = await toy_table(shared_server, seats=1, rounds=10, timeout_s=0.3)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await next_frame(ws, "snapshot")
    await start(shared_server, tid, creator)
    turn = await next_frame(ws, "your_turn")
    assert turn["deadline_ms"] <= 300
    await next_frame(ws, "your_turn")  # the first turn ran out (no sleeping on our side)
    await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 9})
    late = await next_frame(ws, "error")
    assert (late["code"], late["turn_id"]) == ("too_late", turn["turn_id"])
    end = await next_frame(ws, "end")  # the other turns run out too
    assert end["results"]["scores"] == 0  # timeouts scored the game's fallback, 0


async def test_a_flood_of_frames_is_rate_limited(shared_server: ServerProcess) -> None:
    tid, _, joins = await toy_table(shared_server, seats=1)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await next_frame(ws, "snapshot")
    for _ in range(400):
        await send(ws, {"type": "move", "turn_id": "x", "n": 1})
    codes = [(await next_frame(ws, "error"))["code"] for _ in range(400)]
    assert codes.count("rate_limited") >= 50 and "not_your_turn" in codes
    await asyncio.sleep(0.1)  # the bucket refills; the socket was never closed
    await send(ws, {"type": "ping"})
    assert (await next_frame(ws, "pong"))["table"] == tid


async def test_reconnect_resumes_events_and_the_pending_turn(
        shared_server: ServerProcess) -> None:
    tid, creator, joins = await toy_table(shared_server, seats=2, rounds=3, timeout_s=20)
    helper = asyncio.create_task(play_seat(Constant(1), shared_server.url, tid, 1,
                                           joins[1]["token"]))
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await next_frame(ws, "snapshot")
    await start(shared_server, tid, creator)
    seen: list[dict[str, Any]] = []
    turn = await next_frame(ws, "your_turn", seen=seen)
    await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 7})
    await next_frame(ws, "ack", seen=seen)
    turn = await next_frame(ws, "your_turn", seen=seen)
    await ws.close()  # gone mid-turn, without answering
    last = max(f["seq"] for f in seen if f["type"] == "event")
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"], last_seq=last - 2)
    replay: list[dict[str, Any]] = []
    snap = await next_frame(ws, "snapshot", seen=replay)
    assert replay[0]["type"] == "hello"
    assert [f["seq"] for f in replay if f["type"] == "event"] == [last - 1, last]
    assert snap["your_turn"]["turn_id"] == turn["turn_id"]
    assert snap["visible_state"] == turn["visible_state"]
    await send(ws, {"type": "resume", "last_seq": 0})  # the whole stream again, same bytes
    again = [await next_frame(ws, "event") for _ in range(last)]
    assert again == [f for f in seen if f["type"] == "event"]
    for _ in range(2):
        await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 7})
        await next_frame(ws, "ack")
        turn = await next_frame(ws, "your_turn") if _ == 0 else turn
    end = await next_frame(ws, "end")
    assert end["results"]["scores"] == 21
    await helper


async def test_the_newest_socket_wins(shared_server: ServerProcess) -> None:
    tid, _, joins = await toy_table(shared_server, seats=1)
    first = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await next_frame(first, "snapshot")
    second = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await next_frame(second, "snapshot")
    with pytest.raises(ConnectionClosed) as closed:
        while (await next_frame(first))["type"] == "ping":  # the server's keep-alive (0.5 s
            pass  # on the shared server) may come before the close
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
    await send(second, {"type": "ping"})
    assert (await next_frame(second, "pong"))["type"] == "pong"


async def test_spectators_see_public_events_only_and_cannot_move(
        shared_server: ServerProcess) -> None:
    from websockets.asyncio.client import connect

    tid, creator, joins = await toy_table(shared_server, seats=2, rounds=2)
    watch = await connect(shared_server.url.replace("http", "ws") + f"/ws/watch?table={tid}",
                          proxy=None)
    hello = await next_frame(watch, "hello")
    assert hello["seat"] is None
    await send(watch, {"type": "move", "turn_id": "r0s0p0", "n": 9})
    assert (await next_frame(watch, "error"))["code"] == "not_your_turn"
    tasks = [asyncio.create_task(play_seat(Constant(3), shared_server.url, tid, i, j["token"]))
             for i, j in enumerate(joins)]
    await asyncio.sleep(0.1)
    await start(shared_server, tid, creator)
    frames: list[dict[str, Any]] = []
    end = await next_frame(watch, "end", seen=frames)
    await asyncio.gather(*tasks)
    events = [f for f in frames if f["type"] == "event"]
    assert {e["event"] for e in events} == {"start", "round", "tally", "end"}
    text = json.dumps(frames)
    assert "memo-of-" not in text and "note-of-" not in text and "cls_" not in text
    assert end["results"]["scores"] == [6, 6]


async def test_seat_frames_carry_no_foreign_secrets(shared_server: ServerProcess) -> None:
    tid, creator, joins = await toy_table(shared_server, seats=3, rounds=2)
    recs = [Recorder() for _ in joins]
    tasks = [asyncio.create_task(play_seat(Constant(i), shared_server.url, tid, i, j["token"],
                                           on_frame=recs[i])) for i, j in enumerate(joins)]
    await attached(recs)
    await start(shared_server, tid, creator)
    await asyncio.gather(*tasks)
    for seat, rec in enumerate(recs):
        text = rec.text()
        assert f"note-of-{seat}" in text and f"memo-of-{seat}" in text  # its own, yes
        for other in set(range(3)) - {seat}:
            assert f"note-of-{other}" not in text and f"memo-of-{other}" not in text
            assert joins[other]["token"] not in text
        assert joins[seat]["token"] not in text  # the server never echoes tokens
        assert "toy-policy-" not in text  # no policy name, not even its own


async def test_operator_abort_ends_a_running_table(shared_server: ServerProcess) -> None:
    tid, creator, joins = await toy_table(shared_server, seats=1, rounds=50, timeout_s=20)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await start(shared_server, tid, creator)
    await next_frame(ws, "your_turn")
    async with operator(shared_server) as op:
        doc = await op.abort(tid, "testing")
    assert (doc["state"], doc["reason"]) == ("aborted", "aborted")
    end = await next_frame(ws, "end")
    assert end["reason"] == "aborted"
    assert (await results(shared_server, tid))["reason"] == "aborted"


async def test_the_server_pings_and_accepts_pongs(shared_server: ServerProcess) -> None:
    tid, _, joins = await toy_table(shared_server, seats=1)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await next_frame(ws, "snapshot")
    for _ in range(2):  # the shared server pings every 0.5 s
        ping = await next_frame(ws, "ping", timeout=60)
        assert ping["table"] == tid
        await send(ws, {"type": "pong"})
    await send(ws, {"type": "ping"})
    assert (await next_frame(ws, "pong"))["seq"] == ping["seq"]


async def test_a_reconnect_snapshot_says_the_time_left_on_the_pending_turn(
        shared_server: ServerProcess) -> None:
    """A seat that reconnects mid-turn gets the pending `your_turn` in its snapshot: its
    `deadline_ms` is the time left now (what `deadline_at` says), not the full turn time
    sent when the turn was asked — a bot budgeting by it would answer too late."""
    tid, creator, joins = await toy_table(shared_server, seats=1, rounds=1, timeout_s=20)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await next_frame(ws, "snapshot")
    await start(shared_server, tid, creator)
    turn = await next_frame(ws, "your_turn")
    assert turn["deadline_ms"] > 19_000
    await ws.close()
    await asyncio.sleep(1.5)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    snap = await next_frame(ws, "snapshot")
    pending = snap["your_turn"]
    assert pending["turn_id"] == turn["turn_id"]
    assert pending["deadline_at"] == turn["deadline_at"]
    assert 0 < pending["deadline_ms"] <= turn["deadline_ms"] - 1_400, pending
    await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 1})
    await next_frame(ws, "ack")
    await next_frame(ws, "end")


@pytest.mark.parametrize("doc", [
    {"type": "Z" * 60_000},
    {"type": "resume", "last_seq": 0, "K" * 60_000: 1},
    {"type": "resume", "last_seq": "Z" * 60_000},
])
async def test_a_bad_frame_is_not_echoed_back(shared_server: ServerProcess,
                                              doc: dict[str, Any]) -> None:
    """A frame just under the size limit with an unknown `type` (or an unknown field, or a
    wrong value) is refused naming the field and what it accepts, with at most a short
    excerpt of what was sent: a client cannot make the server write its text back."""
    tid, _, joins = await toy_table(shared_server, seats=1)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await next_frame(ws, "snapshot")
    await send(ws, doc)
    frame = await next_frame(ws, "error")
    assert frame["code"] == "bad_frame"
    assert len(frame["message"]) < 300, len(frame["message"])
    if "type" in frame["message"]:
        assert "move, resume, pong, ping" in frame["message"]
    await send(ws, {"type": "ping"})  # the socket stays open
    assert (await next_frame(ws, "pong"))["table"] == tid


@pytest.mark.parametrize("seat", ["99999999999999999999999", "-99999999999999999999999",
                                  "9223372036854775808"])
async def test_a_seat_number_out_of_range_is_refused_like_a_wrong_seat(
        shared_server: ServerProcess, seat: str) -> None:
    """A seat number no database integer holds is a wrong seat (401), not a server error."""
    tid, _, joins = await toy_table(shared_server, seats=1)
    url = shared_server.url.replace("http://", "ws://") + (
        f"/ws/play?table={tid}&seat={seat}&token={joins[0]['token']}")
    from websockets.asyncio.client import connect

    with pytest.raises(InvalidStatus) as refused:
        ws = await connect(url, proxy=None)
        await ws.close()
    assert refused.value.response.status_code == 401


async def long_table(server: ServerProcess) -> tuple[str, str, Any]:
    """A one-seat toy table 300 rounds in whose seat then stops answering (it keeps running):
    (table id, the seat's token, the seat's socket)."""
    _, creator = await new_account(server)
    async with LobbyClient(server.url, creator) as lobby:
        tid = (await lobby.create_table("toy", pacing=False, config={
            "seats": 1, "rounds": 400, "timeout_s": 20}))["id"]
        joined = await lobby.join(tid, "remote")
    ws = await open_seat(server.url, tid, 0, joined["token"])
    await next_frame(ws, "snapshot")
    await start(server, tid, creator)
    for _ in range(300):
        turn = await next_frame(ws, "your_turn")
        while True:  # within the frame rate
            await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 1})
            reply = await next_frame(ws)
            while reply["type"] not in ("ack", "error"):
                reply = await next_frame(ws)
            if reply["type"] == "ack":
                break
            await asyncio.sleep(0.05)
    await next_frame(ws, "your_turn")
    return tid, joined["token"], ws


async def resent_until_pong(ws: Any, last_seq: int) -> list[dict[str, Any]]:
    """The frames a `resume` from `last_seq` brings (a ping marks their end). The server's own
    keep-alive `ping`s (every `ping_interval_s`, 0.5 s on the shared server) are no part of
    the answer: one lands among it whenever the round trip spans a tick of that clock."""
    await send(ws, {"type": "resume", "last_seq": last_seq})
    await send(ws, {"type": "ping"})
    resent: list[dict[str, Any]] = []
    await next_frame(ws, "pong", seen=resent)
    return [f for f in resent if f["type"] != "ping"]


async def test_a_spectators_resume_replays_no_more_than_a_late_joiner_gets(
        shared_server: ServerProcess) -> None:
    """A spectator (anonymous) joining late gets the last 500 events, not a long table's
    whole history; a `resume` from 0 must not get round that: each 30-byte frame would make
    the server send the whole stream again, a hundred times a second."""
    from websockets.asyncio.client import connect

    from cogleague.server.play import WATCH_TAIL

    tid, _, _ = await long_table(shared_server)
    watch = await connect(shared_server.url.replace("http", "ws") + f"/ws/watch?table={tid}",
                          proxy=None, max_size=None)
    seen: list[dict[str, Any]] = []
    snap = await next_frame(watch, "snapshot", seen=seen)
    now = snap["seq"]
    assert now > WATCH_TAIL + 100
    assert len([f for f in seen if f["type"] == "event"]) == WATCH_TAIL
    resent = await resent_until_pong(watch, 0)
    events = [f["seq"] for f in resent if f["type"] == "event"]
    assert events == list(range(now - WATCH_TAIL + 1, now + 1)), (len(events), now)
    await watch.close()
    async with operator(shared_server) as op:
        await op.abort(tid, "done")


async def test_a_seats_resume_is_bounded_and_a_reconnect_still_gets_everything(
        shared_server: ServerProcess) -> None:
    """A seat's `resume` from 0 resent its whole stream (here 600 events and more), as often
    as the frame rate allowed: now the last 500 and a snapshot for the older ones, a few
    times, then `rate_limited` naming the limit. A reconnect with `last_seq` still gets every
    event after it, and its pending turn."""
    from cogleague.server.play import RESUME_BURST, WATCH_TAIL

    tid, token, ws = await long_table(shared_server)
    await asyncio.sleep(2.5)  # the frame-rate bucket the 300 moves spent refills
    await send(ws, {"type": "ping"})
    now = (await next_frame(ws, "pong"))["seq"]
    assert now > WATCH_TAIL + 100
    resent = await resent_until_pong(ws, 0)
    events = [f["seq"] for f in resent if f["type"] == "event"]
    assert events == list(range(now - WATCH_TAIL + 1, now + 1)), (len(events), now)
    assert resent[-2]["type"] == "snapshot" and resent[-2]["your_turn"] is not None
    near = await resent_until_pong(ws, now - 3)  # a short gap: those events, no snapshot
    assert [f["type"] for f in near] == ["event"] * 3 + ["pong"], near
    for _ in range(RESUME_BURST - 2):
        await resent_until_pong(ws, now)
    refused = [f for f in await resent_until_pong(ws, 0) if f["type"] != "pong"]
    assert [f["type"] for f in refused] == ["error"], refused
    assert refused[0]["code"] == "rate_limited", refused
    assert f"at most {RESUME_BURST} resumes" in refused[0]["message"], refused
    await ws.close()
    ws = await open_seat(shared_server.url, tid, 0, token, last_seq=0)
    replay: list[dict[str, Any]] = []
    snap = await next_frame(ws, "snapshot", seen=replay)
    assert [f["seq"] for f in replay if f["type"] == "event"] == list(range(1, now + 1))
    assert snap["your_turn"] is not None
    await ws.close()
    async with operator(shared_server) as op:
        await op.abort(tid, "done")


async def test_a_seat_is_told_why_its_table_was_aborted_live_as_on_reconnect(
        shared_server: ServerProcess) -> None:
    """The `end` of an aborted table carries the abort's `detail` (an operator's words, a
    start timeout, a seat that could not be made) to the seats connected at the time, as it
    does to a seat connecting afterwards: the same frame either way."""
    tid, creator, joins = await toy_table(shared_server, seats=1, rounds=50, timeout_s=20)
    ws = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    await start(shared_server, tid, creator)
    await next_frame(ws, "your_turn")
    async with operator(shared_server) as op:
        await op.abort(tid, "the hall closes")
    live = await next_frame(ws, "end")
    late = await open_seat(shared_server.url, tid, 0, joins[0]["token"])
    after = await next_frame(late, "end")
    assert live["results"]["detail"] == "the hall closes"
    assert (live["reason"], live["results"]) == (after["reason"], after["results"])
