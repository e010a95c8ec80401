"""One table's bad log row never fails another table's group commit.

Log appends of every running table share a transaction (`store.Store._flush_logs`). When that
transaction fails, `isolate` writes each table's rows again in a transaction of its own: the
tables whose rows go in continue as if nothing happened, and only a table whose own rows
cannot be stored learns it, as a `LogWriteFault` naming the table and the database's reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

Pending = tuple[dict[str, Any], "asyncio.Future[None]"]
"""A queued log row and the future its table's runner awaits."""


class LogWriteFault(RuntimeError):
    """The table's own log rows could not be stored (for example text a database refuses);
    every other table of the same group commit was written without them."""

    def __init__(self, table_id: str, cause: BaseException) -> None:
        super().__init__(f"table {table_id}: its log row could not be stored "
                         f"({type(cause).__name__}: {_plain(cause)})")
        self.table_id = table_id
        self.cause = cause


def _plain(exc: BaseException) -> str:
    """The reason as printable ASCII (it may quote the text that could not be stored)."""
    return str(exc).encode("ascii", "backslashreplace").decode("ascii")[:300]


def by_table(batch: Sequence[Pending]) -> list[tuple[str, list[Pending]]]:
    """The batch's rows grouped by table, in first-seen order."""
    groups: dict[str, list[Pending]] = {}
    for item in batch:
        groups.setdefault(item[0]["table_id"], []).append(item)
    return list(groups.items())


def deliver(items: Sequence[Pending], refused: set[str],
            lost: Callable[[str], BaseException]) -> None:
    """Wake the waiters of committed rows; `lost(table)` for tables the commit refused."""
    for row, fut in items:
        if fut.done():
            continue
        if row["table_id"] in refused:
            fut.set_exception(lost(row["table_id"]))
        else:
            fut.set_result(None)


async def isolate(batch: Sequence[Pending], error: BaseException,
                  append: Callable[[list[dict[str, Any]]], Awaitable[set[str]]],
                  lost: Callable[[str], BaseException]) -> None:
    """After the group commit of `batch` failed with `error`: each table's rows in a
    transaction of their own (none when the batch held one table: `error` was its own)."""
    groups = by_table(batch)
    for table_id, items in groups:
        try:
            if len(groups) == 1:
                raise error
            refused = await append([row for row, _ in items])
        except Exception as exc:
            fault = LogWriteFault(table_id, exc)
            for _, fut in items:
                if not fut.done():
                    fut.set_exception(fault)
            continue
        deliver(items, refused, lost)
