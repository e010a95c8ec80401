"""The matchmaker: forms season tables from the agents that are ready, continuously.

One process at a time runs it (`season_runtime.py` holds its lease); each `tick` is one
database transaction that reads who is ready (active, current version, online when remote,
below its cap of tables at once and per hour), picks line-ups (`league/matching.py`: fair
share, then the most uncertain pairs, the collusion guard), rotates seats for balance and
writes each table as *running with no owner*: the lease loop of any server process takes it
from there (`leases.py`), so tables go to every process. It also moves the season through its
phases: ``running`` until the table budget or the end time, then ``final`` (the top K agents
per game play the frozen final evaluation), then ``ended`` with the standings frozen.
"""

from __future__ import annotations

import json
import math
import secrets
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, func, insert, inspect, select, update

from cogleague.core import jsonio
from cogleague.league.episodes import derive_seed
from cogleague.league.matching import Candidate, order, pick, rotate_for_balance, seated
from cogleague.league.season import SeasonSettings
from cogleague.league.seating import balanced
from cogleague.server.catalog import Catalog
from cogleague.server.league_schema import (
    agent_presence,
    agents,
    ratings,
    season_seats,
    season_tables,
    seasons,
)
from cogleague.server.lineup import SeatPlan, build_game
from cogleague.server.store import ABORTED, FINISHED, RUNNING, notify, seats, tables
from cogleague.server.tables import seat_aliases

RUNNING_PHASE, FINAL, ENDED = "running", "final", "ended"
SEAT_KIND = {"remote": "remote", "baseline": "scripted", "model": "llm", "policy": "policy"}


@dataclass(frozen=True)
class Slot:
    """One game and variant the season plays."""

    game: str
    variant: str | None
    seats: int
    overrides: dict[str, Any] = field(default_factory=dict)


@dataclass
class SeasonPlan:
    id: str
    settings: SeasonSettings
    slots: list[Slot]
    seed: int
    operator_id: int
    postgres: bool = False
    recorded: bool = False
    """Finished tables reach the league store (`Settings.record_league`): the season ends
    only once every one has, so the frozen refit ranks all of them."""


@dataclass
class Batch:
    """The rows of the tables one tick makes, written together."""

    tables: list[dict[str, Any]] = field(default_factory=list)
    seats: list[dict[str, Any]] = field(default_factory=list)
    season_tables: list[dict[str, Any]] = field(default_factory=list)
    season_seats: list[dict[str, Any]] = field(default_factory=list)

    def write(self, conn: Connection) -> None:
        for table, rows in ((tables, self.tables), (seats, self.seats),
                            (season_tables, self.season_tables),
                            (season_seats, self.season_seats)):
            if rows:
                conn.execute(insert(table), rows)


@dataclass
class Ready:
    """An agent the tick may seat: its row and what limits it. The tick counts down `free`
    and up `played` as it seats the agent, so a game whose candidates are read after another
    game's table took it sees the seat: the cap is tables at once across every game."""

    row: dict[str, Any]
    free: int
    played: dict[str, int]
    """Season tables so far, per game: fair share is kept within each game, so an agent of
    one game is not measured against the tables others play in theirs."""
    idle_since: float


class Matchmaker:
    def __init__(self, plan: SeasonPlan, catalog: Catalog,
                 frozen: Callable[[Connection], dict[str, Any]] | None = None) -> None:
        self.plan = plan
        self.catalog = catalog
        self.frozen = frozen
        """Builds the standings document frozen at the end (`season_board.standings_doc`)."""
        self.seat_counts: dict[tuple[int, int], int] = {}
        self.next_slot = 0
        """Round-robin position: breaks ties between slots with as many tables so far."""
        self.starved: list[int] = []
        """Slots that could not form a table at the last tick although an entrant of theirs
        had room: they go first at the next, so a game of many seats (Ledger's eight) gets
        the capacity that frees up before the small games take it again."""
        self.starved_since: dict[int, float] = {}
        """When each starved slot last formed nothing: after `fill_after_s` it forms one table
        of its free entrants, their fair share counted without the busy ones, and waits again
        (a game of many seats would wait for ever; the busy fall behind a table per
        `fill_after_s`, not all at once)."""
        self.phase_changes: list[str] = []
        """What the last tick changed of the season's phase, for the log once it committed."""
        self.number = 0
        """Season tables made so far (read at each tick; the seed of the next derives from
        it)."""

    # -- the tick -----------------------------------------------------------------------------
    def tick(self, conn: Connection, at: float) -> list[str]:
        """One round of matchmaking; returns the tables made."""
        plan, s = self.plan, self.plan.settings
        self.phase_changes = []  # a retried transaction starts over
        season = conn.execute(select(seasons).where(seasons.c.id == plan.id)
                              .with_for_update()).mappings().one()
        if season["phase"] == ENDED:
            return []
        self._sweep(conn)
        running = self._running(conn)
        made: list[str] = []
        phase = season["phase"]
        if phase == RUNNING_PHASE:
            over = season["tables_made"] >= s.tables or (
                s.hours is not None and at - season["started_at"] >= s.hours * 3600)
            if over:
                if running == 0:  # the top K from every rated table's update, none to come
                    phase = self._close(conn, at)
            else:
                budget = min(s.max_running - running, s.tables - season["tables_made"])
                made = self._form(conn, at, budget)
                if made:
                    conn.execute(update(seasons).where(seasons.c.id == plan.id).values(
                        tables_made=seasons.c.tables_made + len(made)))
        if phase == FINAL:
            made += self._final(conn, at, s.max_running - running - len(made))
        if phase != RUNNING_PHASE and not made and self._running(conn) == 0 \
                and self._final_left(conn) == 0:
            self._end(conn, at)
        if made and plan.postgres:
            notify(conn, "league:" + plan.id)
        return made

    def _sweep(self, conn: Connection) -> None:
        """Seats of tables that ended without a finish hook (aborted) stop counting as busy."""
        ended = select(tables.c.id).where(tables.c.id == season_seats.c.table_id,
                                          tables.c.state.in_((FINISHED, ABORTED)))
        conn.execute(update(season_seats).where(season_seats.c.active.is_(True),
                                                ended.exists()).values(active=False))

    def _running(self, conn: Connection) -> int:
        return int(conn.execute(select(func.count()).select_from(season_tables).join(
            tables, tables.c.id == season_tables.c.table_id).where(
            season_tables.c.season == self.plan.id, tables.c.state == RUNNING)).scalar_one())

    # -- who is ready ---------------------------------------------------------------------------
    def ready(self, conn: Connection, at: float, online_only: bool = True) -> list[Ready]:
        s = self.plan.settings
        rows = [dict(r) for r in conn.execute(select(agents).where(
            agents.c.current.is_(True), agents.c.state == "active")).mappings()]
        presence = {r.agent_id: r.since for r in conn.execute(
            select(agent_presence.c.agent_id, agent_presence.c.since).where(
                agent_presence.c.until >= at))}
        busy: dict[int, int] = dict(conn.execute(
            select(season_seats.c.agent_id, func.count()).where(
                season_seats.c.active.is_(True)).group_by(season_seats.c.agent_id)).all())
        hour = {r[0]: (r[1], r[2]) for r in conn.execute(
            select(season_seats.c.agent_id, func.count(), func.max(season_seats.c.created_at))
            .where(season_seats.c.created_at >= at - 3600).group_by(season_seats.c.agent_id))}
        played: dict[int, dict[str, int]] = defaultdict(dict)
        for agent_id, game, n in conn.execute(
                select(season_seats.c.agent_id, season_tables.c.game, func.count()).join(
                    season_tables, season_tables.c.table_id == season_seats.c.table_id).where(
                    season_tables.c.season == self.plan.id).group_by(
                    season_seats.c.agent_id, season_tables.c.game)):
            played[agent_id][game] = int(n)
        out = []
        for r in rows:
            remote = r["kind"] == "remote"
            if remote and online_only and r["id"] not in presence:
                continue
            n_hour, last = hour.get(r["id"], (0, 0.0))
            free = min(r["cap"] - busy.get(r["id"], 0), s.max_tables_per_hour - n_hour)
            since = max(presence.get(r["id"], r["created_at"]), last or 0.0)
            out.append(Ready(r, free, dict(played.get(r["id"], {})), since))
        return out

    def _sigmas(self, conn: Connection, game: str) -> dict[int, float]:
        return dict(conn.execute(select(ratings.c.agent_id, ratings.c.sigma).where(
            ratings.c.season == self.plan.id, ratings.c.game == game)).all())

    # -- forming tables -----------------------------------------------------------------------
    def _form(self, conn: Connection, at: float, budget: int) -> list[str]:
        if budget <= 0:
            return []
        pool = self.ready(conn, at)
        games = {r.row["id"]: set(json.loads(r.row["games"])) for r in pool}
        self.number = self._count(conn)
        made: list[str] = []
        rows: dict[int, dict[str, Any]] = {}
        batch = Batch()
        stuck: set[int] = set()
        n = len(self.plan.slots)
        per_slot: dict[int, tuple[list[Candidate], list[Ready], bool]] = {}
        first, self.starved = self.starved, []
        so_far = self._per_slot(conn)
        while len(made) < budget and len(stuck) < n:
            if first:
                i = first.pop(0)
            else:  # the slot with the fewest tables so far: every game and variant its share
                i = min((j for j in range(n) if j not in stuck),
                        key=lambda j: (so_far[j], (j - self.next_slot) % n))
                self.next_slot = i + 1
            if i in stuck:
                continue
            slot = self.plan.slots[i]
            if i not in per_slot:
                sigma = self._sigmas(conn, slot.game)
                plays = [r for r in pool if slot.game in games[r.row["id"]]]
                waited = any(r.row["kind"] != "baseline" and r.free > 0
                             and at - r.idle_since >= self.plan.settings.fill_after_s
                             for r in plays)
                per_slot[i] = (order([Candidate(r.row["id"], r.row["account_id"],
                                                r.played.get(slot.game, 0),
                                                sigma.get(r.row["id"], Candidate.sigma),
                                                r.free, r.row["kind"] == "baseline")
                                      for r in plays]), plays, waited)
                rows.update({r.row["id"]: r.row for r in plays})
            cands, plays, waited = per_slot[i]
            patient = at - self.starved_since.get(i, at) < self.plan.settings.fill_after_s
            lineup = self._pick(slot, cands if patient else
                                [c for c in cands if c.free > 0 or c.baseline], waited)
            if lineup is None:
                stuck.add(i)
                if any(c.free > 0 and not c.baseline for c in cands):
                    self.starved.append(i)
                    self.starved_since.setdefault(i, at)
                continue
            self.starved_since.pop(i, None)
            ids = {c.id for c in lineup}
            for r in pool:  # what a slot whose list is made later in this tick reads
                if r.row["id"] in ids:
                    r.free -= 1
                    r.played[slot.game] = r.played.get(slot.game, 0) + 1
            for j, other in per_slot.items():  # each slot's list holds its own candidates
                if self.plan.slots[j].game == slot.game:
                    seated(other[0], ids)
                else:  # busy there too, but its count in that game is unchanged
                    for c in other[0]:
                        c.free -= c.id in ids
            made.append(self.table_rows(batch, slot, [rows[a] for a in self._rotate(lineup)],
                                        "rated", at))
            so_far[i] += 1
        batch.write(conn)
        return made

    def _pick(self, slot: Slot, cands: list[Candidate], waited: bool
              ) -> list[Candidate] | None:
        s = self.plan.settings
        fill = [Candidate(c.id, c.account, c.played, c.sigma, 1, True) for c in cands
                if c.baseline and c.free <= 0] if waited else []
        return pick(cands, slot.seats, s.same_account, fill, ordered=True)

    def _rotate(self, lineup: Sequence[Candidate]) -> list[int]:
        return rotate_for_balance([c.id for c in lineup], self.seat_counts)

    def _per_slot(self, conn: Connection) -> list[int]:
        """Rated tables made so far in each slot (game and variant) of the season."""
        made = {(g, v): int(k) for g, v, k in conn.execute(
            select(season_tables.c.game, season_tables.c.variant, func.count()).where(
                season_tables.c.season == self.plan.id, season_tables.c.phase == "rated")
            .group_by(season_tables.c.game, season_tables.c.variant))}
        return [made.get((s.game, s.variant), 0) for s in self.plan.slots]

    def _count(self, conn: Connection) -> int:
        return int(conn.execute(select(func.count()).select_from(season_tables).where(
            season_tables.c.season == self.plan.id)).scalar_one())

    def create(self, conn: Connection, slot: Slot, lineup: Sequence[dict[str, Any]],
               phase: str, at: float) -> str:
        """Write one running, unowned table and its seats (any process's lease loop runs it)."""
        batch = Batch()
        table_id = self.table_rows(batch, slot, lineup, phase, at)
        batch.write(conn)
        return table_id

    def table_rows(self, batch: Batch, slot: Slot, lineup: Sequence[dict[str, Any]],
                   phase: str, at: float) -> str:
        """One table's rows, added to `batch` (a tick writes its tables in four statements)."""
        info = self.catalog.get(slot.game)
        self.number += 1
        seed = derive_seed(self.plan.seed, slot.game, slot.variant, self.number)
        seat_rows = [_seat_row(i, a) for i, a in enumerate(lineup)]
        game = build_game(info, slot.variant, slot.overrides, seed,
                          [SeatPlan(r["policy_name"], r["kind"], r.get("baseline"))
                           for r in seat_rows])
        table_id = "t_" + secrets.token_hex(8)
        batch.tables.append(dict(
            id=table_id, game=slot.game, variant=slot.variant,
            config=jsonio.dumps(slot.overrides), seed=seed, stake=0, fill_with=None,
            auto_start=False, pacing=self.plan.settings.pacing, num_seats=len(lineup),
            state=RUNNING, creator_id=self.plan.operator_id, created_at=at,
            start_deadline=at, started_at=at, owner=None, owner_url=None, lease_until=None,
            info=jsonio.dumps({"aliases": seat_aliases(game),
                               "public_config": game.public_config(),
                               "season": self.plan.id, "league": self.plan.id})))
        batch.seats += [{**r, "table_id": table_id, "joined_at": at} for r in seat_rows]
        batch.season_tables.append(dict(
            table_id=table_id, season=self.plan.id, game=slot.game, variant=slot.variant,
            phase=phase, created_at=at, rated=False))
        batch.season_seats += [
            {"table_id": table_id, "seat": i, "agent_id": a["id"],
             "remote": a["kind"] == "remote", "delivered": False, "active": True,
             "created_at": at} for i, a in enumerate(lineup)]
        return table_id

    # -- phases ----------------------------------------------------------------------------------
    def _close(self, conn: Connection, at: float) -> str:
        """Registration closes; the final evaluation's line-ups are fixed now."""
        s = self.plan.settings
        lineups: list[dict[str, Any]] = []
        if s.final_top:
            for i, slot in enumerate(self.plan.slots):
                for lineup in self._final_lineups(conn, slot):
                    lineups.append({"slot": i, "agents": lineup})
        conn.execute(update(seasons).where(seasons.c.id == self.plan.id).values(
            phase=FINAL, closed_at=at, frozen=jsonio.dumps({"final_plan": lineups})))
        self.phase_changes.append(
            f"registration closed; {len(lineups)} final table(s) to play" if s.final_top
            else "registration closed (no final evaluation)")
        return FINAL

    def _final_lineups(self, conn: Connection, slot: Slot) -> list[list[int]]:
        """The top K of `slot`'s game by conservative rating (one per account, under the
        collusion guard) in balanced rotation until each pair met N more times. A game with
        more seats than K fills the rest with its baselines outside the top (cycled if too
        few): every agent has one seat per table, as a remote agent plays one seat a table."""
        s = self.plan.settings
        rating = ratings.c.mu - 3 * ratings.c.sigma
        rows = conn.execute(
            select(ratings.c.agent_id, agents.c.account_id, agents.c.kind, agents.c.games)
            .join(agents, agents.c.id == ratings.c.agent_id).where(
                ratings.c.season == self.plan.id, ratings.c.game == slot.game,
                agents.c.state != "retired", agents.c.current.is_(True))
            .order_by(rating.desc(), ratings.c.agent_id)).all()
        top: list[int] = []
        owners: set[int] = set()
        for agent_id, account_id, kind, games in rows:
            if len(top) == s.final_top:
                break
            if slot.game not in json.loads(games):  # rated here, then left it (PATCH games)
                continue
            if kind != "baseline" and not s.same_account:
                if account_id in owners:
                    continue
                owners.add(account_id)
            top.append(int(agent_id))
        if len(top) < 2:
            return []
        k = min(slot.seats, len(top))
        pad = [a for a in conn.execute(select(agents.c.id).where(
            agents.c.kind == "baseline", agents.c.current.is_(True),
            agents.c.state != "retired").order_by(agents.c.id)).scalars()
            if a not in top and slot.game in self._games_of(conn, a)]
        if k < slot.seats and not pad:
            return []  # nothing to fill the other seats with: no final for this game
        count = math.ceil(s.final_tables_per_pair * len(top) * (len(top) - 1) / 2
                          / (k * (k - 1) // 2))
        out = []
        for n, seating in enumerate(balanced([str(a) for a in top], k, count)):
            full = [int(a) for a in seating.lineup]
            full += [pad[(n + j) % len(pad)] for j in range(slot.seats - k)] if pad else []
            shift = n % slot.seats
            out.append(full[shift:] + full[:shift])
        return out

    @staticmethod
    def _games_of(conn: Connection, agent_id: int) -> list[str]:
        text = conn.execute(select(agents.c.games).where(agents.c.id == agent_id)).scalar_one()
        return list(json.loads(text))

    def final_plan(self, conn: Connection) -> tuple[list[dict[str, Any]], int]:
        row = conn.execute(select(seasons.c.frozen, seasons.c.final_made).where(
            seasons.c.id == self.plan.id)).one()
        plan = json.loads(row.frozen or "{}").get("final_plan", [])
        return plan, int(row.final_made)

    def _final_left(self, conn: Connection) -> int:
        plan, done = self.final_plan(conn)
        return len(plan) - done

    def _final(self, conn: Connection, at: float, budget: int) -> list[str]:
        plan, done = self.final_plan(conn)
        if done >= len(plan) or budget <= 0:
            return []
        self.number = self._count(conn)
        ready = {r.row["id"]: r for r in self.ready(conn, at)}
        rows = {r["id"]: dict(r) for r in conn.execute(select(agents)).mappings()}
        made: list[str] = []
        while done < len(plan) and len(made) < budget:
            entry = plan[done]
            ids = entry["agents"]
            # the frozen line-up waits for its agents (remote ones online, under their cap)
            if any(a not in ready or ready[a].free <= 0 for a in set(ids)
                   if rows[a]["kind"] != "baseline"):
                break
            for a in ids:
                if a in ready:
                    ready[a].free -= 1
            made.append(self.create(conn, self.plan.slots[entry["slot"]],
                                    [rows[a] for a in ids], FINAL, at))
            done += 1
        conn.execute(update(seasons).where(seasons.c.id == self.plan.id)
                     .values(final_made=done))
        return made

    def _end(self, conn: Connection, at: float) -> None:
        unrated = conn.execute(select(func.count()).select_from(season_tables).join(
            tables, tables.c.id == season_tables.c.table_id).where(
            season_tables.c.season == self.plan.id, season_tables.c.rated.is_(False),
            tables.c.state == FINISHED)).scalar_one()
        if unrated or (self.plan.recorded and self._unrecorded(conn)):
            return
        frozen = self.frozen(conn) if self.frozen is not None else {}
        old = json.loads(conn.execute(select(seasons.c.frozen).where(
            seasons.c.id == self.plan.id)).scalar_one() or "{}")
        conn.execute(update(seasons).where(seasons.c.id == self.plan.id).values(
            phase=ENDED, ended_at=at, version=seasons.c.version + 1,
            frozen=jsonio.dumps({**old, "standings": frozen})))
        self.phase_changes.append("ended")


    def _unrecorded(self, conn: Connection) -> int:
        """Finished season tables whose episode the league store lacks yet (being recorded
        just after the finish, or — its process died — by the season loop's sweep)."""
        from cogleague.league.store import EpisodeRow, episode_id_for_table

        finished = conn.execute(select(season_tables.c.table_id).join(
            tables, tables.c.id == season_tables.c.table_id).where(
            season_tables.c.season == self.plan.id, tables.c.state == FINISHED,
            tables.c.results.is_not(None))).scalars().all()
        if not finished or not inspect(conn).has_table(EpisodeRow.__tablename__):
            return len(finished)
        stored = set(conn.execute(select(EpisodeRow.id).where(
            EpisodeRow.league == self.plan.id)).scalars())
        return sum(episode_id_for_table(t) not in stored for t in finished)


def _seat_row(seat: int, agent: dict[str, Any]) -> dict[str, Any]:
    """The table seat an agent version takes (`seat_kinds.py` plays it)."""
    kind = SEAT_KIND[agent["kind"]]
    row: dict[str, Any] = {"seat": seat, "account_id": None, "kind": kind,
                           "policy_name": f"{agent['name']}@v{agent['version']}",
                           "token_digest": "", "baseline": None, "prompt": None,
                           "model": None, "note": None}
    if kind == "scripted":
        row["baseline"] = agent["baseline"]
    elif kind == "llm":
        row.update(prompt=agent["prompt"], model=agent["model"])
    elif kind == "policy":
        row["baseline"] = f"policy:{agent['policy_file']}"
    return row


def unrated_finished(conn: Connection, season: str) -> list[str]:
    """Finished season tables whose rating update is missing (none, when the finish hook ran
    in the finish transaction; kept as a check for the tests and the sweep)."""
    return list(conn.execute(select(season_tables.c.table_id).join(
        tables, and_(tables.c.id == season_tables.c.table_id,
                     tables.c.state == FINISHED)).where(
        season_tables.c.season == season, season_tables.c.rated.is_(False))).scalars())
