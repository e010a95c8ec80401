"""The HTTP API (protocol.md §2): accounts, wallets, games, rules and the table lifecycle.

Handlers only parse, authenticate and shape documents; `TableService` does the work. Every
error is ``{"error": {"code", "message"}}`` (see `app.py` for the handlers that make it so).
"""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from markdown_it import MarkdownIt
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, model_validator
from sqlalchemy import Connection, insert, select

from cogleague.core import settlement
from cogleague.core.rng import SEED_MAX
from cogleague.server import textguard, wallets
from cogleague.server.auth import bearer, digest, new_api_key
from cogleague.server.errors import ApiError, responses
from cogleague.server.frames import frame_schema
from cogleague.server.mirror import mirror_for
from cogleague.server.people import (
    Password,
    cookie_account,
    count_sign_up,
    hashed,
    name_taken,
    new_account,
)
from cogleague.server.reclaim import reclaim
from cogleague.server.store import accounts, now
from cogleague.server.tables import MIN_START_TIMEOUT_S, Account, TableService

PROTOCOL_PAGE = FilePath(__file__).with_name("protocol.md")
ID_MAX = 2**63 - 1
"""Database ids are signed 64-bit integers."""
TableState = Literal["open", "running", "finished", "aborted"]
MAX_GRANT = 10**12

router = APIRouter()


# -- request bodies ---------------------------------------------------------------------------
def _integer_only(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be an integer, not true/false")
    if isinstance(value, str):
        raise ValueError(f"must be a JSON number, not the string {value[:20]!r}")
    if isinstance(value, float):
        raise ValueError(f"must be an integer, not the fraction-style number {value!r}")
    return value


JsonInt = Annotated[int, BeforeValidator(_integer_only)]
"""An integer written as one: ``5``, never ``5.0``, ``true`` or ``"5"`` (a client that sends a
float for a count or an amount has a bug of its own; reading 5.0 as 5 would hide it)."""


def _number_only(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a number, not true/false")
    if isinstance(value, str):
        raise ValueError(f"must be a JSON number, not the string {value[:20]!r}")
    return value


def _digits_only(value: Any) -> Any:
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError(f"must be an integer written in digits (got {value[:20]!r})")
    return value


PathId = Annotated[int, Path(ge=1, le=ID_MAX), BeforeValidator(_digits_only)]
"""A database id in a path: digits only (``7.0``, `` 7`` and ``+7`` are not account 7)."""

JsonNumber = Annotated[float, BeforeValidator(_number_only)]
"""A number written as one: ``30`` or ``30.5``, never ``true`` (read as 1) or ``"30"``."""


class _Body(BaseModel):
    """Request bodies: unknown keys refused; booleans are `StrictBool` (``"pacing": 0`` is not
    a bool), integers are `JsonInt` (``5.0`` is not the integer 5)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _storable_text(cls, data: Any) -> Any:
        textguard.check_body(data)  # 400 bad_text naming the field, before anything else
        return data


class CreateAccount(_Body):
    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.\-]+$")
    credits: JsonInt = Field(0, ge=0, le=MAX_GRANT, description="an initial operator grant")
    password: Password | None = Field(None, description="operator only: a first password, so "
                                                        "a person signs in at /signin")


class Grant(_Body):
    amount: JsonInt = Field(gt=0, le=MAX_GRANT)
    idempotency_key: str = Field(min_length=1, max_length=120)


class CreateTable(_Body):
    game: str
    variant: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    stake: JsonInt = Field(0, ge=0, le=10**9)
    fill_with: str | None = Field(None, description="baseline for seats still empty at start")
    seed: JsonInt | None = Field(None, ge=0, le=SEED_MAX)
    start_timeout_s: JsonNumber | None = Field(None, ge=MIN_START_TIMEOUT_S)
    auto_start: StrictBool = Field(False, description="start as soon as every seat is joined")
    pacing: StrictBool = Field(True, description="honour the game's minimum step time (live "
                                                 "play)")
    people: StrictBool = Field(False, description="a table for people: the game's human "
                                                  "deadlines (GET /games: human.config) for "
                                                  "every option the config leaves unset")
    exhibition: StrictBool = Field(False, description="operator only: live spectators see "
                                                      "policy names during play (shown in "
                                                      "the lobby)")


class Join(_Body):
    kind: Literal["remote", "human", "llm", "scripted", "policy"] = Field(
        "remote", description="human: a person in the browser (shown as a person)")
    policy: str | None = Field(None, max_length=64, description="kind policy (operator only): "
                                                               "a file in the server's policy "
                                                               "folder")
    prompt: str | None = None
    model: str | None = None
    baseline: str | None = None
    seat: JsonInt | None = None
    name: str | None = Field(None, description="policy name (spectators and the league only)")


class Abort(_Body):
    detail: str | None = Field(None, max_length=200)


# -- dependencies ----------------------------------------------------------------------------------
def service(request: Request) -> TableService:
    svc: TableService = request.app.state.tables
    return svc


async def account(request: Request,
                  authorization: Annotated[str | None, Header()] = None) -> Account:
    key = bearer(authorization)
    if key is None:  # a person's browser: the session cookie (people.py)
        row = await cookie_account(request)
        if row is None:
            raise ApiError(401, "unauthorized", "send Authorization: Bearer <API key>, or "
                                                "sign in at /signin")
        return Account(row["id"], row["name"], row["role"])
    key_digest = digest(key)
    cache: dict[str, Account] = request.app.state.account_cache
    if request.app.state.account_cache_sweeps.due():  # a missed `keys:` notice (notify.py)
        cache.clear()  # must not keep a replaced key working here for good
    found = cache.get(key_digest)
    if found is None:
        def read(conn: Connection) -> Any:
            return conn.execute(select(accounts).where(accounts.c.key_digest == key_digest)
                                ).mappings().first()

        row = await service(request).store.tx(read)
        if row is None or row["role"] == "house":
            raise ApiError(401, "unauthorized", "unknown API key")
        found = Account(row["id"], row["name"], row["role"])
        cache[key_digest] = found
    return found


async def operator(who: Annotated[Account, Depends(account)]) -> Account:
    if not who.is_operator:
        raise ApiError(403, "forbidden", "this needs the operator key")
    return who


Svc = Annotated[TableService, Depends(service)]
Who = Annotated[Account, Depends(account)]
Operator = Annotated[Account, Depends(operator)]


# -- meta ------------------------------------------------------------------------------------------
@router.get("/healthz")
async def healthz(svc: Svc) -> dict[str, Any]:
    """Ready; and the tables whose abort this process gave up retrying (`SETTLE_ROUNDS`
    refusals), so a monitor sees what needs an operator."""
    return {"status": "ok", "aborts_given_up": sorted(svc.given_up)}


@router.get("/games")
async def games(svc: Svc) -> dict[str, Any]:
    return {"games": [svc.catalog.describe(i) for i in svc.catalog.available()]}


def _markdown(request: Request, text: str, title: str) -> Response:
    if "text/html" in request.headers.get("accept", ""):
        body = MarkdownIt("commonmark").enable("table").render(text)
        return HTMLResponse(
            f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta "
            f"name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}"
            f" · cogleague</title><link rel=\"stylesheet\" href=\"/static/css/site.css\"><link "
            f"rel=\"icon\" href=\"data:,\"></head><body><header class=\"top\"><a class=\"brand\" "
            f"href=\"/\">cogleague</a><nav aria-label=\"site\"><a href=\"/\">Lobby</a><a "
            f"href=\"/rules\">Rules</a><a href=\"/docs\">HTTP API</a></nav></header><main "
            f"class=\"markdown\">{body}</main><script type=\"module\" "
            f"src=\"/static/js/util.js\"></script></body></html>")  # util: scrollers focusable
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


MARKDOWN: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/markdown": {}, "text/html": {}},
          "description": "Markdown, or HTML when asked for"}}
"""The documents' content types: Markdown, or HTML for browsers."""


@router.get("/rules/{game}", response_model=None, responses={**MARKDOWN, **responses(400, 404)})
async def rules(game: str, request: Request, svc: Svc) -> Response:
    info = svc.catalog.get(game)
    path = svc.catalog.rules_path(info)
    if path is None:
        raise ApiError(404, "not_found", f"game {game} ships no rules page")
    return _markdown(request, path.read_text(encoding="utf-8"), info.title)


@router.get("/protocol", response_model=None, responses=MARKDOWN)
async def protocol(request: Request) -> Response:
    return _markdown(request, PROTOCOL_PAGE.read_text(encoding="utf-8"), "table protocol")


@router.get("/protocol/frames.json")
async def frames_schema() -> dict[str, Any]:
    return frame_schema()


# -- accounts and wallets -----------------------------------------------------------------------
@router.post("/accounts", status_code=201,
             responses=responses(400, 401, 403, 409, 413, 429))
async def create_account(body: CreateAccount, request: Request, svc: Svc,
                         authorization: Annotated[str | None, Header()] = None
                         ) -> dict[str, Any]:
    if not request.app.state.settings.open_registration:
        if bearer(authorization) is None and await cookie_account(request) is None:
            raise ApiError(401, "unauthorized", "creating accounts needs the operator key "
                                                "(Authorization: Bearer <operator key>): "
                                                "this server has no open registration")
        caller = await account(request, authorization)
        if not caller.is_operator:
            raise ApiError(403, "forbidden", "creating accounts needs the operator key")
    elif body.credits or body.password is not None:
        caller = await account(request, authorization)
        if not caller.is_operator:
            what = "grants credits" if body.credits else "sets a password"
            raise ApiError(403, "forbidden", f"only the operator {what}")
    elif not await by_operator(request, authorization):
        await count_sign_up(request)  # anyone's accounts: a few per client address
    key = new_api_key()
    password = None if body.password is None else await hashed(body.password)

    def write(conn: Connection) -> dict[str, Any]:
        if conn.execute(select(accounts.c.id).where(accounts.c.name == body.name)).first():
            raise name_taken(body.name)
        inserted = conn.execute(insert(accounts).values(
            name=body.name, key_digest=digest(key), role="player", created_at=now(),
            password=password)).inserted_primary_key
        assert inserted is not None  # a single-row INSERT always has its key
        account_id = inserted[0]
        if body.credits:
            wallets.apply(conn, settlement.deposit(wallets.ledger_name(account_id), body.credits,
                                                   f"account:{account_id}:initial"))
        return {"id": account_id, "name": body.name, "api_key": key,
                "balance": wallets.balance(conn, account_id)}

    return await new_account(svc.store, body.name, write)


async def by_operator(request: Request, authorization: str | None) -> bool:
    """Whether the request carries the operator's key (any other, or none: False)."""
    if bearer(authorization) is None:
        return False
    try:
        return (await account(request, authorization)).is_operator
    except ApiError:
        return False


@router.get("/account", responses=responses(401))
async def me(who: Who) -> dict[str, Any]:
    return {"id": who.id, "name": who.name, "role": who.role}


@router.post("/accounts/{account_id}/credits",
             responses=responses(400, 401, 403, 404, 409, 413))
async def grant(account_id: PathId, body: Grant, svc: Svc,
                _op: Operator) -> dict[str, Any]:
    """The operator's credit grant: a `deposit`, idempotent by `idempotency_key`. A retry
    of a grant that is in (its answer was lost) changes nothing and answers as the first
    attempt did, `applied: true`, with `replayed: true`."""
    def write(conn: Connection) -> dict[str, Any]:
        row = conn.execute(select(accounts).where(accounts.c.id == account_id)).mappings().first()
        if row is None:
            raise ApiError(404, "not_found", f"account {account_id} does not exist")
        if row["role"] != "player":  # the house holds rakes; the operator plays no stakes
            raise ApiError(409, "wrong_state", f"account {account_id} is the {row['role']}'s: "
                                               "credits are granted to player accounts only")
        new = wallets.apply(conn, settlement.deposit(
            wallets.ledger_name(account_id), body.amount,
            f"grant:{account_id}:{body.idempotency_key}"))
        return {"account": account_id, "applied": True, "replayed": not new,
                "balance": wallets.balance(conn, account_id)}

    return await svc.store.tx(write)


@router.get("/wallet", responses=responses(401))
async def wallet(who: Who, svc: Svc) -> dict[str, Any]:
    """The caller's balance and entries; the operator's also carries the house account's
    (paid tables' rakes), which has no key of its own to ask with."""
    def read(conn: Connection) -> dict[str, Any]:
        doc = {"account": who.id, **wallets.statement(conn, who.id)}
        if who.is_operator:
            house = conn.execute(select(accounts.c.id).where(accounts.c.role == "house")
                                 ).scalar_one()
            doc["house"] = {"account": house, **wallets.statement(conn, house)}
        return doc

    return await svc.store.tx(read)


# -- tables ----------------------------------------------------------------------------------------
@router.post("/tables", status_code=201, responses=responses(400, 401, 413, 429))
async def create_table(body: CreateTable, who: Who, svc: Svc) -> dict[str, Any]:
    return await svc.create(who, body.model_dump(exclude_none=True))


@router.get("/tables", responses=responses(400))
async def list_tables(svc: Svc, state: Annotated[TableState | None, Query()] = None
                      ) -> dict[str, Any]:
    page: dict[str, Any] = await svc.list_reads.get(state, lambda: svc.page(state))
    return page


@router.get("/tables/{table_id}", responses=responses(404))
async def get_table(table_id: str, svc: Svc) -> dict[str, Any]:
    return svc.describe(*await svc.row(table_id))


@router.post("/tables/{table_id}/join",
             responses=responses(400, 401, 402, 403, 404, 409, 413, 429))
async def join(table_id: str, body: Join, who: Who, svc: Svc) -> dict[str, Any]:
    return await svc.join(who, table_id, body.model_dump(exclude_none=True))


@router.post("/tables/{table_id}/leave", responses=responses(401, 404, 409))
async def leave(table_id: str, who: Who, svc: Svc) -> dict[str, Any]:
    return await svc.leave(who, table_id)


@router.post("/tables/{table_id}/reclaim", responses=responses(401, 404, 409))
async def reclaim_seat(table_id: str, who: Who, svc: Svc) -> dict[str, Any]:
    """A fresh token for the seat this account holds (the old token stops working)."""
    return await reclaim(svc, who, table_id)


@router.post("/tables/{table_id}/start", responses=responses(401, 403, 404, 409))
async def start(table_id: str, who: Who, svc: Svc) -> dict[str, Any]:
    return await svc.start(who, table_id)


@router.post("/tables/{table_id}/abort", responses=responses(400, 401, 403, 404, 409, 413))
async def abort(table_id: str, svc: Svc, _op: Operator, body: Abort | None = None
                ) -> dict[str, Any]:
    return await svc.abort(table_id, (body.detail if body else None) or "operator")


async def _ended(svc: TableService, table_id: str, column: str) -> Response:
    row, _ = await svc.row(table_id)
    if row["state"] not in ("finished", "aborted"):
        raise ApiError(409, "wrong_state", f"table {table_id} is {row['state']}; "
                                           f"its {column} exist after the end")
    text = row[column]
    if text is None:
        raise ApiError(404, "not_found", f"table {table_id} has no {column}")
    why = await svc.withheld(table_id)
    if why is not None:
        raise ApiError(409, "wrong_state", f"table {table_id}: {why}")
    return Response(text, media_type="application/json")  # stored canonical bytes, as written


JSON_DOC: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/json": {}}, "description": "the stored document"}}


@router.get("/tables/{table_id}/results", response_model=None,
            responses={**JSON_DOC, **responses(404, 409)})
async def results(table_id: str, svc: Svc) -> Response:
    return await _ended(svc, table_id, "results")


@router.get("/tables/{table_id}/replay", response_model=None,
            responses={**JSON_DOC, **responses(404, 409)})
async def replay(table_id: str, svc: Svc) -> Response:
    return await _ended(svc, table_id, "replay")


@router.get("/tables/{table_id}/spectator", responses=responses(404, 409))
async def spectator(table_id: str, svc: Svc) -> dict[str, Any]:
    """What a spectator may see of a running table right now (`Game.spectator_state`; no
    policy names unless it is an exhibition table), from whichever process is asked; for a
    table that is not running, `{"running": false, "table_state": ...}` (a watcher polling
    each round cannot know a table has just ended, so that is not an error)."""
    live = svc.live.get(table_id)
    if live is not None:
        return live.room.watch.live_view(live.game.spectator_state())
    row, _ = await svc.row(table_id)
    if row["state"] != "running":
        return {"running": False, "table_state": row["state"]}
    mirror = await mirror_for(svc, table_id)
    await mirror.refresh()
    return mirror.room.watch.live_view(mirror.game.spectator_state())
