"""A standing season on a real server (uvicorn on loopback, SQLite file) over the three games:
four remote SDK bots on `/ws/agent`, three policy files, two model agents against the local
provider test server and nine baselines (five of them Ledger's, which seats eight) are
matched, rated after every table and shown on the board, through the final evaluation to the
frozen end; the board's batch refit is what the offline league ranks from the same store."""

from __future__ import annotations

import asyncio
import json
import statistics
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.client.agent import run_agent
from cogleague.client.lobby import LobbyError
from helpers.provider_server import ProviderServer, Reply
from season.bots import Either
from season.season import (
    account,
    constant_policy,
    file_b64,
    matchmaking_held,
    query,
    register,
    season_file,
    standings,
    wait_for,
)
from server.support import OPERATOR_KEY


def played_in(db: str, agent: str, game: str) -> int:
    """Finished season tables of `game` that `agent` sat at."""
    return int(query(db, "SELECT COUNT(*) FROM season_seats ss JOIN agents a ON a.id = "
                         "ss.agent_id JOIN season_tables st ON st.table_id = ss.table_id JOIN "
                         "tables t ON t.id = ss.table_id WHERE a.name = :a AND st.game = :g "
                         "AND t.state = 'finished'", a=agent, g=game)[0][0])


async def test_a_season_of_twelve_agents(make_server: Any, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    db = f"sqlite:///{tmp_path / 'league.db'}"
    files = tmp_path / "files"
    files.mkdir()
    coop = constant_policy(files / "coop.npz", "dilemma", 0)
    defect = constant_policy(files / "defect.npz", "dilemma", 1)
    ledger = constant_policy(files / "ledger.npz", "ledger", 0)
    with ProviderServer(lambda _r: Reply('{"action": "cooperate"}')) as provider:
        # fill_after_s longer than the season: the matchmaker's fair-share wait is never
        # lifted, so the per-game bound checked below is the rule's (the lifted wait, which
        # lets a game stuck that long seat its free entrants past a busy least-played one, is
        # the 300-table season's, `test_season_full.py`)
        config = season_file(tmp_path, tables=30, held_out=("r4",), ledger=True,
                             fill_after_s=3600.0)
        server = make_server(db, season=str(config),
                             policy_dir=str(tmp_path / "hosted"), model_provider="openai",
                             model_name="m", model_base_url=provider.openai_url,
                             ping_interval_s=1.0)
        url = server.url
        # every entrant starts together, once the remote agents are online: the fair-share
        # checks below measure the matchmaker, not the order of the test's requests
        with matchmaking_held(db):
            keys = {n: await account(url, OPERATOR_KEY, n)
                    for n in ("alice", "bob", "carol", "dave", "erin")}
            both = ["dilemma", "commons", "ledger"]
            remote = {"r1": "alice", "r2": "bob", "r3": "carol", "r4": "alice"}
            for name, owner in remote.items():
                await register(url, keys[owner], name=name, games=both, cap=2)
            await register(url, keys["dave"], name="p-coop", kind="policy", games=["dilemma"],
                           policy_file=file_b64(coop), cap=2)
            await register(url, keys["dave"], name="p-defect", kind="policy", games=["dilemma"],
                           policy_file=file_b64(defect), cap=2)
            await register(url, keys["dave"], name="p-ledger", kind="policy", games=["ledger"],
                           policy_file=file_b64(ledger), cap=2)
            await register(url, keys["erin"], name="m-fair", kind="model", games=["dilemma"],
                           prompt="Cooperate while the others do.", model="m", cap=2)
            await register(url, keys["erin"], name="m-tiny", kind="model", games=["dilemma"],
                           prompt="Cooperate.", model="m", token_budget=50)

            # bad input: a 400 naming the field and what is allowed, and nothing stored
            refusals = [({"name": "x1", "games": ["chess"]}, "games[0] must be one of dilemma, "
                                                              "commons, ledger (got 'chess')"),
                        ({"name": "x2", "games": ["dilemma"], "cap": 0}, "cap"),
                        ({"name": "x3", "games": ["dilemma"], "kind": "model", "model": "m"},
                         "prompt must be a text of 1..4000 characters"),
                        ({"name": "x4", "games": ["dilemma"], "kind": "model", "prompt": "p",
                          "model": "gpt-9"}, "model must be one of m (got 'gpt-9')"),
                        ({"name": "x5", "games": ["dilemma"], "kind": "policy",
                          "policy_file": file_b64(ledger)}, "policy_file: "),
                        ({"name": "x6", "games": ["dilemma"], "prompt": "p"},
                         "prompt: a remote agent does not take it")]
            for body, message in refusals:
                with pytest.raises(LobbyError) as caught:
                    await register(url, keys["bob"], **body)
                assert caught.value.status == 400 and message in caught.value.message, body
            with pytest.raises(LobbyError) as caught:
                await register(url, keys["bob"], name="r1", games=both)
            assert caught.value.status == 409 and "taken" in caught.value.message
            with pytest.raises(LobbyError) as caught:
                await register(url, keys["bob"], name="b", kind="baseline", games=["dilemma"],
                               baseline="tit_for_tat")
            assert caught.value.status == 403

            pushes: list[dict[str, Any]] = []

            async def watch() -> None:
                ws_url = url.replace("http://", "ws://") + "/ws/leagues/ci-season"
                async with websockets.connect(ws_url, proxy=None, max_size=2**24) as ws:
                    async for raw in ws:
                        pushes.append(json.loads(raw)["standings"])

            watcher = asyncio.create_task(watch())
            stop = asyncio.Event()
            runners = [asyncio.create_task(run_agent(Either, url, keys[owner], name, stop=stop))
                       for name, owner in remote.items()]
            await wait_for(lambda: sum(a["online"] for k in {keys[o] for o in remote.values()}
                                       for a in httpx.get(f"{url}/agents?mine=true", timeout=10,
                                                          headers={"Authorization": f"Bearer {k}"}
                                                          ).json()["agents"]) == 4,
                           30, "the remote agents")  # r4 is held out: only its owner lists it
        try:
            await wait_for(lambda: standings(url)["phase"] == "ended", 240, "the season's end",
                           every_s=1.0)
        finally:
            stop.set()
            runs = await asyncio.gather(*runners)
            failed = watcher.done() and not watcher.cancelled() and watcher.exception()
            watcher.cancel()
        board = standings(url)
        agents = httpx.get(f"{url}/agents", timeout=10).json()["agents"]

    assert not [f for r in runs for f in r.failures]
    assert sum(len(r.finished) for r in runs) > 0
    assert board["frozen"] and board["phase"] == "ended" and board["tables_made"] == 30
    tables = query(db, "SELECT st.table_id, st.phase, st.rated, st.outcome, t.state "
                       "FROM season_tables st JOIN tables t ON t.id = st.table_id")
    assert all(t.state == "finished" and t.rated for t in tables), tables
    final = [t for t in tables if t.phase == "final"]
    assert final and len(tables) == 30 + len(final)
    # rated once per table: one history row per agent seated at each rated table
    per_table = query(db, "SELECT table_id, COUNT(*) FROM rating_history GROUP BY table_id")
    seated = dict(query(db, "SELECT table_id, COUNT(DISTINCT agent_id) FROM season_seats "
                            "GROUP BY table_id"))
    assert {t: n for t, n in per_table} == {t.table_id: seated[t.table_id] for t in tables
                                            if t.outcome == "rated"}
    # the collusion guard: no account meets itself at a table (baselines are the operator's)
    rows = query(db, "SELECT ss.table_id, a.account_id, a.kind FROM season_seats ss "
                     "JOIN agents a ON a.id = ss.agent_id")
    owners: dict[str, list[int]] = {}
    for r in rows:
        if r.kind != "baseline":
            owners.setdefault(r.table_id, []).append(r.account_id)
    assert all(len(v) == len(set(v)) for v in owners.values())
    # a cap is tables at once across the games: no tick seats an agent past it (the tables
    # one tick forms share its time)
    per_tick = query(db, "SELECT a.name, a.cap, COUNT(*) FROM season_seats ss JOIN agents a "
                         "ON a.id = ss.agent_id WHERE a.kind != 'baseline' "
                         "GROUP BY a.name, a.cap, ss.created_at")
    assert per_tick and all(n <= cap for _, cap, n in per_tick), per_tick
    # fair share among agents with the same games and cap, game by game and in all
    per_game = {(g, n): int(c) for g, n, c in query(
        db, "SELECT st.game, a.name, COUNT(*) FROM season_seats ss JOIN agents a ON a.id = "
            "ss.agent_id JOIN season_tables st ON st.table_id = ss.table_id WHERE "
            "st.phase = 'rated' GROUP BY st.game, a.name")}
    played = {n: sum(per_game.get((g, n), 0) for g in both) for n in remote}
    # the matchmaker seats an entrant only while its count in the game is at most one above
    # the least-played ready entrant's (busy ones included; all four are ready from the first
    # tick on), so after any table max - min <= 2 per game, whatever the timing; in all, ±15 %
    # of a fair share, but never less than one table per game — in this short season
    # (≈ 11 tables each) one table is 9 % (`benchmarks/season.py --full` runs 300 tables:
    # within 2 %)
    for game in both:
        counts = [per_game.get((game, n), 0) for n in remote]
        assert max(counts) - min(counts) <= 2, (game, counts)
    mean = statistics.mean(played.values())
    slack = max(0.15 * mean, len(both))
    assert all(abs(played[n] - mean) <= slack for n in remote), json.dumps(played)
    # identical agents (the same bot on two accounts) come out level within their intervals
    rows_by = {(g["game"], r["agent"]): r for g in board["games"] for r in g["rows"]}
    for game in both:
        a, b = rows_by[(game, "r2")], rows_by[(game, "r3")]
        assert a["low"] <= b["high"] and b["low"] <= a["high"]
    # the board: baselines labelled, the batch refit beside the live rating, pushes arrived
    kinds = {agent: r["baseline"] for (_, agent), r in rows_by.items()}
    assert kinds["r1"] is False and {kinds[b] for b in ("tft", "defector", "steward",
                                                         "free-rider") if b in kinds} == {True}
    assert {r["policy"] for r in board["games"][0]["refit"]["rows"]}
    assert len(pushes) >= 2 and pushes[-1]["phase"] in ("final", "ended"), (len(pushes), failed)
    # a held-out agent is rated but named only once the season has ended
    before = [p for p in pushes if p["phase"] != "ended"]
    shown = [r["policy"] for p in before for g in p["games"]
             for r in g["rows"] + (g["refit"] or {}).get("rows", [])
             + (g["refit"] or {}).get("bradley_terry", [])]
    assert shown and not [p for p in shown if p.startswith("r4@")]
    assert any(p["held_out_hidden"] for p in before)
    assert ("dilemma", "r4") in rows_by and rows_by[("dilemma", "r4")]["held_out"]
    # the model agent over its token budget is paused, with the reason shown
    tiny = next(a for a in agents if a["name"] == "m-tiny")
    assert tiny["state"] == "paused" and tiny["reason"].startswith("token budget: ")
    assert tiny["tokens_used"] >= 50
    page = httpx.get(f"{url}/leagues/ci-season/agents/r2", timeout=10).json()
    assert page["owner"] == "bob" and page["history"] and page["recent"][0]["replay"]
    # remote and model agents' behaviour profiles come from their recorded season tables
    assert set(page["profile"]) == set(both)
    for game, doc in page["profile"].items():
        assert doc["source"] == "season tables" and doc["policy"] == "r2@v1", doc
        assert doc["episodes"] == min(played_in(db, "r2", game), 40)
        assert any(t["n"] > 0 for t in doc["traits"]), doc
    model = httpx.get(f"{url}/leagues/ci-season/agents/m-fair", timeout=10).json()["profile"]
    trait = {t["trait"]: t for t in model["dilemma"]["traits"]}
    assert trait["cooperation"]["n"] > 0 and trait["cooperation"]["value"] == 1.0, model

    # the board's batch refit is what the offline league ranks from the same store: the same
    # order and the same numbers, game by game
    assert {g["game"] for g in board["games"]} == set(both)
    for g in board["games"]:
        fit = g["refit"]
        done = CliRunner().invoke(app, ["league", "standings", str(config), "--store", db,
                                        "--game", g["game"], "--json",
                                        "--resamples", str(fit["resamples"])])
        assert done.exit_code == 0, done.output
        offline = json.loads(done.output)
        keys = ("policy", "variant", "mean", "low", "high", "games", "rank_label", "extras")
        assert fit["rows"] == [{k: r[k] if k != "variant" else t["variant"] for k in keys}
                               for t in offline["tables"] for r in t["rows"]]
        assert fit["bradley_terry"] == offline["overall"]["bradley_terry"]["rows"]
        assert fit["episodes"] == offline["episodes"] and fit["episodes"]["ok"] > 0
