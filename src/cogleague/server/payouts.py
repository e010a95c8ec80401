"""Settlement of a table that played to its end: the ledger entries of its stakes (payouts by
the game's paid-table rule), and its episode recorded in the league's store. An aborted
table's refunds and forfeits are `forfeit.py`'s."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import select

from cogleague.core import settlement
from cogleague.server import wallets
from cogleague.server.catalog import Catalog
from cogleague.server.league_schema import INFRA_OUTCOME, agents, season_seats, season_tables
from cogleague.server.seating import game_of
from cogleague.server.settings import Settings
from cogleague.server.store import FOREVER, Store, accounts, loads

log = logging.getLogger("cogleague.server")


def finish_entries(catalog: Catalog, row: dict[str, Any], seat_list: list[dict[str, Any]],
                   results: dict[str, Any], reason: str) -> list[settlement.LedgerEntry]:
    """The payouts of a table that played to its end (none without a stake or a paid-table
    rule); an end the game does not settle is refunded."""
    if not row["stake"]:
        return []
    paid = catalog.get(row["game"]).paid_tables
    if paid is None:
        return []
    rake_bps = int(game_of(catalog, row).public_config()[paid.rake_field])
    accounts = [wallets.ledger_name(s["account_id"]) for s in seat_list]
    if reason not in paid.settled_reasons:
        reason = "aborted"  # a table that did not play to a settled end is refunded
    points = [int(p) for p in results["scores"]]
    return settlement.settlement_entries(row["id"], row["stake"], rake_bps, points, accounts,
                                         reason)


def records_league(settings: Settings) -> bool:
    """Whether finished tables reach the league store here: the setting, and the league's
    optional dependencies installed."""
    if not settings.record_league:
        return False
    try:
        import cogleague.league.store  # noqa: F401
    except ImportError:
        return False
    return True


async def record_league(store: Store, row: dict[str, Any], seat_list: list[dict[str, Any]],
                        results: dict[str, Any], finished: float) -> None:
    """The finished episode in the league's tables of the same database (a failure is logged:
    the table itself is settled already)."""
    try:
        from cogleague.league.store import (
            SERVER_LEAGUE,
            STATUS_INFRA,
            STATUS_OK,
            add_policies,
            record_episode,
        )
    except ImportError:  # the league's optional dependencies are not installed
        return
    duration = finished - (row["started_at"] or finished)
    names = [s["policy_name"] for s in seat_list]

    def record() -> None:
        # a season table a platform fault spoiled is not rated live: not ranked by the
        # refit either (stored as the offline league stores such an episode)
        infra = _season_outcome(store, row["id"]) == INFRA_OUTCOME
        record_episode(store.engine, game=row["game"], variant=row["variant"],
                       seed=row["seed"], policy_names=names, results=results,
                       source="server", table_id=row["id"], duration_s=duration,
                       league=loads(row["info"]).get("league"),
                       status=STATUS_INFRA if infra else STATUS_OK,
                       error="a seat fell back for a platform cause" if infra else None)
        season, book = _season_book(store, season_tables.c.table_id == row["id"])
        if season is not None:  # the Observatory labels each version by its kind and owner
            add_policies(store.engine, season, book)
        else:  # and each seat of other tables by what sat there
            add_policies(store.engine, loads(row["info"]).get("league") or SERVER_LEAGUE,
                         _table_book(store, row, seat_list))

    try:  # on the database thread (one writer), until it is stored; a retry is a no-op
        await store.call(record, wait_s=FOREVER)
    except Exception:
        log.exception("table %s: recording in the league failed", row["id"])


async def book_season(store: Store, season: str) -> None:
    """Every version that sat at a `season` table, added to its policy book if missing: the
    tables a process recorded before it kept the book still get their labels (at start)."""
    try:
        from cogleague.league.store import add_policies
    except ImportError:  # the league's optional dependencies are not installed
        return
    where = season_tables.c.season == season
    await store.call(lambda: add_policies(store.engine, season, _season_book(store, where)[1]),
                     wait_s=FOREVER)


def _season_book(store: Store, where: Any) -> tuple[str | None, list[dict[str, Any]]]:
    """The season of the season tables `where` picks, and the book entries of the agent
    versions seated at them (`league_policies`: kind, owner, model); None and none for other
    tables. A held-out agent's entry names nothing its rows do not: the standings leave its
    tables out until the season ends (`web/standings.py`)."""
    with store.engine.connect() as conn:
        found = conn.execute(
            select(season_tables.c.season, agents.c.name, agents.c.version, agents.c.kind,
                   agents.c.model, accounts.c.name.label("owner")).distinct()
            .join(season_seats, season_seats.c.table_id == season_tables.c.table_id)
            .join(agents, agents.c.id == season_seats.c.agent_id)
            .join(accounts, accounts.c.id == agents.c.account_id)
            .where(where)).all()
    if not found:
        return None, []
    names = [f"{r.name}@v{r.version}" for r in found]  # as seated (`agents.policy_name`)
    return found[0].season, [
        {"name": n, "author": r.owner, "kind": r.kind, "ref": n,
         "model": r.model if r.kind == "model" else None}
        for n, r in zip(names, found, strict=True)]


def _table_book(store: Store, row: dict[str, Any], seat_list: list[dict[str, Any]]
                ) -> list[dict[str, Any]]:
    """A book entry per seat of a table outside a season: its kind (a baseline, a hosted
    policy file, a model, a remote bot or person), what it runs and the account that seated it
    (a seat filled at the start: the table's creator, who chose the filler). The first table
    a name sat at labels it."""
    owners = {s["account_id"] for s in seat_list} | {row["creator_id"]}
    with store.engine.connect() as conn:
        named = {account: name for account, name in conn.execute(
            select(accounts.c.id, accounts.c.name).where(
                accounts.c.id.in_([o for o in owners if o is not None])))}
    book = []
    for seat in seat_list:
        name, ref = seat["policy_name"], seat.get("baseline") or seat["policy_name"]
        kind = {"scripted": "baseline", "llm": "model"}.get(seat["kind"], seat["kind"])
        if kind == "baseline" and ref.startswith("policy:"):
            kind = "policy_file"  # an operator's file: the book names it by its file name
        owner = seat["account_id"] if seat["account_id"] is not None else row["creator_id"]
        book.append({"name": name, "author": named.get(owner, ""), "kind": kind, "ref": ref,
                     "model": seat.get("model") if kind == "model" else None})
    return book


def _season_outcome(store: Store, table_id: str) -> str | None:
    """The season's outcome of a table (`ratings.rate_finished`), None for other tables."""
    with store.engine.connect() as conn:
        return conn.execute(select(season_tables.c.outcome).where(
            season_tables.c.table_id == table_id)).scalar_one_or_none()
