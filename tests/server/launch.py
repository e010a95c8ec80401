"""Run the table server for tests: ``python tests/server/launch.py PORT SETTINGS_JSON``.

The toy game is registered as an extra game; everything else is the real server on uvicorn,
as `cogleague serve` runs it (`server/serving.py`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: helpers.*, server.*

from cogleague.server import listen, serving
from cogleague.server.app import create_app
from cogleague.server.settings import Settings

if __name__ == "__main__":
    port = int(sys.argv[1])
    settings = Settings(**{"node_url": f"http://127.0.0.1:{port}", **json.loads(sys.argv[2])})
    serving.run(create_app(settings), settings, listen.bind("127.0.0.1", port), "warning")
