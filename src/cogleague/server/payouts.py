"""Settlement of a table that ended: the ledger entries of its stakes (payouts by the game's
paid-table rule, or refunds), and its episode recorded in the league's store."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from cogleague.core import settlement
from cogleague.server import wallets
from cogleague.server.catalog import Catalog
from cogleague.server.seating import game_of
from cogleague.server.store import Store

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


def refund_entries(row: dict[str, Any], seat_list: list[dict[str, Any]]
                   ) -> list[settlement.LedgerEntry]:
    """Every stake back (no rake): an aborted table."""
    paying = [s for s in seat_list if s["account_id"] is not None]
    return settlement.settlement_entries(
        row["id"], row["stake"], 0, [0] * len(paying),
        [wallets.ledger_name(s["account_id"]) for s in paying], "aborted")


async def record_league(store: Store, row: dict[str, Any], names: list[str],
                        results: dict[str, Any], finished: float) -> None:
    """The finished episode in the league's tables of the same database (a failure is logged:
    the table itself is settled already)."""
    try:
        from cogleague.league.store import record_episode
    except ImportError:  # the league's optional dependencies are not installed
        return
    duration = finished - (row["started_at"] or finished)

    def record() -> None:
        record_episode(store.engine, game=row["game"], variant=row["variant"],
                       seed=row["seed"], policy_names=names, results=results,
                       source="server", table_id=row["id"], duration_s=duration)

    try:
        await asyncio.get_running_loop().run_in_executor(None, record)
    except Exception:
        log.exception("table %s: recording in the league failed", row["id"])
