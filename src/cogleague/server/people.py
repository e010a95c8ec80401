"""People in the browser: sign-up, sign-in and cookie sessions beside the API keys programs use.

- ``POST /people`` {name, password}: a player account with a scrypt password (`passwords.py`),
  signed in at once; its API key is in the answer (shown once, as for ``POST /accounts``).
  The operator turns it off with ``cogleague serve --no-web-signup`` (`Settings.web_signup`).
- ``POST /session`` signs in, ``DELETE /session`` signs out; ``GET /session`` tells the page
  who is signed in and the CSRF token its posts must carry; ``POST /session/api-key`` makes a
  new API key for the signed-in person's bots (the old one stops working: keys are stored only
  as hashes); ``GET /session/tables`` lists the tables where the person holds a seat, newest
  first, so the account page leads back to a seat or to a replay. The pages are ``/signup``,
  ``/signin`` and ``/me`` (web/).

A name's sign-in is refused for a while after a few failures, a client address's sign-in after
`Settings.sign_ins_per_client` tries at any names (successes too: each costs an scrypt check),
and its sign-up after a few sign-ups, all counted in the database for every process
(`sign_in_guard.py`).
Sessions are added only at a sign-in, which also deletes the expired ones (at most every
`Settings.session_sweep_every_s`), so the table holds about 30 days of sign-ins.

The session cookie is random (256 bits), stored as its SHA-256, ``HttpOnly`` (no script reads
it), ``SameSite=Strict`` (no other site's page sends it). Every request that changes
something and is authenticated by the cookie must also carry ``X-CSRF-Token``: a value derived
from the session that only this site's pages, reading ``GET /session``, can know.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from cogleague.server import passwords
from cogleague.server.auth import digest, new_api_key, new_seat_token
from cogleague.server.errors import ApiError, responses
from cogleague.server.sign_in_guard import SignInGuard
from cogleague.server.store import Store, accounts, now, seats, tables, web_sessions

T = TypeVar("T")

COOKIE = "cl_session"
CSRF_HEADER = "X-CSRF-Token"
SESSION_S = 30 * 24 * 3600.0
"""A browser stays signed in for 30 days unless it signs out."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

router = APIRouter(tags=["people"])


Password = Annotated[str, Field(min_length=passwords.MIN_CHARS, max_length=passwords.MAX_CHARS)]


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.\-]+$")
    password: Password


async def hashed(password: str) -> str:
    """The stored form of a password, made off the event loop (scrypt takes ≈ 0.3 s)."""
    return await asyncio.to_thread(passwords.hash_password, password)


def name_taken(name: str) -> ApiError:
    return ApiError(409, "bad_request", f"name {name!r} is taken")


async def new_account(store: Store, name: str, write: Callable[[Connection], T]) -> T:
    """`write` (which adds the account `name`) in one transaction. Another process may take
    the name between `write`'s check and its insert: the unique index refuses the insert, and
    that is the same 409 as a name taken before."""
    try:
        return await store.tx(write)
    except IntegrityError:
        raise name_taken(name) from None


async def spend(guard: SignInGuard, store: Store, key: str) -> float:
    """Count a try at `key` against `guard` (its spent rows swept when due): 0.0 when it may
    go on, else the seconds to wait."""
    if guard.sweep_due():
        await store.tx(guard.sweep)
    return guard.locked(key) or await store.tx(guard.begin, key)


async def count_sign_up(request: Request) -> None:
    """Count an account made by anyone (`POST /people`, or `POST /accounts` under open
    registration) against the client's address: 429, with the seconds to wait, past
    `Settings.sign_ups_per_client` within `sign_up_window_s`."""
    guard: SignInGuard = request.app.state.sign_up_guard
    wait_s = await spend(guard, request.app.state.store, client_address(request))
    if wait_s:
        raise too_many(guard, wait_s, "sign-ups from this address")


def too_many(guard: SignInGuard, wait_s: float, what: str) -> ApiError:
    """429 for a guard's key past its budget: how many `what` within its window, and the
    whole seconds to wait (in the text and `Retry-After`)."""
    retry = guard.retry_after(wait_s)
    return ApiError(429, "rate_limited", f"{guard.failures} {what} within {guard.window_s:g} s; "
                                         f"try again in {retry} s",
                    headers={"Retry-After": retry})


def client_address(request: Request) -> str:
    """The address a sign-up is counted against (the column holds 64 characters)."""
    return (request.client.host if request.client else "")[:64] or "?"


def csrf_token(session_token: str) -> str:
    """The CSRF value of a session: derived, so nothing more is stored."""
    return hashlib.sha256(f"csrf:{session_token}".encode()).hexdigest()


async def session_row(request: Request) -> dict[str, Any] | None:
    """The signed-in account of this request's cookie (a fresh session), else None."""
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    key = digest(token)

    def read(conn: Connection) -> Any:
        return conn.execute(
            select(accounts).join(web_sessions, web_sessions.c.account_id == accounts.c.id)
            .where(web_sessions.c.token_digest == key, web_sessions.c.expires_at > now())
        ).mappings().first()

    row = await request.app.state.store.tx(read)
    return None if row is None else dict(row)


async def cookie_account(request: Request) -> dict[str, Any] | None:
    """The account a browser request speaks for, or None; a changing request without the
    session's CSRF header is refused (403), so another site cannot post as the person."""
    row = await session_row(request)
    if row is None:
        return None
    if request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent, csrf_token(request.cookies[COOKIE])):
            raise ApiError(403, "forbidden", f"a signed-in browser's {request.method} needs the "
                                             f"{CSRF_HEADER} header from GET /session")
    return row


async def _sign_in(request: Request, response: Response, account_id: int) -> str:
    token = new_seat_token().replace("cls_", "clw_", 1)
    created = now()
    state = request.app.state
    # sessions are added only here: deleting the expired ones here bounds the table
    sweep = state.session_sweeps.due()

    def write(conn: Connection) -> None:
        conn.execute(insert(web_sessions).values(
            token_digest=digest(token), account_id=account_id, created_at=created,
            expires_at=created + SESSION_S))
        if sweep:
            conn.execute(delete(web_sessions).where(web_sessions.c.expires_at <= created))

    await state.store.tx(write)
    response.set_cookie(COOKIE, token, max_age=int(SESSION_S), httponly=True,
                        samesite="strict", secure=request.url.scheme == "https", path="/")
    return csrf_token(token)


@router.post("/people", status_code=201, responses=responses(400, 403, 409, 429))
async def signup(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """A new player account with a password, signed in; its API key shown this once."""
    if not request.app.state.settings.web_signup:
        raise ApiError(403, "forbidden", "self sign-up is turned off on this server; ask the "
                                         "operator for an account")
    store = request.app.state.store

    def taken(conn: Connection) -> bool:
        return conn.execute(select(accounts.c.id).where(accounts.c.name == body.name)
                            ).first() is not None

    # a taken name is refused before scrypt (≈ 0.3 s of CPU): a flood at taken names costs a
    # read each; the check in the transaction below still decides (another process may take
    # the name while this one hashes)
    if await store.tx(taken):
        raise name_taken(body.name)
    await count_sign_up(request)  # before the scrypt
    key = new_api_key()
    stored = await hashed(body.password)

    def write(conn: Connection) -> int:
        if taken(conn):
            raise name_taken(body.name)
        inserted = conn.execute(insert(accounts).values(
            name=body.name, key_digest=digest(key), role="player", created_at=now(),
            password=stored)).inserted_primary_key
        assert inserted is not None
        return int(inserted[0])

    account_id = await new_account(store, body.name, write)
    csrf = await _sign_in(request, response, account_id)
    return {"id": account_id, "name": body.name, "api_key": key, "csrf": csrf}


@router.post("/session", responses=responses(400, 401, 429))
async def signin(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """Sign in; a name with too many recent failures is refused first (`sign_in_guard.py`)."""
    guard: SignInGuard = request.app.state.sign_in_guard
    store = request.app.state.store
    by_address: SignInGuard = request.app.state.sign_in_address_guard
    # keyed "@address" in the names' table: no name holds "@" (`Credentials.name`)
    wait_s = await spend(by_address, store, "@" + client_address(request)[:63])
    if wait_s:
        raise too_many(by_address, wait_s, "sign-ins from this address")
    wait_s = await spend(guard, store, body.name)
    if wait_s:
        raise too_many(guard, wait_s, f"failed sign-ins for {body.name!r}")

    def read(conn: Connection) -> Any:
        return conn.execute(select(accounts).where(accounts.c.name == body.name)
                            ).mappings().first()

    row = await store.tx(read)
    stored = row["password"] if row is not None and row["role"] == "player" else None
    ok = await asyncio.to_thread(passwords.check_password, body.password, stored)  # timed alike
    if row is None or not ok:
        raise ApiError(401, "unauthorized", "unknown name or wrong password")
    await store.tx(guard.succeeded, body.name)
    return {"id": row["id"], "name": row["name"],
            "csrf": await _sign_in(request, response, row["id"])}


@router.delete("/session", responses=responses(403))
async def signout(request: Request, response: Response) -> dict[str, Any]:
    row = await cookie_account(request)
    if row is not None:
        key = digest(request.cookies[COOKIE])
        await request.app.state.store.tx(
            lambda conn: conn.execute(delete(web_sessions)
                                      .where(web_sessions.c.token_digest == key)))
    response.delete_cookie(COOKIE, path="/")
    return {"signed_in": False}


@router.get("/session")
async def session(request: Request) -> dict[str, Any]:
    """Who this browser is signed in as (and the CSRF token for its posts)."""
    row = await session_row(request)
    signup_open = bool(request.app.state.settings.web_signup)
    if row is None:
        return {"signed_in": False, "web_signup": signup_open}
    return {"signed_in": True, "id": row["id"], "name": row["name"], "role": row["role"],
            "csrf": csrf_token(request.cookies[COOKIE]), "web_signup": signup_open}


MY_TABLES_LIMIT = 50
"""How many of a person's tables the account page lists (the newest)."""


@router.get("/session/tables", responses=responses(401))
async def my_tables(request: Request) -> dict[str, Any]:
    """The signed-in person's tables, newest first: each one's game, variant, state, the seat
    held and when it was created and finished (the account page's history)."""
    row = await cookie_account(request)
    if row is None:
        raise ApiError(401, "unauthorized", "sign in first (/signin)")

    def read(conn: Connection) -> list[dict[str, Any]]:
        q = (select(tables.c.id, tables.c.game, tables.c.variant, tables.c.state,
                    tables.c.created_at, tables.c.finished_at, seats.c.seat)
             .join(seats, seats.c.table_id == tables.c.id)
             .where(seats.c.account_id == row["id"])
             .order_by(tables.c.created_at.desc()).limit(MY_TABLES_LIMIT))
        return [dict(r) for r in conn.execute(q).mappings()]

    return {"tables": await request.app.state.store.tx(read)}


@router.post("/session/api-key", responses=responses(401, 403))
async def rotate_key(request: Request) -> dict[str, Any]:
    """A new API key for the signed-in person's bots; the previous key stops working."""
    row = await cookie_account(request)
    if row is None:
        raise ApiError(401, "unauthorized", "sign in first (/signin)")
    key = new_api_key()
    store = request.app.state.store

    def write(conn: Connection) -> None:
        conn.execute(update(accounts).where(accounts.c.id == row["id"])
                     .values(key_digest=digest(key)))
        store.notify(f"keys:{row['id']}")(conn)  # other processes forget the old key too

    await store.tx(write)
    request.app.state.account_cache.clear()  # the old key's cached account goes with it
    await request.app.state.key_watch.check(row["id"])  # and its agent sockets
    return {"name": row["name"], "api_key": key}
