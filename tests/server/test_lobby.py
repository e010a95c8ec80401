"""The HTTP API (protocol.md §2) against the real server: accounts, credits, games, rules,
the table lifecycle and its errors."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from cogleague.client import LobbyClient, LobbyError
from server.support import OPERATOR_KEY, ServerProcess, new_account, operator


async def code_of(coro: object) -> str:
    with pytest.raises(LobbyError) as err:
        await coro  # type: ignore[misc]
    return err.value.code


async def test_accounts_need_the_operator_and_keys_are_checked(
        shared_server: ServerProcess) -> None:
    async with LobbyClient(shared_server.url) as anon:
        assert await code_of(anon.create_account("mallory")) == "unauthorized"
        assert await code_of(anon.wallet()) == "unauthorized"
    async with LobbyClient(shared_server.url, "clk_wrong") as wrong:
        assert await code_of(wrong.wallet()) == "unauthorized"
    aid, key = await new_account(shared_server, credits=50)
    async with LobbyClient(shared_server.url, key) as me:
        assert await code_of(me.create_account("sock-puppet")) == "forbidden"
        assert await code_of(me.grant(aid, 10, "k")) == "forbidden"
        assert (await me.wallet())["balance"] == 50
    async with operator(shared_server) as op:
        first = await op.grant(aid, 25, "bonus-1")
        # A retry after a lost answer (same idempotency key): nothing changes, and it
        # answers as the first attempt did — the grant is in — saying it was a replay.
        again = await op.grant(aid, 25, "bonus-1")
        assert (first["applied"], first["replayed"]) == (True, False)
        assert (again["applied"], again["replayed"]) == (True, True)
        assert again["balance"] == 75
        assert await code_of(op.grant(aid, 26, "bonus-1")) == "bad_request"  # another grant
        assert await code_of(op.grant(aid, 0, "zero")) == "bad_request"
        assert await code_of(op.grant(10**6, 5, "nobody")) == "not_found"
    async with LobbyClient(shared_server.url, key) as me:
        entries = (await me.wallet())["entries"]
        assert [e["kind"] for e in entries] == ["deposit", "deposit"]


async def test_games_rules_protocol_and_schemas_are_served(shared_server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=shared_server.url) as http:
        games = (await http.get("/games")).json()["games"]
        assert {"ledger", "commons", "dilemma", "toy"} <= {g["name"] for g in games}
        md = await http.get("/rules/dilemma")
        assert md.headers["content-type"].startswith("text/markdown")
        assert "cooperate" in md.text
        html = await http.get("/rules/dilemma", headers={"accept": "text/html"})
        assert html.headers["content-type"].startswith("text/html") and "<h1>" in html.text
        assert (await http.get("/rules/nope")).json()["error"]["code"] == "bad_request"
        protocol = await http.get("/protocol")
        assert "table.v1" in protocol.text and "## 7. Notes on this server" in protocol.text
        schema = (await http.get("/protocol/frames.json")).json()
        assert set(schema["server"]) >= {"hello", "your_turn", "event", "error", "snapshot",
                                         "ping", "end"}
        assert (await http.get("/docs")).status_code == 200
        assert "/tables/{table_id}/join" in (await http.get("/openapi.json")).json()["paths"]


async def test_table_creation_refuses_bad_settings_naming_the_field(
        shared_server: ServerProcess) -> None:
    _, key = await new_account(shared_server)
    async with LobbyClient(shared_server.url, key) as me:
        cases = [
            ({"game": "chess"}, "game"),
            ({"game": "dilemma", "variant": "turbo"}, "variant"),
            ({"game": "dilemma", "config": {"rounds_total": 0}}, "rounds_total"),
            ({"game": "dilemma", "config": {"colour": "red"}}, "colour"),
            ({"game": "ledger", "stake": 5}, "stake"),
            ({"game": "dilemma", "stake": 5, "fill_with": "pavlov"}, "fill_with"),
            ({"game": "dilemma", "fill_with": "nobody"}, "fill_with"),
            ({"game": "dilemma", "stake": -1}, "stake"),
        ]
        for body, field in cases:
            with pytest.raises(LobbyError) as err:
                await me.request("POST", "/tables", body)
            assert err.value.code == "bad_request" and field in err.value.message, body


async def test_join_leave_start_and_their_errors(shared_server: ServerProcess) -> None:
    _, creator_key = await new_account(shared_server)
    _, a_key = await new_account(shared_server)
    _, b_key = await new_account(shared_server)
    async with LobbyClient(shared_server.url, creator_key) as creator, \
            LobbyClient(shared_server.url, a_key) as a, LobbyClient(shared_server.url, b_key) as b:
        table = await creator.create_table("toy", config={"seats": 2, "rounds": 1})
        tid = table["id"]
        assert table["state"] == "open" and [s["taken"] for s in table["seats"]] == [False] * 2
        joined = await a.join(tid, "remote", seat=1)
        assert joined["seat"] == 1 and joined["token"].startswith("cls_")
        assert await code_of(a.join(tid, "remote")) == "already_seated"
        assert await code_of(b.join(tid, "remote", seat=1)) == "table_full"
        assert await code_of(b.join(tid, "remote", seat=5)) == "bad_request"
        assert await code_of(b.join(tid, "scripted", baseline="nope")) == "bad_request"
        assert await code_of(b.join(tid, "llm")) == "bad_request"  # a prompt is required
        # the model seats' own limit (4000 code points), refused at the join, not at the start
        assert await code_of(b.join(tid, "llm", prompt="p" * 4001)) == "bad_request"
        assert await code_of(creator.start(tid)) == "wrong_state"  # one seat is empty
        assert await code_of(b.start(tid)) == "forbidden"
        assert await code_of(b.leave(tid)) == "not_found"
        await a.leave(tid)
        llm = await b.join(tid, "llm", prompt="Always name 5.")
        assert llm["note"]  # no provider here: it says how the seat will really play
        await a.join(tid, "scripted", baseline="const4")
        public = await creator.table(tid)
        assert "token" not in str(public) and "llm:" not in str(public)
        await creator.start(tid)
        assert await code_of(a.leave(tid)) == "wrong_state"
        assert await code_of(creator.start(tid)) == "wrong_state"
        for _ in range(600):
            if (await creator.table(tid))["state"] == "finished":
                break
            await asyncio.sleep(0.05)
        results = await creator.results(tid)
        assert results["reason"] == "complete" and results["scores"][1] == 4
        assert await code_of(creator.results((await creator.create_table("toy"))["id"])) == \
            "wrong_state"


async def test_paid_table_holds_and_settles_stakes(shared_server: ServerProcess) -> None:
    _, creator_key = await new_account(shared_server)
    players = [await new_account(shared_server, credits=30) for _ in range(3)]
    poor = await new_account(shared_server, credits=5)
    async with LobbyClient(shared_server.url, creator_key) as creator:
        table = await creator.create_table("dilemma", stake=20, pacing=False,
                                           config={"seats": 3, "rounds_total": 2})
    tid = table["id"]
    async with LobbyClient(shared_server.url, poor[1]) as p:
        assert await code_of(p.join(tid, "scripted", baseline="pavlov")) == "insufficient_funds"
    for (_, key), baseline in zip(players, ["always_defect", "tit_for_tat", "tit_for_tat"],
                                  strict=True):
        async with LobbyClient(shared_server.url, key) as p:
            await p.join(tid, "scripted", baseline=baseline)
            assert (await p.wallet())["balance"] == 10
    async with LobbyClient(shared_server.url, creator_key) as creator:
        await creator.start(tid)
        for _ in range(600):
            if (await creator.table(tid))["state"] == "finished":
                break
            await asyncio.sleep(0.05)
        results = await creator.results(tid)
    paid = [s["payout"] for s in results["seats"]]
    assert sum(paid) + results["rake"] == 60 and results["rake"] == 3  # 5% of the pot
    for (_, key), payout in zip(players, paid, strict=True):
        async with LobbyClient(shared_server.url, key) as p:
            wallet = await p.wallet()
            assert wallet["balance"] == 10 + payout
            assert wallet["entries"][0]["kind"] == "payout" or payout == 0


async def test_an_unstarted_table_times_out_and_refunds(shared_server: ServerProcess) -> None:
    _, creator_key = await new_account(shared_server)
    _, key = await new_account(shared_server, credits=10)
    async with LobbyClient(shared_server.url, creator_key) as creator:
        tid = (await creator.create_table("dilemma", stake=10, start_timeout_s=0.5))["id"]
    async with LobbyClient(shared_server.url, key) as p:
        await p.join(tid, "remote")
        assert (await p.wallet())["balance"] == 0
        for _ in range(100):
            if (await p.table(tid))["state"] == "aborted":
                break
            await asyncio.sleep(0.05)
        assert (await p.table(tid))["reason"] == "aborted"
        wallet = await p.wallet()
        assert wallet["balance"] == 10 and wallet["entries"][0]["kind"] == "refund"


async def test_open_tables_per_account_are_limited(shared_server: ServerProcess) -> None:
    _, key = await new_account(shared_server)
    async with LobbyClient(shared_server.url, key) as me:
        for _ in range(5):  # the shared server allows five
            await me.create_table("toy")
        assert await code_of(me.create_table("toy")) == "rate_limited"
    async with LobbyClient(shared_server.url, OPERATOR_KEY) as op:
        assert len(await op.tables("open")) >= 5
        assert await code_of(op.tables("sideways")) == "bad_request"


async def test_a_refused_stake_names_the_field_and_changes_nothing(
        shared_server: ServerProcess) -> None:
    """Bad stakes are refused at the create naming `stake` and its range; a stake the wallet
    cannot cover is refused at the join, and neither the wallet nor the table changes."""
    _, creator_key = await new_account(shared_server)
    _, poor_key = await new_account(shared_server, credits=19)
    async with LobbyClient(shared_server.url, creator_key) as creator:
        for stake, says in ((-1, "(got -1)"), (10**9 + 1, "(got 1000000001)"),
                            (True, "(got True)"), ("10", "(got '10')"), (1.5, "(got 1.5)")):
            with pytest.raises(LobbyError) as err:
                await creator.request("POST", "/tables", {"game": "dilemma", "stake": stake})
            assert err.value.code == "bad_request", stake
            assert err.value.message == ("stake: must be an integer in 0..1000000000 "
                                         + says), stake
        tid = (await creator.create_table("dilemma", stake=20,
                                          config={"seats": 3}))["id"]
    async with LobbyClient(shared_server.url, poor_key) as poor:
        before = await poor.wallet()
        with pytest.raises(LobbyError) as err:
            await poor.join(tid, "scripted", baseline="pavlov")
        assert err.value.status == 402 and err.value.code == "insufficient_funds"
        assert "stake is 20 credits" in err.value.message and "holds 19" in err.value.message
        assert await poor.wallet() == before
        assert [s["taken"] for s in (await poor.table(tid))["seats"]] == [False] * 3


async def test_an_account_asked_for_without_a_key_is_told_it_needs_the_operator_key(
        shared_server: ServerProcess) -> None:
    """`cogleague account new NAME` without --operator-key: the refusal says what is missing
    (the operator key), not the generic "send a key or sign in" of other requests."""
    async with LobbyClient(shared_server.url) as anon:
        with pytest.raises(LobbyError) as caught:
            await anon.create_account("someone")
    assert caught.value.status == 401
    assert "needs the operator key" in caught.value.message, caught.value.message


def test_an_agent_registered_on_a_server_without_a_season_is_refused(
        shared_server: ServerProcess) -> None:
    """Without `--season` nothing matches agents: a registration was stored and answered
    201, and the agent then waited online for tables that never come."""
    made = httpx.post(f"{shared_server.url}/agents", timeout=10,
                      headers={"authorization": f"Bearer {OPERATOR_KEY}"},
                      json={"name": "waits-for-ever", "games": ["dilemma"]})
    assert made.status_code == 409, made.text
    assert "--season" in made.json()["error"]["message"], made.text
    assert httpx.get(f"{shared_server.url}/agents", timeout=10).json() == {"agents": []}


async def test_the_operator_reads_the_house_rake_in_its_wallet(shared_server: ServerProcess
                                                               ) -> None:
    """A paid table's rake goes to the house account, which has no key: the operator's
    `GET /wallet` showed only its own (empty) wallet, so nobody could read what the house
    took. It now carries the house's statement too."""
    keys = [(await new_account(shared_server, credits=100))[1] for _ in range(3)]
    async with operator(shared_server) as op:
        before = (await op.wallet())["house"]["balance"]
    async with LobbyClient(shared_server.url, keys[0]) as first:
        table = await first.create_table("dilemma", stake=10, auto_start=True, pacing=False,
                                         config={"seats": 3, "rounds_total": 2})
    for key in keys:
        async with LobbyClient(shared_server.url, key) as player:
            await player.join(table["id"], "scripted", baseline="always_defect")
    async with LobbyClient(shared_server.url) as anyone:
        for _ in range(300):
            if (await anyone.table(table["id"]))["state"] == "finished":
                break
            await asyncio.sleep(0.1)
        rake = (await anyone.results(table["id"]))["rake"]
    async with operator(shared_server) as op:
        house = (await op.wallet())["house"]
    assert rake > 0 and house["balance"] == before + rake
    assert house["entries"][0] == {**house["entries"][0], "kind": "rake", "amount": rake,
                                   "table": table["id"]}
    async with LobbyClient(shared_server.url, keys[0]) as player:
        assert "house" not in await player.wallet()


async def test_the_table_list_says_when_it_left_tables_out(tmp_path: Path) -> None:
    """`GET /tables` answers the 500 newest tables: beyond them it dropped the rest without
    a word. `more` says whether older tables were left out, and `limit` how many it lists."""
    server = ServerProcess(f"sqlite:///{tmp_path / 's.db'}", tmp_path / "s.log").start()
    try:
        doc = httpx.get(f"{server.url}/tables", timeout=10).json()
        assert (doc["tables"], doc["more"], doc["limit"]) == ([], False, 500)
        async with operator(server) as op:
            for _ in range(501):
                await op.create_table("dilemma")
        doc = httpx.get(f"{server.url}/tables", timeout=10).json()
        assert (len(doc["tables"]), doc["more"]) == (500, True)
        doc = httpx.get(f"{server.url}/tables?state=finished", timeout=10).json()
        assert (doc["tables"], doc["more"]) == ([], False)
    finally:
        server.stop()
