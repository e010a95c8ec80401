"""The agent sockets opened with an API key, closed when their account gets a new key.

A key is checked when `/ws/agent` connects; the socket then stays open for days. When the
person makes a new key (`POST /session/api-key`, on this process or, via the ``keys:``
notice, on another), every socket of that account opened with another key is closed with
1008 and the reason, so the old key stops playing at once. A socket registers before it
checks its key a second time: a new key committed between the connect's read and the
registration is caught by that check, one committed after it by the notice.
"""

from __future__ import annotations

import logging
from typing import Protocol

from sqlalchemy import Connection, select

from cogleague.server.store import Store, accounts

log = logging.getLogger("cogleague.server")

REVOKED = "the account has a new API key; reconnect with it"
"""The close reason (1008) of a socket opened with a key that was replaced."""


class Closable(Protocol):
    def close(self, code: int, reason: str) -> None: ...


class KeyWatch:
    """Open agent sockets by account, each with the digest of the key it was opened with."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.open: dict[int, dict[Closable, str]] = {}

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

        current = await self.store.tx(read)
        for sock, key_digest in list(self.open.get(account_id, {}).items()):
            if key_digest != current:
                self.remove(account_id, sock)
                sock.close(1008, REVOKED)

    async def heard(self, account_id: int) -> None:
        """`check` for another process's ``keys:`` notice (a failed read is logged: the
        notice's task has nobody to raise to)."""
        try:
            await self.check(account_id)
        except Exception as exc:
            log.warning("could not check the agent sockets of account %d after its new API "
                        "key: %s", account_id, exc)
