"""`cogleague replay open FILE`: the Theater for one replay, on a loopback port.

A tiny FastAPI app with the web router; the replay is served at `/api/replay-file` and the
Theater opens it with `/theater?file=1`. Loopback only: the file is the user's, not the world's.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from cogleague.games import registry
from cogleague.web.routes import REPLAY_FILE_STATE, router

THEATER_PATH = "/theater?file=1"


def check_replay(path: Path) -> str:
    """The replay's format; ValueError with a one-line reason when FILE is not a replay."""
    if not path.is_file():
        raise ValueError(f"FILE {path} does not exist")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"FILE {path} is not a JSON replay: {exc}") from None
    fmt = doc.get("format") if isinstance(doc, dict) else None
    known = [d.replay_format for d in registry.available()]
    if fmt not in known:
        raise ValueError(f"FILE {path}: format {fmt!r} is not a known replay format "
                         f"(known: {', '.join(known)})")
    return str(fmt)


def check_loopback(host: str) -> None:
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"--host must be a loopback address such as 127.0.0.1 (got {host!r})")


def create_replay_app(path: Path) -> FastAPI:
    app = FastAPI(title="cogleague replay", docs_url=None, redoc_url=None, openapi_url=None)
    setattr(app.state, REPLAY_FILE_STATE, path.resolve())
    app.include_router(router)
    return app


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0 picks a free one), so the URL is known before serving."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{THEATER_PATH}"


def serve(path: Path, host: str = "127.0.0.1", port: int = 0, open_browser: bool = True,
          announce: Callable[[str], Any] = print) -> None:
    """Serve until interrupted; `announce` gets the URL once the socket is listening."""
    check_loopback(host)
    check_replay(path)
    sock = bind(host, port)
    url = url_of(sock)
    announce(url)
    if open_browser:
        webbrowser.open(url)
    config = uvicorn.Config(create_replay_app(path), log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
