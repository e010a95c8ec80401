"""Loopback helpers for tests that start real servers."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    """A port that was free on 127.0.0.1 a moment ago: only for a server that cannot be asked
    for port 0 and is retried when the port was taken meanwhile (PostgreSQL, helpers/postgres);
    `cogleague serve` gets ``--port 0`` (helpers/serving), a refused URL `refused_port`."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port that refuses connections while the block runs: bound here but never
    listening, so no other process (another xdist worker's server) can start listening on it
    meanwhile, as it could on a port merely found free."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


def hold_port(port: int) -> socket.socket | None:
    """Keep `port` from other processes while a server that had it restarts: a loopback socket
    bound there with SO_REUSEADDR and never listening. Linux then hands the port to no one
    asking for any free port (bind to port 0), yet lets a server binding it by number with
    SO_REUSEADDR (as `cogleague serve` does) bind and listen. None if it is taken already.
    Close it once the server listens again."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        s.close()
        return None
    return s
