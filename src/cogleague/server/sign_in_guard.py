"""A few browser sign-in tries per name, not unlimited ones (a password guesser's budget).

Each try at a name counts as a failure from the moment it starts (a success takes it back):
forty guesses sent at once, each waiting for its scrypt check, cannot all pass the count.
After `failures` of them within `window_s`, the name is refused (429, with the seconds to wait)
until the oldest is that old; the refusal comes before any scrypt. Names that do not exist
count the same, so the answer tells nothing about which names exist.

The count lives in the database (`sign_in_tries`, one row per name, locked while a try is
counted), so every process sharing it, and a restarted one, spends the same budget: N
processes do not allow N times as many guesses. A process remembers the names it saw refused
until their wait ends and refuses those again without a database read (a flood of guesses at
a locked name costs nothing). Anyone can lock a name's browser sign-in this way for the
window; its API key keeps working.

The same count, keyed by client address in its own table (`sign_up_tries`), limits self
sign-ups (people.py): each costs an scrypt hash and makes an account, so a success counts too.
Keyed ``@address`` in `sign_in_tries`, it limits one address's sign-in tries at any names
(`Settings.sign_ins_per_client`, successes too): the per-name count alone lets one address
try a password at every name, each try an scrypt check.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable

from sqlalchemy import Connection, Table, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite

from cogleague.server.every import Every
from cogleague.server.store import sign_in_tries

MAX_NAMES = 100_000
"""Refused names a process remembers at once; the oldest entry goes first beyond it."""


class SignInGuard:
    def __init__(self, failures: int, window_s: float,
                 clock: Callable[[], float] = time.time, table: Table = sign_in_tries) -> None:
        self.failures, self.window_s, self.clock = failures, window_s, clock
        self.table = table
        self.locked_until: dict[str, float] = {}
        self.sweeps = Every(window_s, clock)

    def locked(self, name: str) -> float:
        """Seconds until `name` may be tried, as this process last saw it refused (no I/O)."""
        until = self.locked_until.get(name)
        if until is None:
            return 0.0
        wait = until - self.clock()
        if wait <= 0:
            del self.locked_until[name]
            return 0.0
        return wait

    def begin(self, conn: Connection, name: str) -> float:
        """Count a try at `name` (in a transaction): 0.0 when it may go on, else the seconds
        until it may. The name's row is locked first, so two processes cannot both take the
        last try."""
        dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
        rows = self.table
        conn.execute(dialect.insert(rows).values(name=name, tries="[]", last_at=0.0)
                     .on_conflict_do_nothing(index_elements=["name"]))
        stored = conn.execute(select(rows.c.tries).where(rows.c.name == name)
                              .with_for_update()).scalar_one()
        t = self.clock()
        tries = [at for at in json.loads(stored) if at > t - self.window_s]
        wait = 0.0
        if len(tries) >= self.failures:
            wait = max(tries[0] + self.window_s - t, 0.001)
            self.locked_until.pop(name, None)
            self.locked_until[name] = t + wait
            if len(self.locked_until) > MAX_NAMES:
                del self.locked_until[next(iter(self.locked_until))]
        else:
            tries.append(t)
        conn.execute(update(rows).where(rows.c.name == name)
                     .values(tries=json.dumps(tries), last_at=max(tries, default=0.0)))
        return wait

    def succeeded(self, conn: Connection, name: str) -> None:
        """The right password: the name's failures are forgotten."""
        self.locked_until.pop(name, None)
        conn.execute(delete(self.table).where(self.table.c.name == name))

    def sweep_due(self) -> bool:
        """Whether the names with no try left in the window should be deleted now (at most
        once a window per process: that bounds the table)."""
        return self.sweeps.due()

    def sweep(self, conn: Connection) -> None:
        conn.execute(delete(self.table)
                     .where(self.table.c.last_at <= self.clock() - self.window_s))

    @staticmethod
    def retry_after(wait_s: float) -> str:
        return str(max(1, math.ceil(wait_s)))
