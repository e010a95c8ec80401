"""One asyncio lock per key that exists only while someone holds or waits for it.

`TableService` serializes the changes of each table with a lock per table id. A dict of locks
that only grows would keep one entry for every id anyone ever named — unknown ids included,
so 20,000 requests for made-up 8 KB ids would pin their memory forever. Here an entry is
dropped when its last user leaves.
"""

from __future__ import annotations

import asyncio
from types import TracebackType


class _Entry:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0  # holders and waiters


class _Held:
    def __init__(self, locks: KeyedLocks, key: str) -> None:
        self.locks = locks
        self.key = key

    async def __aenter__(self) -> None:
        entry = self.locks.entries.get(self.key)
        if entry is None:
            entry = self.locks.entries[self.key] = _Entry()
        entry.users += 1
        try:
            await entry.lock.acquire()
        except BaseException:
            self._leave(entry)
            raise

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        entry = self.locks.entries[self.key]
        entry.lock.release()
        self._leave(entry)

    def _leave(self, entry: _Entry) -> None:
        entry.users -= 1
        if entry.users == 0 and self.locks.entries.get(self.key) is entry:
            del self.locks.entries[self.key]


class KeyedLocks:
    def __init__(self) -> None:
        self.entries: dict[str, _Entry] = {}

    def __call__(self, key: str) -> _Held:
        return _Held(self, key)

    def __len__(self) -> int:
        return len(self.entries)
