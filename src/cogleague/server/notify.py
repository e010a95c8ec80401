"""PostgreSQL `LISTEN/NOTIFY`: how processes sharing a database hear about each other's tables.

One listening connection per process, on a thread of its own; each notice is handed to the
event loop (`TableService.on_notice`). A notice sent while that connection is down is lost, so
once it is back `on_reconnect` has the process read again what notices would have told it
(the seat tokens of its open seat sockets, its agent sockets' keys).

Notices: ``log:<id>,<id>…`` (log rows committed: mirrors refresh), ``state:<id>`` (a table
started, ended or changed owner: local rooms and live tables follow, Lobby sockets get the
table) and ``lobby:<id>`` (a table was created or a seat taken or given back: Lobby sockets get
it, lobby_feed.py); ``seat:<id>:<seat>`` (a seat taken back with a new token: the process
holding a socket opened with the old one closes it, reclaim.py); ``keys:<account id>`` (a
person made a new API key, or a process started with a new operator key: every process
forgets the accounts it cached by key and closes the agent sockets opened with the old key, so
it stops working everywhere, people.py, key_watch.py).
The sender side is `store.notify`, inside the transaction that made the change, so a notice
is delivered only once its change is committed. SQLite needs none of this: one process owns
the file.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from cogleague.server.dbretry import throttle
from cogleague.server.store import NOTIFY_CHANNEL

log = logging.getLogger("cogleague.server")

APPLICATION_NAME = "cogleague-listen"
"""The listening connection's name in `pg_stat_activity` (an operator, or a test, can tell
it from the pool's)."""


class Listener:
    def __init__(self, db_url: str, on_notice: Callable[[str], None],
                 loop: asyncio.AbstractEventLoop,
                 on_reconnect: Callable[[], None] | None = None) -> None:
        self.url = db_url.replace("postgresql+psycopg://", "postgresql://", 1)
        self.on_notice = on_notice
        self.on_reconnect = on_reconnect
        """Called on the loop each time LISTEN is back after its connection was lost: the
        notices sent meanwhile are gone, so what they would have told is read again."""
        self.loop = loop
        self.stopping = threading.Event()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, name="cogleague-listen", daemon=True)

    def start(self) -> None:
        self.thread.start()
        self.ready.wait(10)

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)

    def _run(self) -> None:
        import psycopg

        lost = False
        while not self.stopping.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True,
                                     application_name=APPLICATION_NAME) as conn:
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.ready.set()
                    if lost and self.on_reconnect is not None:
                        self.loop.call_soon_threadsafe(self.on_reconnect)
                    lost = False
                    while not self.stopping.is_set():
                        for notice in conn.notifies(timeout=0.5):
                            self.loop.call_soon_threadsafe(self.on_notice, notice.payload)
            except Exception:
                if self.stopping.is_set():
                    return
                lost = True
                throttle.warn("listen", "LISTEN connection lost; reconnecting")
                self.stopping.wait(0.5)
