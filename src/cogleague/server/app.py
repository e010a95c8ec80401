"""`create_app(settings)`: the FastAPI application of the table server.

Creating the app opens the database, creates the schema and makes sure the house account and
the operator exist (a generated operator key is left in `app.state.generated_operator_key` for
`cogleague serve` to print once). Starting it resumes the tables that were running when the
previous process stopped (`recovery.py`).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy import Connection, insert, select, update
from sqlalchemy.engine import make_url
from starlette.exceptions import HTTPException

from cogleague.core.errors import ConfigError
from cogleague.server import (
    agent_api,
    agent_socket,
    lobby,
    lobby_feed,
    people,
    play,
    season_board,
    sqlite_lock,
    validation,
)
from cogleague.server.auth import digest, install_log_redaction, new_api_key
from cogleague.server.catalog import Catalog
from cogleague.server.dbretry import Unavailable
from cogleague.server.errors import ApiError
from cogleague.server.every import Every
from cogleague.server.integrity import DatabaseRefused, check_database, check_folder
from cogleague.server.key_watch import KeyWatch
from cogleague.server.leases import LeaseKeeper
from cogleague.server.limits import BodyLimit
from cogleague.server.notify import Listener
from cogleague.server.openapi import truthful_openapi
from cogleague.server.recovery import recover
from cogleague.server.season_runtime import (
    LeagueRuntime,
    check_baselines,
    check_games,
    install_openapi,
    load_season,
)
from cogleague.server.settings import Settings
from cogleague.server.sign_in_guard import SignInGuard
from cogleague.server.standings_feed import backfill
from cogleague.server.store import Store, accounts, now, sign_up_tries
from cogleague.server.tables import TableService, check_house_rake

log = logging.getLogger("cogleague.server")

GC_GEN0_THRESHOLD = 20_000
"""Allocations between young-generation collections (CPython's default is 700). Every move
allocates hundreds of short-lived objects (frames, views, futures), so the default collects
about once per move: ≈ 9 % of the server's CPU in `benchmarks/server_load.py`, ≈ 5 % at
20,000. Older generations keep their defaults, so cyclic garbage is still collected."""


def tune_gc() -> None:
    """Fewer young collections, and the objects alive after start-up (modules, the app,
    resumed tables) moved out of the collector's way (`gc.freeze`)."""
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, gen1, gen2)
_STATUS_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                 405: "bad_request", 409: "wrong_state", 413: "too_large", 422: "bad_request",
                 429: "rate_limited"}


def bootstrap(store: Store, operator_key: str | None) -> str | None:
    """Schema, the house account and the operator. Returns a newly generated operator key
    (first start without one given), else None."""
    store.create_schema()

    def run(conn: Connection) -> str | None:
        if conn.execute(select(accounts.c.id).where(accounts.c.role == "house")).first() is None:
            conn.execute(insert(accounts).values(name="house", role="house", created_at=now(),
                                                 key_digest=digest(new_api_key())))
        op = conn.execute(select(accounts).where(accounts.c.role == "operator")).mappings().first()
        generated = None
        key = operator_key
        if op is None and key is None:
            key = generated = new_api_key()
        if op is None:
            conn.execute(insert(accounts).values(name="operator", role="operator",
                                                 created_at=now(), key_digest=digest(key or "")))
        elif key is not None and op["key_digest"] != digest(key):
            conn.execute(update(accounts).where(accounts.c.id == op["id"])
                         .values(key_digest=digest(key)))
            store.notify(f"keys:{op['id']}")(conn)  # the running processes drop the old key
            replaced.append(True)
        return generated

    replaced: list[bool] = []
    generated = store.tx_sync(run)
    if replaced:  # after the commit: a retried transaction logs once
        log.warning("the operator key was replaced by the one this process was started with "
                    "(--operator-key): the previous key no longer works, on any process")
    return generated


def shown_url(url: str) -> str:
    """A database URL as a log may show it: its password masked."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy parses: nothing of it is shown
        return "(the database URL given)"


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """The methods the API document declares at this request's path (RFC 9110's Allow)."""
    methods: set[str] = set()
    for template, item in app.openapi().get("paths", {}).items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, request.url.path):
            methods |= {m.upper() for m in item}
    return sorted(methods)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    settings.check()  # before anything is opened or stored: a field may have been assigned
    catalog = Catalog(settings.extra_games, settings.games)
    check_house_rake(catalog, settings)
    # the season's file is judged before a database is opened or made
    season = load_season(settings.season) if settings.season else (None, None)
    install_log_redaction()
    check_folder(settings.db_url)
    process_lock = sqlite_lock.lock(settings.db_url)
    try:
        found = check_database(settings.db_url, settings.create_db)
    except DatabaseRefused:
        if process_lock is not None:
            process_lock.close()
        raise
    if found != "ok":
        log.info("database %s: creating the schema (%s)", shown_url(settings.db_url), found)
    store = Store(settings.db_url, settings.sqlite_synchronous)
    generated = bootstrap(store, settings.operator_key)
    if process_lock is not None:  # a file made just now: every name of it is locked from now
        try:
            process_lock.cover()
        except sqlite_lock.DatabaseInUse:
            store.close()
            process_lock.close()
            raise
    if season[0] is not None and settings.season is not None:
        try:  # a restart's file may not redefine the baselines the season registered
            check_baselines(store, season[0])
            check_games(store, season[0], settings.season, season[1])
        except ConfigError:
            store.close()
            if process_lock is not None:
                process_lock.close()
            raise

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service = TableService(store, catalog, settings)
        app.state.tables = service
        listener = None
        keys: KeyWatch = app.state.key_watch
        checks: set[asyncio.Task[None]] = set()
        if store.is_postgres:  # other processes' tables and keys: NOTIFY (notify.py)
            def on_notice(payload: str) -> None:
                if payload.startswith("keys:"):  # an account's new API key retires the old
                    app.state.account_cache.clear()
                    account_id = payload.removeprefix("keys:")
                    if account_id.isdigit():  # the old key's agent sockets close
                        checks.add(task := asyncio.create_task(keys.heard(int(account_id))))
                        task.add_done_callback(checks.discard)
                else:
                    service.on_notice(payload)

            def on_reconnect() -> None:  # the notices sent while LISTEN was down are lost
                service.listen_resumed()
                checks.add(task := asyncio.create_task(keys.recheck(force=True)))
                task.add_done_callback(checks.discard)

            listener = Listener(settings.db_url, on_notice, asyncio.get_running_loop(),
                                on_reconnect)
            listener.start()
        resumed = await recover(service)
        await backfill(service)  # finished tables a crash kept out of the standings
        keeper = LeaseKeeper(service)
        app.state.leases = keeper
        resumed += await keeper.tick()
        if resumed:
            log.warning("resumed %d running table(s): %s", len(resumed), ", ".join(resumed))
        keeper.start()
        league = LeagueRuntime(service, *season)
        app.state.league = league
        await league.start()
        if settings.tune_gc:
            tune_gc()
        try:
            yield
        finally:
            await league.stop()
            await keeper.stop()
            if listener is not None:
                listener.stop()
            await service.shutdown()
            store.close()
            if process_lock is not None:
                process_lock.close()

    app = FastAPI(title="cogleague table server", lifespan=lifespan, docs_url=None,
                  redoc_url=None,  # /docs is web/apidocs.py: Swagger UI's assets served here
                  description="HTTP lobby and WebSocket play for every installed game. "
                              "The protocol page is at /protocol, frame schemas at "
                              "/protocol/frames.json.")
    app.state.settings = settings
    app.state.store = store
    app.state.account_cache = {}
    app.state.account_cache_sweeps = Every(settings.key_recheck_s, start_due=False)  # lobby.py
    app.state.key_watch = KeyWatch(store, settings.key_recheck_s)
    app.state.sign_in_guard = SignInGuard(settings.sign_in_failures, settings.sign_in_window_s)
    app.state.sign_in_address_guard = SignInGuard(settings.sign_ins_per_client,  # people.py
                                                  settings.sign_in_window_s)
    app.state.sign_up_guard = SignInGuard(settings.sign_ups_per_client,
                                          settings.sign_up_window_s, table=sign_up_tries)
    app.state.session_sweeps = Every(settings.session_sweep_every_s)  # people.py
    app.state.generated_operator_key = generated

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        response = _error(exc.status, exc.code, exc.message)
        response.headers.update(exc.headers)
        return response

    @app.exception_handler(Unavailable)
    async def unavailable(_request: Request, exc: Unavailable) -> JSONResponse:
        response = _error(503, "unavailable", f"{exc}; try again shortly")
        response.headers["Retry-After"] = "1"
        return response

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
        if first.get("type") == "json_invalid":  # its loc is ("body", offset): not a field
            at, why = first["loc"][-1], first.get("ctx", {}).get("error", "")
            return _error(400, "bad_request", f"body: not valid JSON at character {at} ({why})")
        return _error(400, "bad_request", validation.message(first, request.scope.get("route")))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(exc.status_code, "bad_request")
        response = _error(exc.status_code, code, str(exc.detail))
        response.headers.update(exc.headers or {})
        if exc.status_code == 405:  # every method the path has, not only the first route's
            response.headers["Allow"] = ", ".join(allowed_methods(app, request))
        return response

    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes,
                       timeout_s=settings.body_timeout_s)

    app.include_router(lobby.router)
    app.include_router(play.router)
    app.include_router(lobby_feed.router)
    app.include_router(people.router)
    app.include_router(agent_api.router)
    app.include_router(agent_socket.router)
    app.include_router(season_board.router)
    try:
        from cogleague.web.apidocs import router as docs_router
        from cogleague.web.routes import router as web_router
    except ImportError:
        pass
    else:
        app.include_router(web_router)
        app.include_router(docs_router)
    truthful_openapi(app, catalog, settings.max_start_timeout_s)
    install_openapi(app, season[0], catalog, settings)
    return app
