"""`cogleague serve` says where it serves only once it listens there; a busy port is one line
and exit code 2, with nothing announced."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx

from helpers.serving import start_serve, stop

COGLEAGUE = [sys.executable, "-c", "from cogleague.cli import main; main()"]


def test_a_busy_port_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([*COGLEAGUE, "serve", "--port", str(port), "--db",
                               f"sqlite:///{tmp_path / 's.db'}", "--operator-key", "k" * 20],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "serving on" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --port {port}: cannot listen on "
                                                   f"127.0.0.1:{port}"), done.stderr
    assert not (tmp_path / "s.db").exists()  # refused before the database was opened


def test_serving_on_is_printed_once_the_port_is_bound(tmp_path: Path) -> None:
    """Asked for any port (`--port 0`), it names the one it bound, and listens there first."""
    log = tmp_path / "serve.log"
    proc, port = start_serve([*COGLEAGUE, "serve", "--port", "0", "--db",
                              f"sqlite:///{tmp_path / 's.db'}", "--operator-key", "k" * 20,
                              "--log-level", "warning"], log)
    try:
        line = log.read_text().splitlines()[0]
        assert port != 0 and line.startswith(f"serving on http://127.0.0.1:{port} "), line
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # accepted at once: the port was bound and listening before the line
        for _ in range(300):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                continue
        else:
            raise AssertionError("the server did not answer")
    finally:
        stop(proc)
