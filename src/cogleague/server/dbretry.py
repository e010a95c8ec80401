"""Riding out a database outage: which errors are worth waiting for, and how long to wait.

A lost connection, a restarting PostgreSQL, a locked or full SQLite file: the write is tried
again with exponential backoff (`BACKOFF_S` doubling up to `MAX_BACKOFF_S`) instead of failing
the table it belongs to. Table writes (log rows, the end and its settlement, aborts, league
records) wait as long as it takes, so a table resumes where its durable log says once the
database is back; a request's reads and writes wait `Store.request_wait_s` and then answer 503
`unavailable`. One warning line when an outage starts and one when it ends, per process.
"""

from __future__ import annotations

import logging
import sqlite3
import time

from sqlalchemy import exc as sa_exc

from cogleague.server.loglimit import Throttled

log = logging.getLogger("cogleague.server")
throttle = Throttled(log, every_s=30.0)

BACKOFF_S = 0.05
MAX_BACKOFF_S = 1.0


def transient(exc: BaseException) -> bool:
    """True for an error that may go away by itself: the database is unreachable, restarting,
    locked or out of space — not a constraint, a bad statement or a refusal of ours."""
    if isinstance(exc, sa_exc.DBAPIError):
        if exc.connection_invalidated:
            return True
        return isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError)
    if isinstance(exc, sqlite3.OperationalError):
        return True
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg ships with the project
        return False
    return isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError)


class Unavailable(RuntimeError):
    """The database did not come back within a request's wait (answered with HTTP 503)."""


class Outage:
    """This process's view of the database: when it went away, and backoff delays."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.total_s = 0.0
        """Seconds the database was away, summed over every outage seen so far."""
        self.count = 0

    def failed(self, exc: BaseException, what: str) -> None:
        if self.since is None:
            self.since = time.monotonic()
            self.count += 1
            log.warning("database unavailable (%s: %s: %s); retrying with backoff", what,
                        type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")
        else:
            throttle.warn(("db", what), "database still unavailable (%s)", what)

    def recovered(self) -> None:
        if self.since is not None:
            away = time.monotonic() - self.since
            self.total_s += away
            self.since = None
            log.warning("database reachable again after %.1f s", away)


def backoff(attempt: int) -> float:
    """The wait before retry number `attempt` (0-based)."""
    return min(MAX_BACKOFF_S, BACKOFF_S * 2 ** min(attempt, 16))
