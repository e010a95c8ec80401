"""The standing league's rows, in the server's own database (same metadata, same schema call).

- ``agents``: one row per agent *version* (name, version): its kind, games, cap, state and
  what it plays with (prompt and model, policy file, baseline). A new prompt or policy is a
  new row; the older rows stay, marked not current, with their own ratings.
- ``agent_presence``: remote agents connected now (renewed by the process holding the
  socket; a row past ``until`` is a dropped agent).
- ``seasons``: the season's config text, phase, counters and the frozen standings.
- ``season_seats``: who (which agent version) sits where at each season table, and whether
  the seat was handed to the agent's socket.
- ``season_tables``: each season table's game, variant and phase (``rated`` | ``final``), and
  whether its rating update was applied (one per table: idempotent).
- ``ratings`` / ``rating_history``: OpenSkill μ, σ per season, game and agent version, and the
  value after every rated table (the agent page's plot).
- ``league_leases``: the matchmaker's lease (one matchmaker across processes).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from cogleague.server.store import metadata

INFRA_OUTCOME = "not_rated:infra_error"
"""A season table a platform fault spoiled: not rated (`ratings.py`), and stored in the league
store as ``infra_error``, left out of the refit (`payouts.record_league`)."""

agents = Table(
    "agents", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False),
    Column("version", Integer, nullable=False),
    Column("current", Boolean, nullable=False),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),  # remote | model | policy | baseline
    Column("games", Text, nullable=False),  # JSON list of game names
    Column("cap", Integer, nullable=False),
    Column("description", Text, nullable=False),
    Column("state", String(16), nullable=False),  # active | paused | retired
    Column("reason", String(200), nullable=True),  # why paused
    Column("prompt", Text, nullable=True),
    Column("model", String(200), nullable=True),
    Column("policy_file", String(400), nullable=True),
    Column("baseline", String(64), nullable=True),
    Column("token_budget", BigInteger, nullable=True),
    Column("tokens_day", String(10), nullable=True),  # the UTC day `tokens_used` counts
    Column("tokens_used", BigInteger, nullable=False, default=0),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("name", "version", name="agent_name_version"),
)

agent_presence = Table(
    "agent_presence", metadata,
    Column("agent_id", Integer, ForeignKey("agents.id"), primary_key=True),
    Column("node", String(40), nullable=False),
    Column("until", Float, nullable=False),
    Column("since", Float, nullable=False),
)

seasons = Table(
    "seasons", metadata,
    Column("id", String(128), primary_key=True),
    Column("config_text", Text, nullable=False),
    Column("phase", String(16), nullable=False),  # running | final | ended
    Column("started_at", Float, nullable=False),
    Column("closed_at", Float, nullable=True),
    Column("ended_at", Float, nullable=True),
    Column("tables_made", Integer, nullable=False, default=0),
    Column("final_made", Integer, nullable=False, default=0),
    Column("frozen", Text, nullable=True),  # the standings document at the end
    Column("version", Integer, nullable=False, default=0),  # bumped by every rating update
)

season_tables = Table(
    "season_tables", metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("season", String(128), nullable=False, index=True),
    Column("game", String(32), nullable=False),
    Column("variant", String(64), nullable=True),
    Column("phase", String(16), nullable=False),  # rated | final
    Column("created_at", Float, nullable=False),
    Column("rated", Boolean, nullable=False, default=False),
    Column("outcome", String(32), nullable=True),  # rated | not_rated:<why>
)

season_seats = Table(
    "season_seats", metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=False, index=True),
    Column("remote", Boolean, nullable=False),
    Column("delivered", Boolean, nullable=False, default=False),
    Column("active", Boolean, nullable=False, default=True),  # the table is still running
    Column("score", Float, nullable=True),
    Column("faults", Text, nullable=True),  # JSON {cause: n}
    Column("created_at", Float, nullable=False),
)
Index("season_seats_agent_active", season_seats.c.agent_id, season_seats.c.active)

ratings = Table(
    "ratings", metadata,
    Column("season", String(128), primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("agent_id", Integer, ForeignKey("agents.id"), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
)

rating_history = Table(
    "rating_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("season", String(128), nullable=False),
    Column("game", String(32), nullable=False),
    Column("agent_id", Integer, ForeignKey("agents.id"), nullable=False),
    Column("table_id", String(40), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", Float, nullable=False),
)
Index("rating_history_agent", rating_history.c.agent_id, rating_history.c.id)

league_leases = Table(
    "league_leases", metadata,
    Column("name", String(128), primary_key=True),
    Column("owner", String(40), nullable=True),
    Column("until", Float, nullable=False),
)
