"""The standing league inside one server process: its season, agents, sockets and loop.

Every process runs the same loop (every `TICK_S`): renew the presence of the agents whose
socket it holds, hand them the seats the matchmaker gave them (a fresh seat token each time),
take its share of the season tables nobody runs yet, and — when it holds the matchmaker's lease
(a conditional UPDATE, like a table's) — run one matchmaker tick. Ratings are not here: they
are a finish hook of `TableService`, in the transaction that ends the table (`ratings.py`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import tomllib
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from cogleague.core import jsonio
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError
from cogleague.league.config import LeagueConfig
from cogleague.league.config import load as load_league
from cogleague.league.season import SeasonSettings
from cogleague.server.agents import ACTIVE, RETIRED, AgentBook, socket_fields
from cogleague.server.auth import digest, new_seat_token
from cogleague.server.catalog import Catalog
from cogleague.server.dbretry import Unavailable
from cogleague.server.errors import ApiError
from cogleague.server.every import Every
from cogleague.server.league_schema import (
    agent_presence,
    agents,
    league_leases,
    season_seats,
    seasons,
)
from cogleague.server.live import LiveTable
from cogleague.server.matchmaker import ENDED, RUNNING_PHASE, Matchmaker, SeasonPlan, Slot
from cogleague.server.payouts import book_season, records_league
from cogleague.server.ratings import rate_finished
from cogleague.server.settings import Settings
from cogleague.server.store import RUNNING, accounts, now, seats, tables
from cogleague.server.tables import TableService

log = logging.getLogger("cogleague.server")
TICK_S = 0.25
PRESENCE_TTL_S = 5.0
"""A remote agent whose socket's process stopped renewing is unmatched after this long."""
LEASE_TTL_S = 5.0
SWEEP_EVERY_S = 10.0
OUT_OF_FILE = "no longer in the season file"
"""The reason of a house agent retired because the season's file dropped it (`_retire_house`):
only an agent retired for it comes back when the file names it again."""
UNCLAIMED_S = 2 * TICK_S
"""A fresh season table is shared out (each process takes half); one nobody took this long
is anyone's to take."""


REPLACED = ("agent {name} is now played by another connection (a second `cogleague agent "
            "run`?): this one is no longer matched and stops")
"""The ``replaced`` error frame's message (`LeagueRuntime.attach`)."""


NO_SEASON = ("this server runs no season: agents are registered on a server started with "
             "cogleague serve --season FILE")
"""Why an agent cannot register or connect here: nothing would ever match it."""

CLOSED_WHY = {
    "final": ("its rated tables are played and the top agents play the frozen final "
              "evaluation (phase final); the standings freeze when it ends"),
    "ended": ("the season has ended and its standings are frozen (phase ended); a new season "
              "starts from a season file with another league.name"),
}
"""What a refusal after the close says of the phase, and what comes next (`open_in`)."""


class AgentLink:
    """One agent socket on this process: the agent and how to send it a frame."""

    def __init__(self, agent_id: int, send: Any, told: dict[str, Any] | None = None,
                 close: Any = None) -> None:
        self.agent_id = agent_id
        self.send = send
        self.close = close
        """Close the socket (code, reason) once its queued frames are out (`attach`)."""
        self.told: dict[str, Any] = told or {}
        """What the socket was last told of its agent (`hello`, then each `changed`)."""
        self.playing: set[str] = set()
        self.since = now()


class LeagueRuntime:
    def __init__(self, service: TableService, config: LeagueConfig | None,
                 config_text: str | None) -> None:
        self.service = service
        self.store = service.store
        self.catalog = service.catalog
        self.settings = service.settings
        self.config = config
        self.config_text = config_text or ""
        self.season: SeasonSettings = (config.season if config and config.season
                                       else SeasonSettings())
        self.id: str | None = config.name if config is not None else None
        self.book = AgentBook(self)
        self.links: dict[int, list[AgentLink]] = {}
        self.matchmaker: Matchmaker | None = None
        self.task: asyncio.Task[None] | None = None
        self.refit: dict[str, Any] = {}
        self.refit_at = 0.0
        self.refit_version = -1
        self.sweeps = Every(SWEEP_EVERY_S, start_due=False)
        self.profile_cache: dict[int, dict[str, Any]] = {}
        self.house_retired: list[str] = []
        self.house_back: list[str] = []
        """The house agents this start retired, and brought back (`_install`; logged)."""
        self.recorded_cache: dict[int, tuple[Any, dict[str, Any]]] = {}
        service.finish_hooks.append(self._rate)
        service.document_guards.append(self._held_out_sat)

    # -- what agents may be ------------------------------------------------------------------
    def game_names(self) -> list[str]:
        return game_names(self.config, self.catalog)

    def slots(self) -> list[Slot]:
        if self.config is None:
            return []
        return [Slot(g.name, v, g.seats[v], dict(g.overrides))
                for g in self.config.games for v in g.variants]

    def allowed_models(self) -> list[str]:
        return allowed_models(self.season, self.settings)

    def check_seat(self, game: str, ref: str) -> None:
        """Build a seat of `ref` at a probe table of each of the season's variants of `game`
        (`ConfigError` naming the mismatch)."""
        from cogleague.seats.factory import make_seat
        from cogleague.server.lineup import build_game

        info = self.catalog.get(game)
        slots = [s for s in self.slots() if s.game == game] or [Slot(game, None, 0)]
        for s in slots:
            make_seat(build_game(info, s.variant, s.overrides, 0, None), 0, ref)

    async def check_open(self) -> None:
        if self.id is None:  # nothing would ever match the agent
            raise ApiError(409, "wrong_state", NO_SEASON)
        await self.store.tx(self.open_in)

    def open_in(self, conn: Connection) -> None:
        """409 unless registration is open; in a write's transaction, the season row read
        locked (as the matchmaker's tick reads it), so the close cannot come in between. A
        write calls it after its agent rows, the order a table's finish locks them in."""
        if self.id is None:
            return
        phase = conn.execute(select(seasons.c.phase).where(seasons.c.id == self.id)
                             .with_for_update()).scalar_one_or_none()
        if phase not in (None, RUNNING_PHASE):
            why = CLOSED_WHY.get(str(phase), f"phase {phase}")
            raise ApiError(409, "wrong_state", f"registration for season {self.id} is closed: "
                                               f"{why}")

    def phase_in(self, conn: Connection) -> str | None:
        """The season's phase (`running`, `final`, `ended`; None: no season, or not begun)."""
        if self.id is None:
            return None
        phase = conn.execute(select(seasons.c.phase).where(seasons.c.id == self.id)
                             ).scalar_one_or_none()
        return None if phase is None else str(phase)

    def hidden_now(self, conn: Connection) -> set[str]:
        """The names kept off every public read: the held-out agents, until the season ends."""
        if self.id is None or not self.season.held_out:
            return set()
        phase = conn.execute(select(seasons.c.phase).where(seasons.c.id == self.id)
                             ).scalar_one_or_none()
        return set() if phase == ENDED else set(self.season.held_out)

    def _held_out_sat(self, conn: Connection, table_id: str) -> str | None:
        """A season table a held-out agent sat at: its results and replay name the agent's
        policy, so they wait for the season's end, as the board and the agent list do."""
        hidden = self.hidden_now(conn)
        if not hidden:
            return None
        sat = conn.execute(select(agents.c.id).join(
            season_seats, season_seats.c.agent_id == agents.c.id).where(
            season_seats.c.table_id == table_id, agents.c.name.in_(hidden)).limit(1)).first()
        return None if sat is None else ("a held-out agent sat at it; its documents are served "
                                         "once the season has ended")

    # -- start and stop ----------------------------------------------------------------------
    async def start(self) -> None:
        if self.config is not None:
            try:
                operator = await self.store.tx(self._install)
            except IntegrityError:  # another process installed the season at the same time
                operator = await self.store.tx(self._install)
            if self.house_retired:
                log.warning("season %s: retired house agent%s %s: %s (their tables, results "
                            "and ratings stay; name them in the file again to bring them "
                            "back)", self.id, "s" * (len(self.house_retired) != 1),
                            ", ".join(self.house_retired), OUT_OF_FILE)
            for name in self.house_back:
                log.warning("season %s: house agent %s is back: in the season file again",
                            self.id, name)
            from cogleague.server.season_board import standings_doc

            assert self.id is not None
            season_id = self.id
            if records_league(self.settings):  # the Observatory's labels of its versions
                try:
                    await book_season(self.store, season_id)
                except Exception:
                    log.exception("season %s: adding its versions to the policy book failed",
                                  season_id)
            self.matchmaker = Matchmaker(
                SeasonPlan(season_id, self.season, self.slots(), self.config.seed, operator,
                           self.store.is_postgres, records_league(self.settings)),
                self.catalog, lambda conn: standings_doc(conn, season_id, reveal=True,
                                                         held_out=self.season.held_out))
        self.task = asyncio.create_task(self._loop(), name="cogleague-league")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        node = self.service.node_id

        def leave(conn: Connection) -> None:
            conn.execute(delete(agent_presence).where(agent_presence.c.node == node))
            conn.execute(update(league_leases).where(league_leases.c.owner == node)
                         .values(until=0.0))
        try:
            await self.store.tx(leave)
        except Exception:
            log.exception("could not let go of the league's presence rows")

    def _install(self, conn: Connection) -> int:
        """The season's row and its baselines (the league file's baseline policies); the
        house agents the file dropped are retired (`_retire_house`), those it names again
        come back."""
        assert self.config is not None
        self.house_retired, self.house_back = [], []  # this transaction's (it may be retried)
        operator = conn.execute(select(accounts.c.id).where(accounts.c.role == "operator")
                                ).scalar_one()
        row = conn.execute(select(seasons.c.config_text, seasons.c.phase).where(
            seasons.c.id == self.id)).first()
        if row is None:
            conn.execute(insert(seasons).values(id=self.id, config_text=self.config_text,
                                                phase=RUNNING_PHASE, started_at=now(),
                                                tables_made=0, final_made=0, version=0))
        elif row.config_text != self.config_text and row.phase != ENDED:
            # this process runs the edited file: /config (the file rerun offline) serves it
            conn.execute(update(seasons).where(seasons.c.id == self.id)
                         .values(config_text=self.config_text))
            log.warning("season %s: the league file changed since the season's last start; "
                        "it runs, and GET /leagues/%s/config serves, the edited file",
                        self.id, self.id)
        elif row.config_text != self.config_text:
            log.warning("season %s has ended: GET /leagues/%s/config keeps the file it ran "
                        "with, not the edited one this process was started with",
                        self.id, self.id)
        ended = row is not None and row.phase == ENDED
        if row is not None and not ended:
            self._retire_house(conn, operator, row.config_text)
        if conn.execute(select(league_leases.c.name).where(league_leases.c.name == self.id)
                        ).first() is None:
            conn.execute(insert(league_leases).values(name=self.id, owner=None, until=0.0))
        for p in self.config.policies:
            if p.kind != "baseline":
                continue
            games = [g.name for g in self.config.games if p.name in g.policies]
            names = {g: p.seat_ref(g) for g in games}
            if len(set(names.values())) != 1:
                raise ConfigError(f"policies.{p.name}", f"policies.{p.name}: a season baseline "
                                  "must have one baseline name for all its games")
            held = conn.execute(select(agents.c.id, agents.c.state, agents.c.reason).where(
                agents.c.name == p.name)).first()
            if held is not None:
                if (held.state, held.reason) == (RETIRED, OUT_OF_FILE) and not ended:
                    conn.execute(update(agents).where(agents.c.name == p.name)
                                 .values(state=ACTIVE, reason=None))
                    self.house_back.append(p.name)
                continue
            conn.execute(insert(agents).values(
                name=p.name, version=1, current=True, account_id=operator, kind="baseline",
                games=json.dumps(games), cap=self.season.max_running, description=p.author,
                state=ACTIVE, baseline=next(iter(names.values())), created_at=now(),
                tokens_used=0))
        return int(operator)

    def _retire_house(self, conn: Connection, operator: int, before: str) -> None:
        """Retire the house agents the file the season last ran with had and this one has not
        (fewer `copies`, a baseline policy removed): the house follows the file. Retired, not
        deleted — their tables, results and ratings stay — with `OUT_OF_FILE` as the reason,
        which is what brings one back (`_install`) when the file names it again; an agent
        the operator retired, or a baseline registered by hand (never in a file), is not
        touched."""
        assert self.config is not None
        now_house = {p.name for p in self.config.policies if p.kind == "baseline"}
        gone = sorted(house_names(before) - now_house)
        if not gone:
            return
        names = list(conn.execute(select(agents.c.name).where(
            agents.c.name.in_(gone), agents.c.kind == "baseline",
            agents.c.account_id == operator, agents.c.state != RETIRED)).scalars())
        if names:
            conn.execute(update(agents).where(agents.c.name.in_(names))
                         .values(state=RETIRED, reason=OUT_OF_FILE))
            self.house_retired.extend(sorted(names))

    # -- the loop --------------------------------------------------------------------------------
    async def _loop(self) -> None:
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Unavailable:  # an outage: `dbretry` has said so once; the next tick retries
                pass
            except Exception:
                log.exception("league tick failed")
            await asyncio.sleep(TICK_S)

    async def tick(self) -> None:
        here = {a: min(link.since for link in links) for a, links in self.links.items() if links}
        settings = await self.store.tx(self._presence, here)  # a copy: sockets come and go
        await self._tell(settings)
        await self._deliver()
        await self._take_tables()
        if self.matchmaker is not None and await self.store.tx(self._lease):
            made = await self.store.tx(self.matchmaker.tick, now())
            for change in self.matchmaker.phase_changes:
                if change == "ended":
                    log.info("season %s has ended: its standings are frozen", self.id)
                else:
                    log.info("season %s: %s", self.id, change)
            if made:
                await self._take_tables()
            if self.sweeps.due():
                await self._record_missing()

    async def _record_missing(self) -> None:
        """Season tables that finished but never reached the league store (their process
        died between the end and the recording): record them now (idempotent per table)."""
        from cogleague.server.standings_feed import backfill

        await backfill(self.service, finished_before=now() - SWEEP_EVERY_S)

    def _presence(self, conn: Connection, here: dict[int, float]) -> dict[int, dict[str, Any]]:
        """Renew the presence of the agents connected here (`here`: agent id -> since), on
        the database thread; and read what their sockets are told of them (`_tell`)."""
        node, until = self.service.node_id, now() + PRESENCE_TTL_S
        for agent_id, since in here.items():
            done = conn.execute(update(agent_presence).where(
                agent_presence.c.agent_id == agent_id).values(node=node, until=until))
            if done.rowcount == 0:
                conn.execute(insert(agent_presence).values(
                    agent_id=agent_id, node=node, until=until, since=since))
        if not here:
            return {}
        columns = [agents.c.id, agents.c.name, agents.c.version, agents.c.cap, agents.c.games,
                   agents.c.state, agents.c.reason]
        phase = self.phase_in(conn)
        return {r["id"]: socket_fields(dict(r), phase) for r in conn.execute(
            select(*columns).where(agents.c.id.in_(list(here)))).mappings()}

    async def _tell(self, settings: dict[int, dict[str, Any]]) -> None:
        """A ``changed`` frame to each socket whose agent's `socket_fields` differ from what
        it was last told. Read every tick with the presence, so a change made on any process,
        or between a socket's ``hello`` and its ``ready``, reaches it within a tick."""
        for agent_id, now_told in settings.items():
            for link in list(self.links.get(agent_id, ())):
                if link.told != now_told:
                    link.told = now_told
                    await link.send({"type": "changed", **now_told})

    def _lease(self, conn: Connection) -> bool:
        node, at = self.service.node_id, now()
        done = conn.execute(update(league_leases).where(
            league_leases.c.name == self.id,
            or_(league_leases.c.owner == node, league_leases.c.until < at))
            .values(owner=node, until=at + LEASE_TTL_S))
        return done.rowcount == 1

    async def _take_tables(self) -> None:
        """Claim a share of the running tables nobody runs yet, so that with several
        processes each takes some: on PostgreSQL half of the fresh ones (rounded down) and
        every one that waited `UNCLAIMED_S` (nobody else took it: a process alone takes all);
        on SQLite (one process) all of them."""
        from cogleague.server.leases import claim
        from cogleague.server.recovery import resume

        svc = self.service
        waiting = await self.store.tx(lambda c: list(c.execute(
            select(tables.c.id, tables.c.created_at).where(
                tables.c.state == RUNNING, tables.c.owner.is_(None))
            .order_by(tables.c.created_at)).all()))
        at = now()
        fresh = [t for t, made in waiting if at - made < UNCLAIMED_S]
        share = ([t for t, made in waiting if at - made >= UNCLAIMED_S]
                 + fresh[: len(fresh) // 2]) if self.store.is_postgres \
            else [t for t, _ in waiting]
        for table_id in share:
            if table_id in svc.live:
                continue
            if await self.store.tx(claim, table_id, svc.lease_values()):
                await resume(svc, table_id)

    async def _deliver(self) -> None:
        """Give each connected agent its new seats (a fresh token per delivery)."""
        here = [a for a, links in self.links.items() if links]
        if not here:
            return

        def read(conn: Connection) -> list[Any]:
            return list(conn.execute(select(
                season_seats.c.table_id, season_seats.c.seat, season_seats.c.agent_id,
                tables.c.game).join(tables, tables.c.id == season_seats.c.table_id).where(
                season_seats.c.agent_id.in_(here), season_seats.c.remote.is_(True),
                season_seats.c.active.is_(True), tables.c.state == RUNNING)).all())

        for row in await self.store.tx(read):
            links = self.links.get(row.agent_id) or []
            link = links[-1] if links else None
            if link is None or row.table_id in link.playing:
                continue
            token = new_seat_token()

            def give(conn: Connection, r: Any = row, t: str = token) -> None:
                conn.execute(update(seats).where(seats.c.table_id == r.table_id,
                                                 seats.c.seat == r.seat)
                             .values(token_digest=digest(t)))
                conn.execute(update(season_seats).where(
                    season_seats.c.table_id == r.table_id, season_seats.c.seat == r.seat)
                    .values(delivered=True))
            await self.store.tx(give)
            link.playing.add(row.table_id)
            await link.send({"type": "assign", "table": row.table_id, "seat": row.seat,
                             "game": row.game, "token": token})

    # -- sockets -----------------------------------------------------------------------------------
    async def attach(self, link: AgentLink) -> None:
        """`link` plays its agent from now on. An older socket of the agent on this process
        (a second `cogleague agent run`, or a reconnect the server has not yet seen the old
        socket of drop) is told it was replaced and closed: the newest one gets the seats,
        so an older one left open would sit "online" while its tables go elsewhere."""
        older = self.links.setdefault(link.agent_id, [])
        for old in list(older):
            name = old.told.get("agent", link.told.get("agent"))
            await old.send({"type": "error", "code": "replaced", "message": REPLACED.format(
                name=name)})
            if old.close is not None:
                old.close(1008, "replaced by another connection of the agent")
            older.remove(old)
        older.append(link)

    async def detach(self, link: AgentLink) -> None:
        links = self.links.get(link.agent_id, [])
        if link in links:
            links.remove(link)
        if not links:
            node = self.service.node_id
            await self.store.tx(lambda c: c.execute(delete(agent_presence).where(
                agent_presence.c.agent_id == link.agent_id, agent_presence.c.node == node)))

    # -- behaviour profiles ----------------------------------------------------------------------
    async def profiles(self, agent_id: int) -> dict[str, Any]:
        """`cogleague profile` traits of an agent version per game (`season_profiles.py`):
        by the probe battery for what the server can play offline (a baseline, a policy
        file; computed once per version), else from its recorded season tables (recomputed
        when it has finished more). Off the event loop."""
        from cogleague.server import season_profiles as sp

        row = await self.store.tx(lambda c: c.execute(select(agents).where(
            agents.c.id == agent_id)).mappings().first())
        if row is None:
            return {"error": "no such agent version"}
        games = json.loads(row["games"])
        loop = asyncio.get_running_loop()
        if row["kind"] in ("baseline", "policy"):
            if agent_id not in self.profile_cache:
                ref = row["baseline"] if row["kind"] == "baseline" \
                    else f"policy:{row['policy_file']}"
                self.profile_cache[agent_id] = await loop.run_in_executor(
                    None, sp.probe_profiles, self.catalog, ref, games)
            return self.profile_cache[agent_id]
        assert self.id is not None
        played = await self.store.tx(sp.played_tables, self.id, agent_id, games)
        cached = self.recorded_cache.get(agent_id)
        if cached is None or cached[0] != played:
            recorded = await self.store.tx(sp.read_recorded, played)
            doc = await loop.run_in_executor(None, sp.recorded_profiles, self.catalog,
                                             self.service.game_of, f"{row['name']}@v"
                                             f"{row['version']}", recorded)
            self.recorded_cache[agent_id] = cached = (played, doc)
        if not cached[1]:
            return {"error": f"measured from a {row['kind']} agent's finished season tables, "
                             "and it has none yet"}
        return cached[1]

    # -- ratings ---------------------------------------------------------------------------------
    def _rate(self, conn: Connection, live: LiveTable, outcome: EpisodeOutcome) -> None:
        models = None
        if any(getattr(s, "kind", None) == "model" for s in live.runner_seats):
            from cogleague.seats.llm import accounting_for

            models = accounting_for(live.runner_seats)
        rate_finished(conn, live.id, outcome.results, outcome.faults, models)


def game_names(config: LeagueConfig | None, catalog: Catalog) -> list[str]:
    """The games agents may name: the season's, or every game served."""
    if config is not None:
        return list(dict.fromkeys(g.name for g in config.games))
    return [d.name for d in catalog.available()]


def allowed_models(season: SeasonSettings, settings: Settings) -> list[str]:
    """The models a model agent may name: the season's list, else the server's model."""
    if season.models:
        return list(season.models)
    return [settings.model_name] if settings.model_name else []


def install_openapi(app: Any, config: LeagueConfig | None, catalog: Catalog,
                    settings: Settings) -> None:
    from cogleague.seats.llm.prompting import MAX_PROMPT_CHARS
    from cogleague.server import agent_openapi

    season = config.season if config and config.season else SeasonSettings()
    games = game_names(config, catalog)
    agent_openapi.install(app, games, {g: list(catalog.get(g).baselines) for g in games},
                          allowed_models(season, settings), season.token_budget,
                          MAX_PROMPT_CHARS)


def house_names(text: str) -> set[str]:
    """The house agents (baseline policies, each copy one) of a league file's text, as the
    season stored it; a text that no longer reads gives none (nothing is retired for it)."""
    from cogleague.league.house import parse_copies

    try:
        docs = tomllib.loads(text).get("policies", [])
    except tomllib.TOMLDecodeError:
        return set()
    names: set[str] = set()
    for i, doc in enumerate(docs if isinstance(docs, list) else []):
        if isinstance(doc, dict) and "baseline" in doc:
            try:
                names.update(p.name for p in parse_copies(doc, f"policies[{i}]", Path(".")))
            except ConfigError:
                continue
    return names


def check_baselines(store: Any, config: LeagueConfig) -> None:
    """A restart's league file must not redefine the baseline agents its season registered:
    the start (`_install`) keeps an agent already there, so a baseline renamed to another
    policy, or a name an account's agent holds, would play on under the name without a word
    (its rating mixing two policies). Refused before the server starts, naming the policy."""
    def read(conn: Connection) -> dict[str, Any]:
        return {r["name"]: r for r in conn.execute(
            select(agents.c.name, agents.c.kind, agents.c.baseline).where(
                agents.c.current)).mappings()}

    held = store.tx_sync(read)
    for p in config.policies:
        row = held.get(p.name)
        if p.kind != "baseline" or row is None:
            continue
        games = [g.name for g in config.games if p.name in g.policies]
        wanted = p.seat_ref(games[0]) if games else None
        if row["kind"] != "baseline":
            raise ConfigError(f"policies.{p.name}", f"policies.{p.name}: the name is a "
                              f"{row['kind']} agent's in this season; give the baseline "
                              "another name")
        if wanted is not None and row["baseline"] != wanted:
            raise ConfigError(f"policies.{p.name}", f"policies.{p.name} must stay baseline "
                              f"{row['baseline']} (got baseline {wanted}): the season "
                              "registered it so; give another baseline another name")


def check_games(store: Any, config: LeagueConfig, path: str, text: str) -> None:
    """A restart's league file must keep the `[[games]]` overrides and seats of each game and
    variant its running season already has: the matchmaker would make tables of the new kind
    beside the old ones, all ranked and rated as one (the offline league refuses the same
    edit, `league/runner.check_options`). Refused before the server starts, naming
    ``games[i].overrides`` or ``games[i].seats``, what the season holds and what the file
    says. A game or variant the season did not have, and every edit once it has ended, pass.
    `text` is the file at `path` as `load_season` read it."""
    from cogleague.league.config import parse

    def read(conn: Connection) -> Any:
        return conn.execute(select(seasons.c.config_text, seasons.c.phase).where(
            seasons.c.id == config.name)).first()

    row = store.tx_sync(read)
    if row is None or row.phase == ENDED or row.config_text == text:
        return
    try:
        before = parse(tomllib.loads(row.config_text), base_dir=Path(path).resolve().parent)
    except (ConfigError, tomllib.TOMLDecodeError, ImportError, OSError) as exc:
        log.warning("season %s: the file it ran with cannot be read back to compare its "
                    "games (%s); the edited file runs", config.name, exc)
        return
    held = {(g.name, v): (jsonio.dumps(dict(g.overrides), sort_keys=True), g.seats[v])
            for g in before.games for v in g.variants}
    for i, entry in enumerate(config.games):
        for variant in entry.variants:
            if (entry.name, variant) not in held:
                continue
            overrides, seats = held[(entry.name, variant)]
            now_overrides = jsonio.dumps(dict(entry.overrides), sort_keys=True)
            for field, was, got in ((f"games[{i}].overrides", overrides, now_overrides),
                                    (f"games[{i}].seats", seats, entry.seats[variant])):
                if was != got:
                    raise ConfigError(field, f"{field} must stay {was} for {entry.name} "
                                      f"{variant or 'default'} (got {got}): season "
                                      f"{config.name!r} runs its tables with that, and tables "
                                      "of both kinds would be rated as one; restore it, or "
                                      "start a new season (another league.name)")


def load_season(path: str) -> tuple[LeagueConfig, str]:
    """The league file a server runs as its season (it must have a ``[season]`` table)."""
    from cogleague.league.store import SERVER_LEAGUE

    config = load_league(path)
    if config.season is None:
        raise ConfigError("season", f"{path} has no [season] table (see examples/season.toml)")
    if config.name == SERVER_LEAGUE:  # its standings would rank every lobby table too
        raise ConfigError("league.name", f"league.name must not be {SERVER_LEAGUE!r} for a "
                          "season: the server records every table outside a season under "
                          "that name")
    others = [p.name for p in config.policies if p.kind != "baseline"]
    if others:  # `league run` plays them offline; the season seats registered agents only
        log.warning("season %s: %s %s not a baseline policy, so the season does not seat "
                    "it; register it as an agent (POST /agents, cogleague agent register) to "
                    "enter it", config.name, ", ".join(others),
                    "is" if len(others) == 1 else "are")
    for line in lone_waits(config):
        log.warning("season %s: %s", config.name, line)
    return config, Path(path).read_text(encoding="utf-8")


def lone_waits(config: LeagueConfig) -> list[str]:
    """The games and variants whose house agents (the baseline policies that play them) cannot
    fill every seat beside one entrant: a table seats distinct agents, so there an agent
    alone waits for others. Said at the start, with the remedy, since a season may mean it."""
    out = []
    for i, entry in enumerate(config.games):
        house = [n for n in entry.policies if config.policy[n].kind == "baseline"]
        for variant in entry.variants:
            need = entry.seats[variant] - 1
            if len(house) < need:
                out.append(f"games[{i}] ({entry.name} {variant or 'default'}) has "
                           f"{len(house)} house agent{'s' * (len(house) != 1)} for "
                           f"{entry.seats[variant]} seats, so a table waits for "
                           f"{need + 1 - len(house)} registered agents; give a baseline "
                           f"policy copies = N for a table with one (docs/league.md)")
    return out

