"""Loopback helpers for tests that start real servers."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port that was free on 127.0.0.1 a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
