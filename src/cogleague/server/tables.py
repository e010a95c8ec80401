"""Table lifecycle: open → running → finished | aborted (protocol.md §2).

`TableService` owns every state change. Each change is one database transaction (a join and its
stake hold; a start and its filler seats; an end, its results and its whole settlement), and a
per-table lock keeps two requests from interleaving on the same table. Running tables live in
`LiveTable`s; this module builds their seats, starts them, and closes them when they end.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from cogleague.core import jsonio, settlement
from cogleague.core.config import check_int, check_number, check_str
from cogleague.core.connect import connect_wait
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.core.options import scalar_fields, validate_options
from cogleague.core.replay import EpisodeLog
from cogleague.core.rng import SEED_MAX, random_seed
from cogleague.core.text import text_fault
from cogleague.server import forfeit, reclaim, wallets
from cogleague.server.auth import digest, new_seat_token
from cogleague.server.cache import SharedReads
from cogleague.server.catalog import Catalog
from cogleague.server.errors import ApiError
from cogleague.server.keyedlock import KeyedLocks
from cogleague.server.leases import claim
from cogleague.server.live import LiveTable, Room
from cogleague.server.lobby_feed import LobbyFeed
from cogleague.server.loglimit import Throttled
from cogleague.server.payouts import finish_entries, record_league
from cogleague.server.recovery import resume
from cogleague.server.seat_kinds import (
    SEAT_KINDS,
    make_runner_seat,
)
from cogleague.server.seating import (
    MAX_NAME_CHARS,
    Account,
    check_baseline,
    config_error,
    game_of,
    seat_fields,
)
from cogleague.server.seating import probe as probe_game
from cogleague.server.settings import Settings
from cogleague.server.store import (
    ABORTED,
    FINISHED,
    FOREVER,
    OPEN,
    RUNNING,
    LeaseLost,
    Store,
    loads,
    notify,
    now,
    seat_rows,
    seats,
    table_row,
    tables,
)

log = logging.getLogger("cogleague.server")
LIST_LIMIT = 500
"""`GET /tables` lists at most this many tables, the newest first."""
throttle = Throttled(log, every_s=60.0)

MAX_TABLE_ID_CHARS = 40
"""The id column's width (`store.tables`)."""
MIN_START_TIMEOUT_S = 0.1
"""The shortest wait for players a table may be created with."""
ABORT_ATTEMPTS = 3
"""Tries of an abort that fails for a cause other than a lost connection, before the table is
left to the lease rounds (`TableService.settle_unsettled`)."""
ABORT_RETRY_S = 0.2
"""The wait before the second try (then twice that, ...)."""
SETTLE_ROUNDS = 30
"""Lease rounds that retry one parked abort (`TableService.settle_unsettled`) before this
process gives up on it: logged once at CRITICAL, kept in `unsettled` and listed by
`/healthz` (``aborts_given_up``), its row and stakes left exactly as stored; only an
operator's abort (or a restart) tries it again. A database that refuses an abort this long
needs a person, not another retry."""


class LaunchFailed(RuntimeError):
    """A running table's game or one of its seats could not be built: it cannot play. The
    message is public (the aborted table's `results.detail`): no paths, no secrets."""


def seat_aliases(game: Game) -> list[str]:
    """The game's public names by seat (`game.aliases` when it has them)."""
    aliases = getattr(game, "aliases", None)
    if isinstance(aliases, list | tuple) and len(aliases) == game.num_seats:
        return [str(a) for a in aliases]
    return [f"seat {i}" for i in range(game.num_seats)]


def check_house_rake(catalog: Catalog, settings: Settings) -> None:
    """`Settings.rake_bps` within the rake option of every served game with paid tables, at
    start: a player's paid table must not be refused for the operator's setting."""
    if settings.rake_bps is None:
        return
    for info in catalog.available():
        if info.paid_tables is not None:
            field = info.paid_tables.rake_field
            try:
                validate_options(info.options, {field: settings.rake_bps})
            except ConfigError as exc:  # "rake_bps must be … (got 3000)", said of the setting
                must = str(exc)[len(field):].split(" (got ")[0]
                raise ConfigError("rake_bps", f"rake_bps{must} for {info.name}, whose paid "
                                              "tables take the house's rake (got "
                                              f"{settings.rake_bps})") from None


class TableService:
    def __init__(self, store: Store, catalog: Catalog, settings: Settings) -> None:
        self.store = store
        self.catalog = catalog
        self.settings = settings
        self.live: dict[str, LiveTable] = {}
        self.rooms: dict[str, Room] = {}
        self.list_reads = SharedReads(ttl_s=0.5)
        """`GET /tables`, computed at most twice a second (server/cache.py)."""
        self.lock = KeyedLocks()
        """`async with self.lock(table_id):` — one change of a table at a time."""
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self.unsettled: dict[str, tuple[dict[str, Any], str, int | None, tuple[str, ...]]] = {}
        """Tables whose abort could not be stored: row, detail, culprit, states (retried at
        each lease round, `settle_unsettled`)."""
        self.settle_rounds: dict[str, int] = {}
        """Table id -> lease rounds that retried its parked abort (`SETTLE_ROUNDS`)."""
        self.given_up: dict[str, str] = {}
        """Parked aborts no lease round retries any more: table id -> the last refusal."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self.node_id = secrets.token_hex(8)
        store.node_id = self.node_id
        self.mirrors: dict[str, Any] = {}  # table id -> mirror.Mirror (spectators elsewhere)
        self.reclaims: dict[tuple[str, int], int] = {}
        """(table id, seat) -> how often this process saw it taken back (reclaim.py)."""
        self.listen_gaps = 0
        """How often this process's LISTEN connection came back after a loss (notify.py):
        a seat socket let in across one has its token checked again (reclaim.py)."""
        self.lobby = LobbyFeed(self)
        self.finish_hooks: builtins.list[Callable[[Connection, LiveTable, EpisodeOutcome],
                                                  None]] = []
        """Run inside the transaction that marks a table finished (the league's ratings)."""
        self.document_guards: builtins.list[Callable[[Connection, str], str | None]] = []
        """Each says why an ended table's results and replay are not served yet, or None (the
        league: a season table a held-out agent sat at, until the season ends)."""

    def _announce(self, conn: Connection, table_id: str) -> None:
        """In a transaction that changes what the Lobby shows of a table: tell every process
        at the commit (PostgreSQL; a start, end or abort sends its ``state:`` notice instead)."""
        if self.store.is_postgres:
            notify(conn, f"lobby:{table_id}")

    def _announced(self, table_id: str) -> None:
        """After that commit: push the table to this process's Lobby sockets (SQLite; on
        PostgreSQL the notice reaches this process too, like every other)."""
        self.list_reads.clear()  # the next GET /tables reads it
        if not self.store.is_postgres:
            self.lobby.changed([table_id])

    def room(self, row: dict[str, Any]) -> Room:
        """The table's room (created on first use for an open or running table)."""
        room = self.rooms.get(row["id"])
        if room is None:
            info = loads(row["info"])
            room = Room(row["id"], row["game"], self.catalog.get(row["game"]).version,
                        info["aliases"], info["public_config"], row["state"],
                        exhibition=bool(info.get("exhibition")),
                        secrets=self.catalog.get(row["game"]).spectator_secrets)
            self.rooms[row["id"]] = room
        return room

    # -- reading ----------------------------------------------------------------------------
    async def row(self, table_id: str, wait_s: float | None = None
                  ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        if text_fault(table_id) is not None:  # no id holds a NUL (PostgreSQL cannot even look)
            raise ApiError(404, "not_found", f"table {table_id!r} does not exist")
        def read(conn: Connection) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
            return table_row(conn, table_id), seat_rows(conn, table_id)

        if len(table_id) > MAX_TABLE_ID_CHARS:  # no such id was ever made: no query
            raise ApiError(404, "not_found", f"table {table_id[:40]!r}… does not exist")
        row, seat_list = await self.store.tx(read, wait_s=wait_s)
        if row is None:
            raise ApiError(404, "not_found", f"table {table_id!r} does not exist")
        return row, seat_list

    def describe(self, row: dict[str, Any], seat_list: list[dict[str, Any]]) -> dict[str, Any]:
        """The public face of a table: no tokens, no accounts, no policy names."""
        info = loads(row["info"]) if "info" in row else {}
        aliases = info.get("aliases", [])
        taken = {s["seat"] for s in seat_list}
        people = {s["seat"] for s in seat_list if s.get("kind") == "human"}
        doc: dict[str, Any] = {
            "id": row["id"], "game": row["game"], "variant": row["variant"],
            "state": row["state"], "stake": row["stake"], "fill_with": row["fill_with"],
            "auto_start": row["auto_start"], "num_seats": row["num_seats"],
            "config": info.get("public_config", {}),
            "seats": [{"seat": i, "alias": aliases[i] if i < len(aliases) else None,
                       "taken": i in taken, "person": i in people}
                      for i in range(row["num_seats"])],
            "created_at": row["created_at"], "start_deadline": row["start_deadline"],
            "started_at": row.get("started_at"), "finished_at": row.get("finished_at"),
            "reason": row.get("reason"), "exhibition": bool(info.get("exhibition"))}
        live = self.live.get(row["id"])
        if live is not None:
            doc["rounds_played"] = live.game.rounds_played
        return doc

    async def list(self, state: str | None) -> list[dict[str, Any]]:
        """The `LIST_LIMIT` newest tables (in `state`)."""
        return (await self.page(state))["tables"]

    async def page(self, state: str | None) -> dict[str, Any]:
        """`GET /tables`: the `LIST_LIMIT` newest tables (in `state`), and whether older ones
        were left out (`more`), so a long-running server's list never passes for all."""
        def read(conn: Connection) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
            q = select(tables).order_by(tables.c.created_at.desc()).limit(LIST_LIMIT + 1)
            if state is not None:
                q = q.where(tables.c.state == state)
            rows = [dict(r) for r in conn.execute(q).mappings().all()]
            return [(r, seat_rows(conn, r["id"]) if i < LIST_LIMIT else [])
                    for i, r in enumerate(rows)]

        if state is not None and state not in (OPEN, RUNNING, FINISHED, ABORTED):
            raise ApiError(400, "bad_request",
                           f"state must be one of open, running, finished, aborted (got {state!r})")
        found = await self.store.tx(read)
        return {"tables": [self.describe(r, s) for r, s in found[:LIST_LIMIT]],
                "more": len(found) > LIST_LIMIT, "limit": LIST_LIMIT}

    async def withheld(self, table_id: str) -> str | None:
        """Why the table's documents are not served yet (`document_guards`), or None."""
        if not self.document_guards:
            return None

        def read(conn: Connection) -> str | None:
            return next((why for guard in self.document_guards
                         if (why := guard(conn, table_id)) is not None), None)

        return await self.store.tx(read)

    # -- create -----------------------------------------------------------------------------
    async def create(self, account: Account, body: Mapping[str, Any]) -> dict[str, Any]:
        info = self.catalog.get(body.get("game"))  # type: ignore[arg-type]
        variant = body.get("variant")
        if variant is not None and variant not in info.variants:
            raise ApiError(400, "bad_request", f"variant must be one of "
                                               f"{', '.join(info.variants)} (got {variant!r})")
        config = body.get("config") or {}
        if not isinstance(config, dict):
            raise ApiError(400, "bad_request", f"config must be an object (got {config!r})")
        try:
            stake = check_int("stake", body.get("stake", 0), 0, 10**9)
            seed = body.get("seed")
            if seed is None:  # the variant's own seed where its rules fix one, else a draw
                seed = info.fixed_by_variant.get(variant or "", {}).get("seed", random_seed())
            seed = check_int("seed", seed, 0, SEED_MAX)
            timeout_s = check_number("start_timeout_s",
                                     body.get("start_timeout_s", self.settings.start_timeout_s),
                                     MIN_START_TIMEOUT_S, self.settings.max_start_timeout_s)
            fill_with = body.get("fill_with")
            if fill_with is not None:
                check_str("fill_with", fill_with, MAX_NAME_CHARS, 1)
            auto_start = bool(body.get("auto_start", False))
            exhibition = bool(body.get("exhibition", False))
            pacing = bool(body.get("pacing", True))
        except ConfigError as exc:
            raise config_error(exc) from None
        chosen = set(config)  # a null value too: the creator chose the variant's default
        try:  # a null value means the variant's default
            config = validate_options(info.options, config, section=f"{info.name} config")
        except ConfigError as exc:
            raise ApiError(400, "bad_request", f"config.{exc}") from None
        if body.get("people"):  # a person's deadlines, unless the creator chose others
            human = validate_options(info.options, info.human_config,
                                     section=f"{info.name} human config")
            config = {**{k: v for k, v in human.items() if k not in chosen}, **config}
        if exhibition and not account.is_operator:
            raise ApiError(403, "forbidden", "exhibition: only the operator makes exhibition "
                                             "tables (policy names shown live)")
        nested = sorted(set(config) - set(scalar_fields(info.options)))
        if nested:
            raise ApiError(400, "bad_request", f"config.{nested[0]}: a table takes one-value "
                                               "options only (set lists and objects in a league "
                                               "file)")
        if info.paid_tables is not None and info.paid_tables.stake_field in config:
            raise ApiError(400, "bad_request", f"config.{info.paid_tables.stake_field}: set a "
                                               "table's stake with its top-level stake field")
        if stake:
            if info.paid_tables is None:
                paid = [d.name for d in self.catalog.available() if d.paid_tables is not None]
                raise ApiError(400, "bad_request", f"stake: paid tables are offered for "
                                                   f"{', '.join(paid) or 'no game'} only")
            if fill_with is not None:
                raise ApiError(400, "bad_request", "fill_with: a paid table needs every seat "
                                                   "staked; fillers are for free tables")
            config = {**config, info.paid_tables.stake_field: stake}
        if stake:
            config = self._house_rake(account, info, variant, config, seed)
        probe = probe_game(info, variant, config, seed)
        if fill_with is not None:
            check_baseline(info, probe, fill_with, "fill_with")
        table_id = "t_" + secrets.token_hex(8)
        created = now()
        row = {"id": table_id, "game": info.name, "variant": variant,
               "config": jsonio.dumps(config), "seed": seed, "stake": stake,
               "fill_with": fill_with, "auto_start": auto_start, "pacing": pacing,
               "num_seats": probe.num_seats, "state": OPEN, "creator_id": account.id,
               "created_at": created, "start_deadline": created + timeout_s,
               "info": jsonio.dumps({"aliases": seat_aliases(probe),
                                     "public_config": probe.public_config(),
                                     **({"exhibition": True} if exhibition else {})})}
        limit = self.settings.max_open_tables_per_account

        def write(conn: Connection) -> None:
            if table_row(conn, table_id) is not None:  # a random id: this very write,
                return  # committed before its connection was lost
            count = conn.execute(select(func.count()).select_from(tables).where(
                tables.c.creator_id == account.id, tables.c.state == OPEN)).scalar_one()
            if count >= limit and not account.is_operator:
                raise ApiError(429, "rate_limited",
                               f"an account may hold at most {limit} open tables")
            conn.execute(insert(tables).values(**row))
            self._announce(conn, table_id)

        await self.store.tx(write)
        self._announced(table_id)
        self.room(row)
        self.schedule_timeout(table_id, created + timeout_s)  # row["start_deadline"]
        return self.describe(row, [])

    def _house_rake(self, account: Account, info: GameDescriptor, variant: str | None,
                    config: dict[str, Any], seed: int) -> dict[str, Any]:
        """A paid table's config with the house's rake: the operator's
        `Settings.rake_bps`, else the game's own default. The operator may set another per
        table; a player's table takes the house's, and a player who asks for another rake is
        refused (403, naming the field): the rake is the house's share of the players' pot."""
        assert info.paid_tables is not None  # a paid table's game offers them (checked above)
        field = info.paid_tables.rake_field
        if field in config and account.is_operator:
            return config
        house = self.settings.rake_bps
        if house is None:
            base = {k: v for k, v in config.items() if k != field}
            house = int(probe_game(info, variant, base, seed).public_config()[field])
        asked = config.get(field)
        if asked is not None and asked != house:
            raise ApiError(403, "forbidden",
                           f"config.{field}: the rake is the house's, set by the operator: "
                           f"this server takes {house} on {info.name} tables; leave "
                           f"{field} out (got {asked!r})")
        return {**config, field: house} if self.settings.rake_bps is not None else config

    def game_of(self, row: dict[str, Any], seat_list: builtins.list[dict[str, Any]] | None = None
                ) -> Game:
        """The table's game: a probe while open, the real line-up once seats are known."""
        return game_of(self.catalog, row, seat_list)

    # -- join / leave -------------------------------------------------------------------------
    async def join(self, account: Account, table_id: str, body: Mapping[str, Any]
                   ) -> dict[str, Any]:
        kind = body.get("kind", "remote")
        if kind not in SEAT_KINDS:
            raise ApiError(400, "bad_request",
                           f"kind must be one of {', '.join(SEAT_KINDS)} (got {kind!r})")
        async with self.lock(table_id):
            row, seat_list = await self.row(table_id)
            if row["state"] != OPEN:
                raise ApiError(409, "wrong_state", f"table {table_id} is {row['state']}; "
                                                   "seats are taken while it is open")
            if any(s["account_id"] == account.id for s in seat_list):
                raise ApiError(409, "already_seated", "this account already holds a seat here")
            taken = {s["seat"] for s in seat_list}
            n = row["num_seats"]
            wanted = body.get("seat")  # None: the first seat free when the join commits
            if wanted is None:
                if len(taken) >= n:
                    raise ApiError(409, "table_full", f"all {n} seats are taken")
            elif isinstance(wanted, bool) or not isinstance(wanted, int) \
                    or not 0 <= wanted < n:
                raise ApiError(400, "bad_request", f"seat must be an integer in 0..{n - 1} "
                                                   f"(got {wanted!r})")
            elif wanted in taken:
                raise ApiError(409, "table_full", f"seat {wanted} is taken")
            fields = seat_fields(self.catalog, self.settings, row, account, kind, body)
            token = new_seat_token()
            token_digest = digest(token)
            record = {"table_id": table_id, "account_id": account.id, "kind": kind,
                      "token_digest": token_digest, "joined_at": now(), **fields}
            stake = row["stake"]

            def write(conn: Connection) -> tuple[int, bool]:
                """Insert the seat and hold its stake; returns the seat and whether the table
                is full now. The seats are read again under the table's row lock: a join on
                another process may have committed since the read above (the first free seat
                then is another; the table may be full with this join)."""
                mine = _seat_of_token(conn, table_id, token_digest)
                if mine is not None:  # this very write, committed before its connection
                    return mine, len(seat_rows(conn, table_id)) == n  # was lost
                _lock_open(conn, table_id)
                seated = seat_rows(conn, table_id)
                if any(s["account_id"] == account.id for s in seated):
                    raise ApiError(409, "already_seated",
                                   "this account already holds a seat here")
                now_taken = {s["seat"] for s in seated}
                if wanted is not None and wanted in now_taken:
                    raise ApiError(409, "table_full", f"seat {wanted} was just taken")
                chosen = wanted if wanted is not None else next(
                    (i for i in range(n) if i not in now_taken), None)
                if chosen is None:
                    raise ApiError(409, "table_full", f"all {n} seats are taken")
                conn.execute(insert(seats).values(seat=chosen, **record))
                if stake:
                    n_holds = wallets.holds_count(conn, table_id, account.id)
                    wallets.apply(conn, settlement.stake_hold(
                        table_id, wallets.ledger_name(account.id), stake, n_holds))
                self._announce(conn, table_id)
                return chosen, len(now_taken) + 1 == n

            try:
                seat, full = await self.store.tx(write)
            except IntegrityError:  # another process seated it or this account first
                raise ApiError(409, "table_full", "the seat was just taken") from None
            self._announced(table_id)
        info = loads(row["info"])
        if row["auto_start"] and full:
            self._spawn(self._auto_start(table_id))
        return {"table": table_id, "seat": seat, "alias": info["aliases"][seat], "token": token,
                "kind": kind, "note": fields.get("note")}

    async def leave(self, account: Account, table_id: str) -> dict[str, Any]:
        async with self.lock(table_id):
            row, seat_list = await self.row(table_id)
            mine = [s for s in seat_list if s["account_id"] == account.id]
            if not mine:
                raise ApiError(404, "not_found", "this account holds no seat at this table")
            if row["state"] != OPEN:
                raise ApiError(409, "wrong_state", f"table {table_id} is {row['state']}; "
                                                   "seats are given back only before the start")
            seat = mine[0]["seat"]
            stake = row["stake"]

            def write(conn: Connection) -> int:
                """Give back the seat this account holds now (read again under the row lock:
                a leave on another process may have given it back since, and someone else
                taken it); none left means that leave, or this very write before a lost
                commit answer, gave it back and released its stake already."""
                _lock_open(conn, table_id)
                held: int | None = conn.execute(select(seats.c.seat).where(
                    seats.c.table_id == table_id, seats.c.account_id == account.id)
                ).scalar_one_or_none()
                if held is None:
                    return seat
                conn.execute(delete(seats).where(seats.c.table_id == table_id,
                                                 seats.c.seat == held))
                if stake:
                    n_holds = wallets.holds_count(conn, table_id, account.id)
                    wallets.apply(conn, settlement.stake_release(
                        table_id, wallets.ledger_name(account.id), stake, n_holds - 1))
                self._announce(conn, table_id)
                return held

            seat = await self.store.tx(write)
            self._announced(table_id)
        return {"table": table_id, "seat": seat, "released": stake}

    # -- start -----------------------------------------------------------------------------------
    async def start(self, account: Account | None, table_id: str) -> dict[str, Any]:
        async with self.lock(table_id):
            row, seat_list = await self.row(table_id)
            if account is not None and not account.is_operator \
                    and account.id != row["creator_id"]:
                raise ApiError(403, "forbidden", "only the table's creator or the operator "
                                                 "may start it")
            if row["state"] != OPEN:
                raise ApiError(409, "wrong_state", f"table {table_id} is {row['state']}")
            n = row["num_seats"]
            taken = {s["seat"] for s in seat_list}
            fill = row["fill_with"]
            if len(taken) < n and fill is None:
                raise ApiError(409, "wrong_state", f"{len(taken)} of {n} seats are taken; "
                                                   "fill them or create the table with fill_with")
            fillers = [{"table_id": table_id, "seat": i, "account_id": None, "kind": "scripted",
                        "policy_name": fill, "baseline": fill, "token_digest": "",
                        "joined_at": now()} for i in range(n) if i not in taken]
            started = now()

            lease = self.lease_values()

            def write(conn: Connection) -> list[dict[str, Any]]:
                done = conn.execute(update(tables).where(tables.c.id == table_id,
                                                         tables.c.state == OPEN)
                                    .values(state=RUNNING, started_at=started, **lease))
                if done.rowcount != 1:
                    if _started_at(conn, table_id) != started:
                        raise ApiError(409, "wrong_state", f"table {table_id} was just started")
                    # else this very write, committed before its connection was lost
                elif fillers:
                    conn.execute(insert(seats), fillers)
                now_seated = seat_rows(conn, table_id)
                if len(now_seated) != n:  # a leave committed elsewhere since the read
                    raise ApiError(409, "wrong_state", f"table {table_id}: a seat was given "
                                                       "back while starting; "
                                                       f"{len(now_seated)} of {n} are taken")
                if self.store.is_postgres:
                    notify(conn, f"state:{table_id}")
                return now_seated

            try:
                seat_list = await self.store.tx(write)
            except IntegrityError:
                raise ApiError(409, "wrong_state", f"table {table_id}: a seat was taken while "
                                                   "starting; start it again") from None
            row = {**row, "state": RUNNING, "started_at": started, **lease}
            self._announced(table_id)
            self._cancel_timer(table_id)
            if not await self.launch_or_abort(row, seat_list):
                row, seat_list = await self.row(table_id)
        return self.describe(row, seat_list)

    async def _auto_start(self, table_id: str) -> None:
        try:
            await self.start(None, table_id)
        except ApiError as exc:
            log.info("table %s: auto-start skipped (%s)", table_id, exc.message)

    def lease_values(self) -> dict[str, Any]:
        """The lease columns of a table this process runs from now on (leases.py)."""
        return {"owner": self.node_id, "owner_url": self.settings.node_url,
                "lease_until": now() + self.settings.lease_ttl_s}

    async def launch_or_abort(self, row: dict[str, Any],
                              seat_list: builtins.list[dict[str, Any]],
                              replayed: tuple[Game, EpisodeLog] | None = None,
                              elapsed_s: float = 0.0) -> bool:
        """`launch` a table this process just started or took over; when its game or a seat
        cannot be built (`LaunchFailed`), or anything else keeps it from running, abort it at
        once and refund every stake — else it would stay running, its stakes held and its
        lease renewed, with nothing playing."""
        try:
            self.launch(row, seat_list, replayed, elapsed_s)
            return True
        except Exception as exc:
            why = str(exc) if isinstance(exc, LaunchFailed) else \
                f"the table could not be set up ({type(exc).__name__})"
            detail = f"could not {'resume' if replayed else 'start'}: {why}"
            log.warning("table %s: %s; aborting it", row["id"], detail,
                        exc_info=exc.__cause__ or exc)
            self.live.pop(row["id"], None)  # in case its runner was built but never ran
            await self._abort_running({**row, "state": RUNNING}, None, detail,
                                      states=(RUNNING,))
            return False

    def launch(self, row: dict[str, Any], seat_list: builtins.list[dict[str, Any]],
               replayed: tuple[Game, EpisodeLog] | None, elapsed_s: float = 0.0) -> LiveTable:
        """Build the live table and run it (from the start, or after a replayed log, with
        the play time already spent)."""
        try:
            game = replayed[0] if replayed is not None else self.game_of(row, seat_list)
        except Exception as exc:
            raise LaunchFailed(f"the game could not be built ({type(exc).__name__})") from exc
        live = LiveTable(self.room(row), game, self.store, pacing=bool(row.get("pacing", True)),
                         elapsed_s=elapsed_s)
        live.row, live.seat_list = row, seat_list
        live.connect = connect_wait(self.catalog.get(row["game"]), game)
        runner_seats = []
        for s in sorted(seat_list, key=lambda s: s["seat"]):
            try:
                runner_seats.append(make_runner_seat(game, s, live.room.channels[s["seat"]],
                                                     self.settings,
                                                     self.catalog.get(row["game"])))
            except Exception as exc:  # a policy file gone, a model seat's client, ...
                raise LaunchFailed(f"seat {s['seat']} ({s['kind']}) could not be made "
                                   f"({type(exc).__name__})") from exc
        if replayed is not None:
            live.restore(replayed[1])
        self.live[row["id"]] = live
        live.run(runner_seats, replayed[1] if replayed else None, self._finished)
        return live

    # -- end ---------------------------------------------------------------------------------------
    async def _finished(self, live: LiveTable, outcome: EpisodeOutcome | None,
                        error: BaseException | None) -> None:
        """The runner returned: store results, replay and the settlement in ONE transaction,
        then tell every seat and spectator, then feed the league. Under the table's lock, so
        an operator's abort racing the last step sees either a running or a finished table."""
        async with self.lock(live.id):
            await self._finish_locked(live, outcome, error)

    async def _finish_locked(self, live: LiveTable, outcome: EpisodeOutcome | None,
                             error: BaseException | None) -> None:
        table_id = live.id
        if outcome is None or live.row is None:
            row, seat_list = await self.row(table_id, wait_s=FOREVER)
            if row["state"] != RUNNING or row.get("owner") not in (None, self.node_id):
                self.forget(table_id)  # ended elsewhere, or another process runs it now
                return
            if outcome is None:
                await self._abort_running(row, live, forfeit.public_detail(error),
                                          forfeit.offender(error))
                return
        else:  # what the table was launched with (fixed while it runs): no read back; an end
            # or a take-over elsewhere meanwhile makes `_store_end`'s conditional write refuse
            row, seat_list = live.row, live.seat_list
        try:
            finished = await self._store_end(live, row, seat_list, outcome)
        except LeaseLost:
            self.forget(table_id)
            return
        except Exception as exc:  # not a lost connection (the store retries those): a
            # constraint, a bug; else the table would stay running, its stakes held forever
            log.exception("table %s: its end could not be stored; aborting it", table_id)
            await self._abort_running(row, live, f"error: the end of the table could not be "
                                                 f"stored ({type(exc).__name__})",
                                      states=(RUNNING,))
            return
        results = outcome.results
        reason = results.get("reason") or "complete"
        self._announced(table_id)
        live.room.end(reason, results)
        self.live.pop(table_id, None)
        self.rooms.pop(table_id, None)
        if self.settings.record_league:
            self._spawn(record_league(self.store, row, seat_list, results, finished))

    async def _store_end(self, live: LiveTable, row: dict[str, Any],
                         seat_list: builtins.list[dict[str, Any]],
                         outcome: EpisodeOutcome) -> float:
        """Results, replay and the whole settlement in one transaction, conditional on this
        process still running the table (`LeaseLost` if not); returns its `finished_at`."""
        table_id = live.id
        results = outcome.results
        reason = results.get("reason") or "complete"
        try:
            replay: dict[str, Any] | None = live.game.replay_document(outcome.log)
        except NotImplementedError:
            replay = None
        entries = finish_entries(self.catalog, row, seat_list, results, reason)
        finished = now()
        node = self.node_id

        def write(conn: Connection) -> None:
            # The state change first: it locks the row, so a racing abort elsewhere waits and
            # then finds the table finished (no refund on top of the payouts).
            done = conn.execute(update(tables).where(
                tables.c.id == table_id, tables.c.state == RUNNING,
                (tables.c.owner == node) | tables.c.owner.is_(None)).values(
                state=FINISHED, finished_at=finished, reason=reason,
                results=jsonio.dumps(results),
                replay=None if replay is None else jsonio.dumps(replay)))
            if done.rowcount != 1:
                if _finished_at(conn, table_id) == finished:
                    return  # this very write, committed before its connection was lost
                raise LeaseLost(table_id)
            wallets.apply_all(conn, entries)
            for hook in self.finish_hooks:
                hook(conn, live, outcome)
            if self.store.is_postgres:
                notify(conn, f"state:{table_id}")

        await self.store.tx(write, wait_s=FOREVER)
        return finished

    # -- abort -------------------------------------------------------------------------------------
    async def abort(self, table_id: str, detail: str = "operator",
                    states: tuple[str, ...] = (OPEN, RUNNING)) -> dict[str, Any]:
        """Abort the table if it is in one of `states` (the start timeout: open only)."""
        async with self.lock(table_id):
            row, seat_list = await self.row(table_id)
            if row["state"] not in states:
                raise ApiError(409, "wrong_state", f"table {table_id} is {row['state']}")
            live = self.live.get(table_id)
            if live is not None and live.task is not None:
                live.task.cancel()
            if not await self._abort_running(row, live, detail, states=states):
                raise ApiError(409, "wrong_state", f"table {table_id}: its abort could not be "
                                                   "stored yet; the server tries again at each "
                                                   "lease round")
            row, seat_list = await self.row(table_id)
        return self.describe(row, seat_list)

    async def _abort_running(self, row: dict[str, Any], live: LiveTable | None, detail: str,
                             culprit: int | None = None,
                             states: tuple[str, ...] = (OPEN, RUNNING)) -> bool:
        """Refund every stake (no rake) and mark the table aborted, in one transaction; a
        seat that caused the abort of a running table forfeits instead (`forfeit.py`).

        A failure that is not a lost connection (the store waits those out) is tried again
        `ABORT_ATTEMPTS` times; then the table is parked in `unsettled`, no longer run here,
        and every lease round tries again (`settle_unsettled`) — else it would stay running
        with its stakes held and its lease renewed for ever. False when parked."""
        table_id = row["id"]
        culprit = culprit if row["state"] == RUNNING else None
        for attempt in range(ABORT_ATTEMPTS):
            try:
                await self._write_abort(row, detail, culprit, states)
                self._settled(table_id)
                return True
            except LeaseLost:
                raise
            except Exception:
                log.exception("table %s: its abort could not be stored (try %d of %d)",
                              table_id, attempt + 1, ABORT_ATTEMPTS)
                if attempt + 1 < ABORT_ATTEMPTS:
                    await asyncio.sleep(ABORT_RETRY_S * (attempt + 1))
        log.error("table %s: left for the lease rounds to abort (its stakes stay held until "
                  "then)", table_id)
        self.unsettled[table_id] = (row, detail, culprit, states)
        self._cancel_timer(table_id)
        if live is not None and live.task is not None and live.task is not asyncio.current_task():
            live.task.cancel()
        self.live.pop(table_id, None)
        return False

    async def settle_unsettled(self, mine: set[str]) -> None:
        """One lease round's retry of the aborts `_abort_running` could not store. A running
        table this process no longer holds (`mine`: its leases) is left to its new owner."""
        for table_id, (row, detail, culprit, states) in builtins.list(self.unsettled.items()):
            if row["state"] == RUNNING and table_id not in mine:
                self._settled(table_id)
                continue
            if table_id in self.given_up:  # `SETTLE_ROUNDS` refusals: left to an operator
                continue
            async with self.lock(table_id):
                if table_id not in self.unsettled:
                    continue
                try:
                    now_row, _ = await self.row(table_id)
                    if now_row["state"] not in states:  # started or ended meanwhile: it is
                        self._settled(table_id)  # what it is now (not forgotten
                        continue  # here: this process may run it)
                    await self._write_abort(row, detail, culprit, states)
                except Exception as exc:
                    self._refused(table_id, exc)
                    continue
                self._settled(table_id)
                log.warning("table %s: aborted by a lease round", table_id)

    def _refused(self, table_id: str, exc: Exception) -> None:
        """One more lease round whose retry of a parked abort failed; at `SETTLE_ROUNDS` the
        abort is given up on, loudly and once."""
        rounds = self.settle_rounds[table_id] = self.settle_rounds.get(table_id, 0) + 1
        reason = f"{type(exc).__name__}: {exc}"
        if rounds < SETTLE_ROUNDS:
            throttle.warn(("abort", table_id), "table %s: its abort still cannot be stored "
                          "(lease round %d of %d; %s)", table_id, rounds, SETTLE_ROUNDS, reason)
            return
        self.given_up[table_id] = reason
        log.critical("table %s: its abort was refused by the database %d lease rounds running "
                     "(%s); no longer retried: the table and its held stakes stay as stored, "
                     "listed by /healthz (aborts_given_up) until an operator aborts it "
                     "(POST /tables/%s/abort) once the database accepts it", table_id,
                     rounds, reason, table_id)

    def _settled(self, table_id: str) -> None:
        """A parked abort that is stored now, or no longer this process's to store."""
        self.unsettled.pop(table_id, None)
        self.settle_rounds.pop(table_id, None)
        self.given_up.pop(table_id, None)

    async def _write_abort(self, row: dict[str, Any], detail: str, culprit: int | None,
                           states: tuple[str, ...]) -> None:
        """The abort's one transaction, then telling this process's seats and spectators."""
        table_id = row["id"]
        results: dict[str, Any] = {"reason": "aborted", "detail": detail}
        if culprit is not None:
            results["forfeit"] = culprit
        ended = now()

        def write(conn: Connection) -> bool:
            done = conn.execute(update(tables).where(tables.c.id == table_id,
                                                     tables.c.state.in_(states)).values(
                state=ABORTED, finished_at=ended, reason="aborted",
                results=jsonio.dumps(results)))
            if done.rowcount != 1:  # this very write, committed before its connection was
                # lost; else it started or ended meanwhile (here or on another process)
                return _finished_at(conn, table_id) == ended
            # The seats as of now (the row is locked): a join committed on another process
            # since the caller read the table holds a stake too.
            entries = forfeit.abort_entries(table_id, row["stake"], seat_rows(conn, table_id),
                                            culprit)
            entries_now = [e for e in entries if e.kind != settlement.REFUND
                           or wallets.held_by(conn, table_id, int(e.account)) >= e.amount]
            wallets.apply_all(conn, entries_now)
            if self.store.is_postgres:
                notify(conn, f"state:{table_id}")
            return True

        if not await self.store.tx(write, wait_s=FOREVER):
            self._cancel_timer(table_id)  # it started or ended on another process meanwhile:
            self.forget(table_id)  # its seats here reconnect to what it is now
            return
        self._announced(table_id)
        self._cancel_timer(table_id)
        self.live.pop(table_id, None)
        room = self.rooms.pop(table_id, None)
        if room is not None:
            room.end("aborted", results)

    # -- start timeouts ----------------------------------------------------------------------------
    def schedule_timeout(self, table_id: str, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        delay = max(0.0, deadline - time.time())
        self._cancel_timer(table_id)
        self._timers[table_id] = loop.call_later(
            delay, lambda: self._spawn(self._start_timeout(table_id)))

    def _cancel_timer(self, table_id: str) -> None:
        timer = self._timers.pop(table_id, None)
        if timer is not None:
            timer.cancel()

    async def _start_timeout(self, table_id: str) -> None:
        self._timers.pop(table_id, None)
        try:
            row, _ = await self.row(table_id)
            if row["state"] == OPEN:
                await self.abort(table_id, "start timeout", states=(OPEN,))
        except ApiError:
            return

    async def seat_home(self, row: dict[str, Any]) -> str | None:
        """Where a seat of this running table is served: another process's URL, or None
        when this process runs it (taking over a lapsed lease on the spot)."""
        table_id = row["id"]
        if table_id in self.live:
            return None
        held = row.get("lease_until") is not None and row["lease_until"] >= now()
        if held and row.get("owner") != self.node_id and row.get("owner_url"):
            return str(row["owner_url"])
        if not held and await self.store.tx(claim, table_id, self.lease_values()):
            if await resume(self, table_id):
                log.warning("table %s: lease taken over by this process (a seat asked)",
                            table_id)
            return None
        fresh, _ = await self.row(table_id)
        if fresh.get("owner") != self.node_id and fresh.get("owner_url") \
                and (fresh.get("lease_until") or 0) >= now():
            return str(fresh["owner_url"])
        return None

    # -- other processes (PostgreSQL NOTIFY, notify.py) -----------------------------------------
    def on_notice(self, payload: str) -> None:
        kind, _, rest = payload.partition(":")
        if kind != "log":
            self.list_reads.clear()
        if kind == "log":
            for table_id in rest.split(","):
                mirror = self.mirrors.get(table_id)
                if mirror is not None:
                    mirror.poke()
        elif kind == "state":
            self.lobby.changed([rest])
            self._spawn(self._on_state(rest))
        elif kind == "lobby":
            self.lobby.changed(rest.split(","))
        elif kind == "seat":  # a seat taken back with a new token: its old socket closes
            reclaim.count(self, rest)
            self._spawn(reclaim.heard(self, rest))

    def listen_resumed(self) -> None:
        """This process's LISTEN connection is back after a loss: a ``seat:`` notice sent
        meanwhile was missed, so every open seat socket's token is checked again."""
        self.listen_gaps += 1
        self._spawn(reclaim.recheck_all(self))

    async def _on_state(self, table_id: str) -> None:
        """A table started, ended or changed owner somewhere: follow it here. A process that
        holds nothing of the table (no room, live table, start timer or mirror) has nothing
        to follow and reads nothing: every process hears every table's notices."""
        if not (table_id in self.live or table_id in self.rooms or table_id in self._timers
                or table_id in self.mirrors):
            return
        try:
            row, _ = await self.row(table_id)
        except ApiError:
            return
        mine = row.get("owner") == self.node_id
        if row["state"] in (FINISHED, ABORTED):
            live = self.live.pop(table_id, None)
            if live is not None and live.task is not None:
                live.task.cancel()
            self._cancel_timer(table_id)
            room = self.rooms.pop(table_id, None)
            if room is not None and room.state not in (FINISHED, ABORTED):
                room.end(row["reason"], loads(row["results"]))
        elif row["state"] == RUNNING and not mine:
            self._cancel_timer(table_id)
            self.forget(table_id)
        mirror = self.mirrors.get(table_id)
        if mirror is not None:
            mirror.poke()

    def forget(self, table_id: str) -> None:
        """Stop running a table here without touching the database (it ended on another
        process, or another process holds its lease now): its seats reconnect there."""
        live = self.live.pop(table_id, None)
        if live is not None and live.task is not None and live.task is not asyncio.current_task():
            live.task.cancel()
        room = self.rooms.pop(table_id, None)
        if room is not None:
            room.moved()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def shutdown(self) -> None:
        """Stop every table here; their leases are let go at once, so on PostgreSQL another
        process takes them over at its next lease round instead of after the TTL."""
        for timer in self._timers.values():
            timer.cancel()
        node = self.node_id

        def release(conn: Connection) -> None:
            conn.execute(update(tables).where(tables.c.owner == node, tables.c.state == RUNNING)
                         .values(lease_until=0.0))
        for live in list(self.live.values()):
            if live.task is not None:
                live.task.cancel()
        for live in list(self.live.values()):
            if live.task is not None:
                await asyncio.gather(live.task, return_exceptions=True)
        try:
            await self.store.tx(release)
        except Exception:
            log.exception("could not release this process's leases")


def _seat_of_token(conn: Connection, table_id: str, token_digest: str) -> int | None:
    """The seat a join with this token wrote, if it committed."""
    seat: int | None = conn.execute(select(seats.c.seat).where(
        seats.c.table_id == table_id, seats.c.token_digest == token_digest)
    ).scalar_one_or_none()
    return seat


def _started_at(conn: Connection, table_id: str) -> float | None:
    return conn.execute(select(tables.c.started_at).where(tables.c.id == table_id)
                        ).scalar_one_or_none()


def _finished_at(conn: Connection, table_id: str) -> float | None:
    return conn.execute(select(tables.c.finished_at).where(tables.c.id == table_id)
                        ).scalar_one_or_none()


def _lock_open(conn: Connection, table_id: str) -> None:
    """Lock the table's row for this transaction and check it is still open (a start on
    another process may have won the race since it was read)."""
    state = conn.execute(select(tables.c.state).where(tables.c.id == table_id)
                         .with_for_update()).scalar_one_or_none()
    if state != OPEN:
        raise ApiError(409, "wrong_state", f"table {table_id} is {state}; seats change only "
                                           "while it is open")
