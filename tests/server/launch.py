"""Run the table server for tests: ``python tests/server/launch.py PORT SETTINGS_JSON``.

The toy game is registered as an extra game; everything else is the real server on uvicorn."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: helpers.*, server.*

import uvicorn

from cogleague.server.app import create_app
from cogleague.server.settings import TRANSPORT_MAX_FRAME_BYTES, Settings
from cogleague.server.transport import WS_PROTOCOL

if __name__ == "__main__":
    port = int(sys.argv[1])
    settings = Settings(**{"node_url": f"http://127.0.0.1:{port}", **json.loads(sys.argv[2])})
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning",
                access_log=False, ws_max_size=TRANSPORT_MAX_FRAME_BYTES, ws=WS_PROTOCOL)
