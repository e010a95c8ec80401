"""Behaviour profiles on an agent's page: `cogleague profile` traits, two ways.

An agent the server can play offline (a baseline, a policy file) runs the game's probe battery
(`profiles.profile`). A remote program is not on the server and a model agent's probe calls
would spend its owner's tokens, so theirs is measured from what they already played: their
most recent finished season tables, rebuilt from each table's durable log
(`core.replay.replay_entries`) and measured by the game's own probe measurement, the agent's
seat as the subject. Traits that only a probe opponent provokes (retaliation after a scripted
provocation, say) have no observations there; they read "–" with n = 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, select

from cogleague.core.episode import EpisodeOutcome
from cogleague.core.game import Game
from cogleague.core.replay import replay_entries
from cogleague.profiles import ProbeEpisode, Profile, profile
from cogleague.profiles.runner import aggregate
from cogleague.server.catalog import Catalog
from cogleague.server.league_schema import season_seats, season_tables
from cogleague.server.store import FINISHED, loads, log_rows, seat_rows, table_row, tables

PROFILE_EPISODES = 5
"""Episodes per probe of an offline profile."""
RECORDED_TABLES = 40
"""Season tables per game an agent's recorded profile is measured from (the latest)."""
RECORDED = "season tables"


def probe_profiles(catalog: Catalog, ref: str, games: Sequence[str]) -> dict[str, Any]:
    """The probe battery per game that has one, for a seat string the server can play."""
    out = {}
    for game in games:
        desc = catalog.get(game)
        if "probes" in desc.extras:
            doc = profile(desc, ref, episodes=PROFILE_EPISODES, seed=0).to_json()
            out[game] = {**doc, "source": "probe battery"}
    return out


Recorded = tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], int]
"""One finished table: its row, its seats, its log and the agent's seat."""
Played = dict[str, list[tuple[str, int]]]
"""Per game, the agent's latest finished tables and its seat at each."""


def played_tables(conn: Connection, season: str, agent_id: int, games: Sequence[str]
                  ) -> Played:
    """The agent's latest finished season tables per game (the profile's key: when they
    change, the profile is measured again)."""
    out: Played = {}
    for game in games:
        q = select(season_seats.c.table_id, season_seats.c.seat).join(
            season_tables, season_tables.c.table_id == season_seats.c.table_id).join(
            tables, tables.c.id == season_seats.c.table_id).where(
            season_tables.c.season == season, season_tables.c.game == game,
            season_seats.c.agent_id == agent_id, tables.c.state == FINISHED,
            tables.c.results.is_not(None)).order_by(
            season_seats.c.created_at.desc()).limit(RECORDED_TABLES)
        out[game] = [(str(t), int(s)) for t, s in conn.execute(q).all()]
    return out


def read_recorded(conn: Connection, played: Played) -> dict[str, list[Recorded]]:
    """What rebuilds each of those tables."""
    out: dict[str, list[Recorded]] = defaultdict(list)
    for game, ids in played.items():
        for table_id, seat in ids:
            row = table_row(conn, table_id)
            if row is not None:
                out[game].append((row, seat_rows(conn, table_id), log_rows(conn, table_id),
                                  seat))
    return out


def recorded_profiles(catalog: Catalog, game_of: Callable[..., Game], policy: str,
                      recorded: dict[str, list[Recorded]]) -> dict[str, Any]:
    """Each game's traits over the recorded tables (games without a battery are skipped)."""
    out = {}
    for game, played in recorded.items():
        desc = catalog.get(game)
        probes = desc.extras.get("probes")
        if probes is None or not played:
            continue
        observed: dict[str, list[float]] = defaultdict(list)
        for row, seat_list, log_, seat in played:
            g = game_of(row, seat_list)
            log = replay_entries(g, [r["entry"] for r in log_])
            spec = ProbeEpisode(tuple(s["policy_name"] for s in seat_list), seat, row["seed"],
                                row["variant"], loads(row["config"]) or {})
            for name, values in probes.measure(g, EpisodeOutcome(loads(row["results"]), log),
                                               spec).items():
                observed[name].extend(values)
        doc = Profile(policy, game, len(played), 0,
                      [aggregate(t, observed.get(t.name, [])) for t in probes.traits]).to_json()
        out[game] = {**doc, "source": RECORDED}
    return out
