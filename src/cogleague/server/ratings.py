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
from sqlalchemy import Connection, insert, select, update

from cogleague.seats.faults import PLATFORM_CAUSES
from cogleague.server.league_schema import (
    agents,
    rating_history,
    ratings,
    season_seats,
    season_tables,
    seasons,
)
from cogleague.server.store import now

MODEL = PlackettLuce()
UNRATED_REASONS = ("no_players", "aborted")


def _tokens(models: Mapping[str, Any] | None, seat: int) -> int:
    """Model tokens a seat used (the ``models`` section of `seats/llm/accounting.py`)."""
    if not models:
        return 0
    return sum(int((models.get(k) or [0] * (seat + 1))[seat] or 0)
               for k in ("input_tokens", "output_tokens"))


def rate_finished(conn: Connection, table_id: str, results: Mapping[str, Any],
                  faults: Sequence[Mapping[str, int]],
                  models: Mapping[str, Any] | None = None) -> str | None:
    """Record a season table's seats and, if it counts, update its agents' ratings. Returns
    the outcome (``rated`` | ``not_rated:<why>``), or None for a table of no season."""
    st = conn.execute(select(season_tables).where(season_tables.c.table_id == table_id)
                      .with_for_update()).mappings().first()
    if st is None or st["rated"]:
        return None if st is None else st["outcome"]
    seat_rows = conn.execute(select(season_seats.c.seat, season_seats.c.agent_id)
                             .where(season_seats.c.table_id == table_id)
                             .order_by(season_seats.c.seat)).all()
    scores = [float(s) for s in results.get("scores", [])]
    reason = str(results.get("reason") or "complete")
    seat_faults = [dict(faults[i]) if i < len(faults) else {} for i in range(len(seat_rows))]
    for (seat, _agent), counts in zip(seat_rows, seat_faults, strict=True):
        conn.execute(update(season_seats).where(season_seats.c.table_id == table_id,
                                                season_seats.c.seat == seat)
                     .values(active=False, score=scores[seat] if seat < len(scores) else None,
                             faults=json.dumps(counts, sort_keys=True)))
    _charge_tokens(conn, models, seat_rows)
    platform = sum(n for f in seat_faults for c, n in f.items() if c in PLATFORM_CAUSES)
    if reason in UNRATED_REASONS:
        outcome = f"not_rated:{reason}"
    elif platform:
        outcome = "not_rated:infra_error"
    elif len(scores) != len(seat_rows):
        outcome = "not_rated:no_scores"
    else:
        apply_rating(conn, st["season"], st["game"], table_id,
                     [a for _, a in seat_rows], scores)
        outcome = "rated"
    conn.execute(update(season_tables).where(season_tables.c.table_id == table_id)
                 .values(rated=True, outcome=outcome))
    conn.execute(update(seasons).where(seasons.c.id == st["season"])
                 .values(version=seasons.c.version + 1))
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
    stored = {r.agent_id: r for r in conn.execute(
        select(ratings.c.agent_id, ratings.c.mu, ratings.c.sigma, ratings.c.games).where(
            ratings.c.season == season, ratings.c.game == game,
            ratings.c.agent_id.in_(ids)))}
    teams = [[MODEL.rating(mu=stored[a].mu, sigma=stored[a].sigma) if a in stored
              else MODEL.rating()] for a in ids]
    means = [sum(by_agent[a]) / len(by_agent[a]) for a in ids]
    new = MODEL.rate(teams, scores=means)
    at = now()
    history = []
    for a, (r,) in zip(ids, new, strict=True):
        if a in stored:
            conn.execute(update(ratings).where(ratings.c.season == season,
                                               ratings.c.game == game, ratings.c.agent_id == a)
                         .values(mu=r.mu, sigma=r.sigma, games=stored[a].games + 1))
        else:
            conn.execute(insert(ratings).values(season=season, game=game, agent_id=a,
                                                mu=r.mu, sigma=r.sigma, games=1))
        history.append({"season": season, "game": game, "agent_id": a, "table_id": table_id,
                        "mu": r.mu, "sigma": r.sigma, "at": at})
    conn.execute(insert(rating_history), history)


def _charge_tokens(conn: Connection, models: Mapping[str, Any] | None,
                   seat_rows: Sequence[Any]) -> None:
    """Add each model agent's tokens to its day; over its budget it is paused, with why."""
    day = _today()
    for seat, agent_id in seat_rows:
        used = _tokens(models, seat)
        if not used:
            continue
        row = conn.execute(select(agents.c.tokens_day, agents.c.tokens_used,
                                  agents.c.token_budget).where(agents.c.id == agent_id)).first()
        if row is None:
            continue
        total = used + (row.tokens_used if row.tokens_day == day else 0)
        values: dict[str, Any] = {"tokens_day": day, "tokens_used": total}
        if row.token_budget is not None and total >= row.token_budget:
            values.update(state="paused", reason=f"token budget: {total} of "
                                                 f"{row.token_budget} tokens used on {day}")
        conn.execute(update(agents).where(agents.c.id == agent_id).values(**values))


def _today() -> str:
    import datetime

    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
