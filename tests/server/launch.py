"""Run the table server for tests: ``python tests/server/launch.py FD SETTINGS_JSON``.

FD is a listening socket the parent bound and passed down (`ServerProcess.start`): the port
is held from the moment it is chosen, so no other process (another test's server, another
xdist worker's) can take it between the choice and the child's bind, and the readiness
check cannot reach someone else's server on it.

The toy game is registered as an extra game; everything else is the real server on uvicorn,
as `cogleague serve` runs it (`server/serving.py`)."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: helpers.*, server.*

from cogleague.server import listen, serving
from cogleague.server.app import create_app
from cogleague.server.settings import Settings

if __name__ == "__main__":
    sock = socket.socket(fileno=int(sys.argv[1]))
    port = listen.bound_port(sock)
    settings = Settings(**{"node_url": f"http://127.0.0.1:{port}", **json.loads(sys.argv[2])})
    serving.run(create_app(settings), settings, sock, "warning")
