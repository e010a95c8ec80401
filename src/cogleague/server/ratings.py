"""Live ratings: one OpenSkill (Plackett–Luce) update per finished season table.

`rate_finished` runs inside the transaction that marks the table finished (`TableService`'s
finish hooks), so a table's result and its rating update commit together or not at all, and
the table's ``rated`` flag makes a second call a no-op: nothing is lost or counted twice when
a process dies. A table is not rated when nobody connected (``no_players``) or when any seat
fell back for a platform cause (``infra_error``: transport, rate_budget, disabled). The model
and its Plackett–Luce treatment of scores are the league's (`rankings/openskill_rating.py`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Connection, bindparam, select, text, update

from cogleague.seats.faults import PLATFORM_CAUSES
from cogleague.server.league_schema import INFRA_OUTCOME, agents
from cogleague.server.store import now

MODEL = PlackettLuce()
UNRATED_REASONS = ("no_players", "aborted")


def _tokens(models: Mapping[str, Any] | None, seat: int) -> int:
    """Model tokens a seat used (the ``models`` section of `seats/llm/accounting.py`)."""
    if not models:
        return 0
    return sum(int((models.get(k) or [0] * (seat + 1))[seat] or 0)
               for k in ("input_tokens", "output_tokens"))


# Fixed statements (text: no expression building per table; the finish of every season table
# runs them, so their cost is the league's CPU per table, `benchmarks/season.py`).
_TABLE = text("SELECT season, game, rated, outcome FROM season_tables WHERE table_id = :t")
_TABLE_LOCKED = text(_TABLE.text + " FOR UPDATE")
_SEATS = text("SELECT seat, agent_id FROM season_seats WHERE table_id = :t ORDER BY seat")
_SEAT_DONE = text("UPDATE season_seats SET active = :no, score = :sc, faults = :f "
                  "WHERE table_id = :t AND seat = :s")
_RATINGS = text("SELECT agent_id, mu, sigma, games FROM ratings WHERE season = :s AND "
                "game = :g AND agent_id IN :ids").bindparams(bindparam("ids", expanding=True))
_RATINGS_LOCKED = text(_RATINGS.text + " ORDER BY agent_id FOR UPDATE").bindparams(
    bindparam("ids", expanding=True))
_RATING_SEED = text("INSERT INTO ratings (season, game, agent_id, mu, sigma, games) "
                    "VALUES (:season, :game, :agent_id, :mu, :sigma, 0) ON CONFLICT DO NOTHING")
_RATING_SET = text("UPDATE ratings SET mu = :mu, sigma = :sigma, games = :games "
                   "WHERE season = :season AND game = :game AND agent_id = :agent_id")
_HISTORY = text("INSERT INTO rating_history (season, game, agent_id, table_id, mu, sigma, at) "
                "VALUES (:season, :game, :agent_id, :table_id, :mu, :sigma, :at)")
_TABLE_DONE = text("UPDATE season_tables SET rated = :yes, outcome = :o WHERE table_id = :t")
_VERSION = text("UPDATE seasons SET version = version + 1 WHERE id = :s")


def rate_finished(conn: Connection, table_id: str, results: Mapping[str, Any],
                  faults: Sequence[Mapping[str, int]],
                  models: Mapping[str, Any] | None = None) -> str | None:
    """Record a season table's seats and, if it counts, update its agents' ratings. Returns
    the outcome (``rated`` | ``not_rated:<why>``), or None for a table of no season."""
    locked = _TABLE_LOCKED if conn.dialect.name == "postgresql" else _TABLE
    st = conn.execute(locked, {"t": table_id}).first()
    if st is None or st.rated:
        return None if st is None else st.outcome
    seat_rows = [(r.seat, r.agent_id) for r in conn.execute(_SEATS, {"t": table_id})]
    scores = [float(s) for s in results.get("scores", [])]
    reason = str(results.get("reason") or "complete")
    seat_faults = [dict(faults[i]) if i < len(faults) else {} for i in range(len(seat_rows))]
    conn.execute(_SEAT_DONE, [{"t": table_id, "s": seat, "no": False,
                               "sc": scores[seat] if seat < len(scores) else None,
                               "f": json.dumps(counts, sort_keys=True)}
                              for (seat, _agent), counts in zip(seat_rows, seat_faults,
                                                                strict=True)])
    _charge_tokens(conn, models, seat_rows)
    platform = sum(n for f in seat_faults for c, n in f.items() if c in PLATFORM_CAUSES)
    if reason in UNRATED_REASONS:
        outcome = f"not_rated:{reason}"
    elif platform:
        outcome = INFRA_OUTCOME
    elif len(scores) != len(seat_rows):
        outcome = "not_rated:no_scores"
    else:
        apply_rating(conn, st.season, st.game, table_id, [a for _, a in seat_rows], scores)
        outcome = "rated"
    conn.execute(_TABLE_DONE, {"t": table_id, "yes": True, "o": outcome})
    conn.execute(_VERSION, {"s": st.season})
    return outcome


def apply_rating(conn: Connection, season: str, game: str, table_id: str,
                 agent_ids: Sequence[int], scores: Sequence[float]) -> None:
    """One free-for-all match, one team per agent (an agent seated twice: its mean score)."""
    by_agent: dict[int, list[float]] = {}
    for a, s in zip(agent_ids, scores, strict=True):
        by_agent.setdefault(a, []).append(s)
    if len(by_agent) < 2:
        return
    ids = sorted(by_agent)
    # Each agent's row exists first (a new one at the prior), then is read locked: two
    # processes rating tables that share an agent update it one after the other, neither
    # from a value the other has since replaced (read-modify-write on PostgreSQL's READ
    # COMMITTED would lose one). Rows are locked in agent order, so no two wait on each other.
    prior = MODEL.rating()
    conn.execute(_RATING_SEED, [{"season": season, "game": game, "agent_id": a,
                                 "mu": prior.mu, "sigma": prior.sigma} for a in ids])
    locked = _RATINGS_LOCKED if conn.dialect.name == "postgresql" else _RATINGS
    stored = {r.agent_id: r for r in conn.execute(locked, {"s": season, "g": game,
                                                           "ids": ids})}
    teams = [[MODEL.rating(mu=stored[a].mu, sigma=stored[a].sigma)] for a in ids]
    means = [sum(by_agent[a]) / len(by_agent[a]) for a in ids]
    new = MODEL.rate(teams, scores=means)
    at = now()
    changed: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    for a, (r,) in zip(ids, new, strict=True):
        changed.append({"season": season, "game": game, "agent_id": a, "mu": r.mu,
                        "sigma": r.sigma, "games": stored[a].games + 1})
        history.append({"season": season, "game": game, "agent_id": a, "table_id": table_id,
                        "mu": r.mu, "sigma": r.sigma, "at": at})
    conn.execute(_RATING_SET, changed)
    conn.execute(_HISTORY, history)


def _charge_tokens(conn: Connection, models: Mapping[str, Any] | None,
                   seat_rows: Sequence[Any]) -> None:
    """Add each model agent's tokens to its day; over its budget it is paused, with why.
    The day is the agent's: a table a version played that ended after a newer version was
    made counts on the newer one (the version that plays now, and the one to pause)."""
    if not models:
        return
    day = token_day()
    for seat, agent_id in seat_rows:
        used = _tokens(models, seat)
        if not used:
            continue
        name = select(agents.c.name).where(agents.c.id == agent_id).scalar_subquery()
        row = conn.execute(select(agents.c.id, agents.c.tokens_day, agents.c.tokens_used,
                                  agents.c.token_budget).where(
            agents.c.name == name, agents.c.current.is_(True))
            .with_for_update()).first()  # another process may add at once
        if row is None:
            continue
        total = used + (row.tokens_used if row.tokens_day == day else 0)
        values: dict[str, Any] = {"tokens_day": day, "tokens_used": total}
        if row.token_budget is not None and total >= row.token_budget:
            values.update(state="paused", reason=f"token budget: {total} of "
                                                 f"{row.token_budget} tokens used on {day}")
        conn.execute(update(agents).where(agents.c.id == row.id).values(**values))


def token_day() -> str:
    """The day a model agent's token budget counts (UTC)."""
    import datetime

    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
