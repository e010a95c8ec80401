"""The listening socket of `cogleague serve`, bound before anything is announced.

uvicorn binds inside `run`, after the command has printed where it serves; on a busy port the
user saw "serving on …" and then a failure. Binding here first lets the command print the
address only once it is really listening, and refuse a busy port in one line.
"""

from __future__ import annotations

import socket

BACKLOG = 2048
"""uvicorn's own default backlog."""


class CannotListen(OSError):
    """The address cannot be bound (in use, not ours, unknown host)."""


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to `host`:`port` (port 0: any free port), as uvicorn binds its own."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as exc:
        raise CannotListen(f"--host {host!r} is not an address of this machine "
                           f"({exc.strerror})") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise CannotListen(f"--port {port}: cannot listen on {host}:{port} "
                           f"({exc.strerror or exc}); is another server running there?"
                           ) from None
    sock.listen(BACKLOG)  # from here on, a client's connect waits in the backlog
    sock.set_inheritable(True)
    return sock


def bound_port(sock: socket.socket) -> int:
    return int(sock.getsockname()[1])
