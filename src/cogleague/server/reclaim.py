"""Taking back a seat whose token was lost (`POST /tables/{id}/reclaim`).

A seat token is shown once, at the join; a person who joined from another browser, cleared its
storage, or whose bot crashed before saving the token, still holds the seat but could not play
it (a second join answers `already_seated`). The account that holds the seat may ask for a new
token while the table is open or running: the seat's stored digest is replaced, so the old
token is refused at its next connect on every process (tokens are checked against the
database), and a socket still open with it is closed with `RECLAIMED` — on this process at
once, on the others when they hear the ``seat:<table id>:<seat>`` notice (PostgreSQL). A
process whose listener was down when the notice was sent never hears it: once its listener is
back it checks the token of every seat socket it holds (`recheck_all`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, select, update

from cogleague.server.auth import digest, new_seat_token
from cogleague.server.errors import ApiError
from cogleague.server.seating import Account
from cogleague.server.store import OPEN, RUNNING, loads, notify, seats, tables

if TYPE_CHECKING:
    from cogleague.server.tables import TableService

log = logging.getLogger("cogleague.server")

RECLAIMED = "this seat was taken back with a new token; this token no longer works"
"""The close reason (1008) of a socket opened with a seat token that was replaced."""
CLOSE_CODE = 1008
CHUNK = 500
"""Tables read per query by `recheck_all` (bounded bound parameters)."""


async def reclaim(svc: TableService, account: Account, table_id: str) -> dict[str, Any]:
    """A fresh token for the seat `account` holds at an open or running table."""
    async with svc.lock(table_id):
        row, seat_list = await svc.row(table_id)
        if not any(s["account_id"] == account.id for s in seat_list):
            raise ApiError(404, "not_found", "this account holds no seat at this table")
        token = new_seat_token()
        token_digest = digest(token)

        def write(conn: Connection) -> tuple[int, str]:
            """Replace the seat's digest under the table's row lock (an end on another
            process may have committed since the read); a retry after a lost commit answer
            writes the same digest again."""
            state = conn.execute(select(tables.c.state).where(tables.c.id == table_id)
                                 .with_for_update()).scalar_one()
            if state not in (OPEN, RUNNING):
                raise ApiError(409, "wrong_state", f"table {table_id} is {state}; a seat is "
                                                   "taken back while the table is open or "
                                                   "running")
            seat: int | None = conn.execute(select(seats.c.seat).where(
                seats.c.table_id == table_id, seats.c.account_id == account.id)
            ).scalar_one_or_none()
            if seat is None:  # given back on another process since the read
                raise ApiError(404, "not_found", "this account holds no seat at this table")
            kind: str = conn.execute(select(seats.c.kind).where(
                seats.c.table_id == table_id, seats.c.seat == seat)).scalar_one()
            conn.execute(update(seats).where(seats.c.table_id == table_id, seats.c.seat == seat)
                         .values(token_digest=token_digest))
            if svc.store.is_postgres:
                notify(conn, f"seat:{table_id}:{seat}")
            return seat, kind

        seat, kind = await svc.store.tx(write)
    count(svc, f"{table_id}:{seat}")
    close_stale(svc, table_id, seat, token_digest)
    return {"table": table_id, "seat": seat, "alias": loads(row["info"])["aliases"][seat],
            "token": token, "kind": kind}


def count(svc: TableService, payload: str) -> None:
    """Note that the seat ``<table id>:<seat>`` was taken back (here or, by its notice, on
    another process): a socket let in on a token read before this note checks again once it
    is attached (`since`), as it may have been let in on the old token."""
    table_id, _, seat_text = payload.rpartition(":")
    if seat_text.isdigit():
        key = (table_id, int(seat_text))
        svc.reclaims[key] = svc.reclaims.get(key, 0) + 1


def since(svc: TableService, table_id: str, seat: int) -> Callable[[], None]:
    """Called before a seat socket's token is read: returns what to call once the socket is
    attached, which checks the seat's token again when it was taken back in between (the
    close of `close_stale` ran before this socket was there to be closed)."""
    before = svc.reclaims.get((table_id, seat), 0), svc.listen_gaps

    def attached() -> None:  # a reclaim heard, or a listener gap (a notice maybe missed)
        if (svc.reclaims.get((table_id, seat), 0), svc.listen_gaps) != before:
            svc._spawn(heard(svc, f"{table_id}:{seat}"))

    return attached


def close_stale(svc: TableService, table_id: str, seat: int, current: str | None) -> None:
    """Close this process's socket of the seat when it was opened with another token than
    the one whose digest is `current` (a socket opened with the new token stays)."""
    room = svc.rooms.get(table_id)
    if room is None or not 0 <= seat < len(room.channels):
        return
    channel = room.channels[seat]
    conn = channel.conn
    opened_with = getattr(conn, "token_digest", None)
    if conn is not None and opened_with is not None and opened_with != current:
        channel.detach(conn)
        conn.close(CLOSE_CODE, RECLAIMED)


async def heard(svc: TableService, payload: str) -> None:
    """Another process's ``seat:<table id>:<seat>`` notice: read the seat's digest and close
    the stale socket here, if this process holds one (a failed read is logged: the notice's
    task has nobody to raise to)."""
    table_id, _, seat_text = payload.rpartition(":")
    room = svc.rooms.get(table_id)
    if room is None or not seat_text.isdigit():
        return
    seat = int(seat_text)
    if not 0 <= seat < len(room.channels) or room.channels[seat].conn is None:
        return

    def read(conn: Connection) -> str | None:
        return conn.execute(select(seats.c.token_digest).where(
            seats.c.table_id == table_id, seats.c.seat == seat)).scalar_one_or_none()

    try:
        current = await svc.store.tx(read)
    except Exception as exc:
        log.warning("table %s: could not check seat %d after it was taken back: %s",
                    table_id, seat, exc)
        return
    close_stale(svc, table_id, seat, current)


async def recheck_all(svc: TableService) -> None:
    """Close every seat socket of this process opened with a token its seat no longer has
    (one read for all of them): run when the listener is back, as a ``seat:`` notice sent
    while it was down was lost (a failed read is logged: nobody waits on this task)."""
    open_seats = [(table_id, seat) for table_id, room in list(svc.rooms.items())
                  for seat, channel in enumerate(room.channels)
                  if getattr(channel.conn, "token_digest", None) is not None]
    if not open_seats:
        return
    ids = sorted({table_id for table_id, _ in open_seats})

    def read(conn: Connection) -> dict[tuple[str, int], str | None]:
        found: dict[tuple[str, int], str | None] = {}
        for at in range(0, len(ids), CHUNK):
            rows = conn.execute(select(seats.c.table_id, seats.c.seat, seats.c.token_digest)
                                .where(seats.c.table_id.in_(ids[at:at + CHUNK])))
            for table_id, seat, token_digest in rows:
                found[(table_id, seat)] = token_digest
        return found

    try:
        current = await svc.store.tx(read)
    except Exception as exc:
        log.warning("could not check %d seat socket(s) after the listener came back: %s",
                    len(open_seats), exc)
        return
    for key in open_seats:
        if key in current:  # a seat given back has no row: not a reclaim
            close_stale(svc, *key, current[key])
