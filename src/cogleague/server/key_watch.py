"""The agent sockets opened with an API key, closed when their account gets a new key.

A key is checked when `/ws/agent` connects; the socket then stays open for days. When the
person makes a new key (`POST /session/api-key`, on this process or, via the ``keys:``
notice, on another), every socket of that account opened with another key is closed with
1008 and the reason, so the old key stops playing at once. A socket registers before it
checks its key a second time: a new key committed between the connect's read and the
registration is caught by that check, one committed after it by the notice. A notice can be
missed (another process's listener reconnecting when it was sent), so every open socket's key
is also checked again at most every `Settings.key_recheck_s` (from the sockets' ping loops,
one read per process for all of them).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Protocol

from sqlalchemy import Connection, select

from cogleague.server.every import Every
from cogleague.server.store import Store, accounts

log = logging.getLogger("cogleague.server")

REVOKED = "the account has a new API key; reconnect with it"
"""The close reason (1008) of a socket opened with a key that was replaced."""
RECHECK_CHUNK = 500
"""Accounts read per query by `recheck` (bounded bound parameters)."""


class Closable(Protocol):
    def close(self, code: int, reason: str) -> None: ...


class KeyWatch:
    """Open agent sockets by account, each with the digest of the key it was opened with."""

    def __init__(self, store: Store, recheck_s: float = 15.0) -> None:
        self.store = store
        self.open: dict[int, dict[Closable, str]] = {}
        self.rechecks = Every(recheck_s, start_due=False)

    def add(self, account_id: int, key_digest: str, conn: Closable) -> None:
        self.open.setdefault(account_id, {})[conn] = key_digest

    def remove(self, account_id: int, conn: Closable) -> None:
        sockets = self.open.get(account_id, {})
        sockets.pop(conn, None)
        if not sockets:
            self.open.pop(account_id, None)

    async def check(self, account_id: int) -> None:
        """Close the account's sockets opened with a key that is no longer its key."""
        if account_id not in self.open:
            return

        def read(conn: Connection) -> str | None:
            return conn.execute(select(accounts.c.key_digest).where(
                accounts.c.id == account_id)).scalar_one_or_none()

        seen = dict(self.open.get(account_id, {}))
        self._close_stale(account_id, seen, await self.store.tx(read))

    def _close_stale(self, account_id: int, seen: dict[Closable, str],
                     current: str | None) -> None:
        """Close the sockets of `seen` (those open when `current` was read: one opened since
        may hold a key newer than the read) still open with another key than `current`."""
        for sock, key_digest in seen.items():
            if key_digest != current and sock in self.open.get(account_id, {}):
                self.remove(account_id, sock)
                sock.close(1008, REVOKED)

    async def recheck(self, force: bool = False) -> None:
        """`check` every account with an open socket, when `recheck_s` has passed since the
        last time or when `force`d (this process's listener missed notices); a failed read
        is logged and tried at the next period."""
        if not self.open or not (self.rechecks.due() or force):
            return
        seen = {account_id: dict(socks) for account_id, socks in self.open.items()}
        ids = list(seen)

        def read(conn: Connection) -> dict[int, str]:
            return dict(_keys(conn, ids))

        try:
            current = await self.store.tx(read)
        except Exception as exc:
            log.warning("could not re-check the keys of %d account(s) with agent sockets: %s",
                        len(ids), exc)
            return
        for account_id, socks in seen.items():
            self._close_stale(account_id, socks, current.get(account_id))

    async def heard(self, account_id: int) -> None:
        """`check` for another process's ``keys:`` notice (a failed read is logged: the
        notice's task has nobody to raise to)."""
        try:
            await self.check(account_id)
        except Exception as exc:
            log.warning("could not check the agent sockets of account %d after its new API "
                        "key: %s", account_id, exc)


def _keys(conn: Connection, ids: list[int]) -> Iterable[tuple[int, str]]:
    for at in range(0, len(ids), RECHECK_CHUNK):
        chunk = ids[at:at + RECHECK_CHUNK]
        yield from conn.execute(select(accounts.c.id, accounts.c.key_digest)
                                .where(accounts.c.id.in_(chunk)))
