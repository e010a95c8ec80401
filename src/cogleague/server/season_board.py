"""The board: what anyone may see of the season, without a key.

- ``GET /leagues`` and ``GET /leagues/{id}``: the season, its phase and counters;
- ``GET /leagues/{id}/standings``: per game, every agent version's live OpenSkill rating (μ, σ,
  the conservative μ − 3σ, a 95 % interval), tables played, fallbacks by cause, version and
  owner, beside the periodic batch refit (the league's bootstrap and Bradley–Terry standings
  over the season's stored episodes, `league/rankings`); held-out agents are left out until the
  season ends, and the frozen standings are served once it has;
- ``GET /leagues/{id}/agents/{name}``: one agent's page (rating over time, recent tables with
  replay links, fallbacks by cause, behaviour traits from its games' stat columns, owner);
- ``GET /leagues/{id}/config``: the league file the season runs (rerun it offline; its
  ``held_out`` list emptied until the season ends);
- ``WS /ws/leagues/{id}``: the standings, then again after each rating update (every process
  watches the season's version counter, so updates from any process reach every socket).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import tomllib
from collections import defaultdict
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import FileResponse, PlainTextResponse
from sqlalchemy import Connection, select, update
from starlette.websockets import WebSocketDisconnect

from cogleague.core import jsonio
from cogleague.league.rankings.openskill_rating import Z
from cogleague.server.errors import ApiError, responses
from cogleague.server.league_schema import (
    agents,
    rating_history,
    ratings,
    season_seats,
    season_tables,
    seasons,
)
from cogleague.server.matchmaker import ENDED
from cogleague.server.season_runtime import LeagueRuntime
from cogleague.server.store import ABORTED, accounts, tables

router = APIRouter()
PUSH_POLL_S = 0.5
RECENT_TABLES = 20
REFIT_RESAMPLES = 200


def _runtime(request: Request | WebSocket, season: str) -> LeagueRuntime:
    rt: LeagueRuntime = request.app.state.league
    if rt.id is None or season != rt.id:
        raise ApiError(404, "not_found", f"league {season!r} does not exist here"
                                         + (f" (this server runs {rt.id})" if rt.id else ""))
    return rt


def _season_row(conn: Connection, season: str) -> dict[str, Any]:
    row = conn.execute(select(seasons).where(seasons.c.id == season)).mappings().first()
    if row is None:
        raise ApiError(404, "not_found", f"league {season!r} has not started")
    return dict(row)


def _faults(conn: Connection, season: str) -> dict[tuple[int, str], dict[str, int]]:
    out: dict[tuple[int, str], dict[str, int]] = defaultdict(dict)
    q = select(season_seats.c.agent_id, season_seats.c.faults, season_tables.c.game).join(
        season_tables, season_tables.c.table_id == season_seats.c.table_id).where(
        season_tables.c.season == season, season_seats.c.faults.is_not(None),
        season_seats.c.faults != "{}")
    for agent_id, text, game in conn.execute(q):
        counts = out[(agent_id, game)]
        for cause, n in json.loads(text).items():
            counts[cause] = counts.get(cause, 0) + int(n)
    return out


def standings_doc(conn: Connection, season: str, reveal: bool,
                  held_out: tuple[str, ...] = (), refit: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    """The live board: per game, agent versions by conservative rating, best first."""
    row = _season_row(conn, season)
    faults = _faults(conn, season)
    by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    hidden = 0
    # one statement, so one snapshot: on PostgreSQL's READ COMMITTED each statement sees the
    # commits made before it, and a rating read after a separate read of the agents could name
    # an agent (a new version) that read did not see
    rated = select(ratings, agents.c.name, agents.c.version, agents.c.current, agents.c.kind,
                   agents.c.state, agents.c.reason, accounts.c.name.label("owner")).join(
        agents, agents.c.id == ratings.c.agent_id).join(
        accounts, accounts.c.id == agents.c.account_id).where(ratings.c.season == season)
    for r in conn.execute(rated).mappings():
        name = r["name"]
        if not reveal and name in held_out:
            hidden += 1
            continue
        by_game[r["game"]].append({
            "agent": name, "version": r["version"], "current": bool(r["current"]),
            "policy": f"{name}@v{r['version']}", "kind": r["kind"],
            "baseline": r["kind"] == "baseline", "owner": r["owner"], "state": r["state"],
            "reason": r["reason"], "held_out": name in held_out,
            "mu": r["mu"], "sigma": r["sigma"], "rating": r["mu"] - 3 * r["sigma"],
            "low": r["mu"] - Z * r["sigma"], "high": r["mu"] + Z * r["sigma"],
            "games": r["games"], "faults": faults.get((r["agent_id"], r["game"]), {})})
    games = []
    for game in sorted(by_game):
        rows = sorted(by_game[game], key=lambda x: (-x["rating"], x["policy"]))
        for i, x in enumerate(rows):
            x["rank"] = i + 1
        fit = (refit or {}).get(game)
        if fit is not None and not reveal:
            fit = _mask_refit(fit, held_out)
        games.append({"game": game, "rows": rows, "refit": fit})
    return {"league": season, "phase": row["phase"], "version": row["version"],
            "tables_made": row["tables_made"], "final_made": row["final_made"],
            "tables": dict(sorted(_outcome_counts(conn, season).items())),
            "held_out_hidden": hidden, "revealed": reveal, "games": games,
            "started_at": row["started_at"], "closed_at": row["closed_at"],
            "ended_at": row["ended_at"]}


def _outcome_counts(conn: Connection, season: str) -> dict[str, int]:
    """Tables by outcome; an aborted table ends without the finish hook that records one."""
    out: dict[str, int] = defaultdict(int)
    for outcome, state in conn.execute(select(season_tables.c.outcome, tables.c.state).join(
            tables, tables.c.id == season_tables.c.table_id).where(
            season_tables.c.season == season)):
        out[outcome or ("not_rated:aborted" if state == ABORTED else "playing")] += 1
    return out


def _mask_refit(fit: dict[str, Any], held_out: tuple[str, ...]) -> dict[str, Any]:
    def shown(policy: str) -> bool:
        return policy.split("@")[0] not in held_out
    return {**fit, "rows": [r for r in fit.get("rows", []) if shown(r["policy"])],
            "bradley_terry": [r for r in fit.get("bradley_terry", []) if shown(r["policy"])]}


def compute_refit(url: str, season: str, game_names: list[str]) -> dict[str, Any]:
    """The batch refit per game: the league's standings document over the season's episodes
    (bootstrap intervals of the mean score, Bradley–Terry strengths) — what `cogleague league
    standings FILE --store URL --game GAME --resamples REFIT_RESAMPLES` ranks offline from
    the same store, number for number (`tests/season/test_season.py` holds it to that)."""
    from cogleague.league.rankings.standings import standings_json

    out: dict[str, Any] = {}
    for game in game_names:
        doc = standings_json(url, game=game, league=season, resamples=REFIT_RESAMPLES)
        rows = [{"policy": r["policy"], "variant": t["variant"], "mean": r["mean"],
                 "low": r["low"], "high": r["high"], "games": r["games"],
                 "rank_label": r["rank_label"], "extras": r.get("extras", {})}
                for t in doc["tables"] for r in t["rows"]]
        bt = (doc.get("overall") or {}).get("bradley_terry") or {}
        out[game] = {"episodes": doc["episodes"], "resamples": REFIT_RESAMPLES, "rows": rows,
                     "bradley_terry": bt.get("rows", [])}
    return out


async def board(rt: LeagueRuntime) -> dict[str, Any]:
    """The standings document now (the frozen one after the end)."""
    assert rt.id is not None
    season_id = rt.id
    row = await rt.store.tx(_season_row, season_id)
    if row["phase"] == ENDED and row["frozen"]:
        stored = json.loads(row["frozen"])
        frozen = stored.get("standings")
        if frozen and not frozen.get("refitted"):  # the batch refit over every table, once
            fit = await asyncio.get_running_loop().run_in_executor(
                None, compute_refit, rt.store.url, season_id, rt.game_names())
            for g in frozen["games"]:
                g["refit"] = fit.get(g["game"])
            frozen["refitted"] = True
            text = jsonio.dumps({**stored, "standings": frozen})
            await rt.store.tx(lambda c: c.execute(update(seasons).where(
                seasons.c.id == season_id).values(frozen=text)))
        if frozen:
            return {**frozen, "phase": ENDED, "frozen": True, "version": row["version"]}
    await _refresh_refit(rt, row["version"])
    doc = await rt.store.tx(standings_doc, season_id, row["phase"] == ENDED,
                            rt.season.held_out, rt.refit)
    return {**doc, "frozen": False}


async def _refresh_refit(rt: LeagueRuntime, version: int) -> None:
    if version == rt.refit_version or time.monotonic() - rt.refit_at < rt.season.refit_every_s:
        return
    rt.refit_at, rt.refit_version = time.monotonic(), version
    assert rt.id is not None
    rt.refit = await asyncio.get_running_loop().run_in_executor(
        None, compute_refit, rt.store.url, rt.id, rt.game_names())


# -- routes ----------------------------------------------------------------------------------
@router.get("/leagues", tags=["league"])
async def list_leagues(request: Request) -> dict[str, Any]:
    rt: LeagueRuntime = request.app.state.league
    if rt.id is None:
        return {"leagues": []}
    row = await rt.store.tx(_season_row, rt.id)
    return {"leagues": [{"id": rt.id, "phase": row["phase"], "games": rt.game_names(),
                         "tables_made": row["tables_made"]}]}


@router.get("/leagues/{season}/standings", tags=["league"], responses=responses(404))
async def get_standings(season: str, request: Request) -> dict[str, Any]:
    return await board(_runtime(request, season))


@router.get("/leagues/{season}/config", tags=["league"], response_model=None,
            responses=responses(404))
async def get_config(season: str, request: Request) -> PlainTextResponse:
    rt = _runtime(request, season)
    row = await rt.store.tx(_season_row, season)
    text = row["config_text"]
    if rt.season.held_out and row["phase"] != ENDED:
        text = _without_held_out(text, rt.season.held_out)
    return PlainTextResponse(text, media_type="application/toml")


_HELD_OUT = re.compile(r"(\bheld_out\s*=\s*)\[[^\]]*\]")


def _without_held_out(text: str, names: tuple[str, ...]) -> str:
    """The league file with its ``held_out`` list emptied (named when the season ends); a
    file where that cannot be done surely (a name left in it) is withheld until then."""
    masked = _HELD_OUT.sub(lambda m: f"{m.group(1)}[]  # {len(names)} held out until the "
                                     "season ends", text)
    try:
        left = tomllib.loads(masked).get("season", {}).get("held_out")
    except tomllib.TOMLDecodeError:
        left = None
    if left != [] or any(f"{q}{n}{q}" in masked for n in names for q in "\"'"):
        raise ApiError(409, "wrong_state", "the season's file names its held-out agents: "
                                           "it is served once the season has ended")
    return masked


@router.get("/leagues/{season}/agents/{name}", tags=["league"], responses=responses(404))
async def agent_page(season: str, name: str, request: Request) -> dict[str, Any]:
    rt = _runtime(request, season)
    row = await rt.store.tx(_season_row, season)
    if name in rt.season.held_out and row["phase"] != ENDED:
        raise ApiError(404, "not_found", f"agent {name!r} is held out until the season ends")
    versions = await rt.book.get(name)
    doc = await rt.store.tx(_agent_detail, season, [v["id"] for v in versions])
    # the refit as the board shows it now (computed when due, the frozen one after the end):
    # the page must not wait for someone to open the board first
    refit = {g["game"]: g["refit"] for g in (await board(rt))["games"] if g.get("refit")}
    traits = {g: [r for r in fit.get("rows", []) if r["policy"].split("@")[0] == name]
              for g, fit in refit.items()}
    try:
        profiles = await rt.profiles(versions[0]["id"])
    except Exception as exc:  # a profile that cannot run is said, not hidden
        profiles = {"error": f"{type(exc).__name__}: {exc}"}
    return {"agent": name, "owner": versions[0]["owner"], "versions": versions,
            **doc, "traits": {g: rows for g, rows in traits.items() if rows},
            "profile": profiles}


def _agent_detail(conn: Connection, season: str, ids: list[int]) -> dict[str, Any]:
    history = [{"version_id": r.agent_id, "game": r.game, "table": r.table_id, "mu": r.mu,
                "sigma": r.sigma, "rating": r.mu - 3 * r.sigma, "at": r.at}
               for r in conn.execute(select(rating_history).where(
                   rating_history.c.season == season, rating_history.c.agent_id.in_(ids))
                   .order_by(rating_history.c.id))]
    recent = []
    faults: dict[str, int] = defaultdict(int)
    q = select(season_seats, season_tables.c.game, season_tables.c.phase,
               season_tables.c.outcome, tables.c.state, tables.c.reason).join(
        season_tables, season_tables.c.table_id == season_seats.c.table_id).join(
        tables, tables.c.id == season_seats.c.table_id).where(
        season_tables.c.season == season, season_seats.c.agent_id.in_(ids)).order_by(
        season_seats.c.created_at.desc())
    for i, r in enumerate(conn.execute(q).mappings()):
        counts = json.loads(r["faults"]) if r["faults"] else {}
        for cause, n in counts.items():
            faults[cause] += int(n)
        if i < RECENT_TABLES:
            recent.append({"table": r["table_id"], "game": r["game"], "seat": r["seat"],
                           "phase": r["phase"], "state": r["state"], "reason": r["reason"],
                           "score": r["score"], "outcome": r["outcome"], "faults": counts,
                           "replay": f"/tables/{r['table_id']}/replay",
                           "watch": f"/theater?table={r['table_id']}"})
    return {"history": history, "recent": recent, "faults": dict(sorted(faults.items()))}


@router.websocket("/ws/leagues/{season}")
async def league_socket(ws: WebSocket, season: str) -> None:
    try:
        rt = _runtime(ws, season)
    except ApiError as exc:
        from cogleague.server.play import _deny

        await _deny(ws, 404, exc.message)
        return
    await ws.accept()
    seen = -1
    closed = asyncio.Event()

    async def drain() -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while True:
                await ws.receive_text()
        closed.set()

    reader = asyncio.create_task(drain())
    try:
        while not closed.is_set():
            version = await rt.store.tx(lambda c: c.execute(select(seasons.c.version).where(
                seasons.c.id == season)).scalar_one())
            if version != seen:
                seen = version
                await ws.send_text(jsonio.dumps({"type": "standings",
                                                 "standings": await board(rt)}))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(closed.wait(), PUSH_POLL_S)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        reader.cancel()


# -- the pages ---------------------------------------------------------------------------------
def _static(name: str) -> FileResponse:
    from cogleague.web.routes import NO_CACHE, STATIC_DIR

    return FileResponse(STATIC_DIR / name, media_type="text/html; charset=utf-8",
                        headers=NO_CACHE)


@router.get("/league", include_in_schema=False)
async def league_page() -> FileResponse:
    return _static("league.html")


@router.get("/league/agent", include_in_schema=False)
async def league_agent_page() -> FileResponse:
    return _static("league_agent.html")
