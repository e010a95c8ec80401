"""Helpers for the plugin tests: the installed `cogleague` command and a real `cogleague serve`.

The fourth game (`examples/threshold`) must work through the hosts as any user meets them, so
these tests drive the console script in child processes, where the game is found only through
its entry point, never registered by hand.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from helpers.net import hold_port
from helpers.serving import serving_port

NOT_INSTALLED = ("the example game is not installed: pip install -e examples/threshold "
                 "(.ci/run does)")
COGLEAGUE = Path(sys.executable).with_name("cogleague")
OPERATOR_KEY = "plugin-operator-key-0123456789"


def need_plugin() -> None:
    """Skip without the package locally; under CI=true (`.ci/run`) its absence is a failure."""
    if os.environ.get("CI") == "true":
        try:
            import cogleague_threshold  # noqa: F401
        except ImportError:
            pytest.fail(NOT_INSTALLED, pytrace=False)
    pytest.importorskip("cogleague_threshold", reason=NOT_INSTALLED)


def cli(*args: str, cwd: Path | None = None, timeout: float = 120.0
        ) -> subprocess.CompletedProcess[str]:
    """Run the installed ``cogleague`` console script (this checkout's sources first)."""
    return subprocess.run([str(COGLEAGUE), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "COLUMNS": "200"})


class Served:
    """`cogleague serve` on a loopback port over a SQLite file; stopped by `stop`. The first
    start asks for any free port (``--port 0``) and reads the one bound from the "serving on"
    line: a port chosen here and bound by the command later could be taken meanwhile (another
    xdist worker's server) and /healthz answered by someone else. A restart after `kill` binds
    it again; `kill` holds it meanwhile (`hold_port`), so no one else's server takes it."""

    def __init__(self, tmp: Path) -> None:
        self.port = 0
        self.url = ""
        self.db = f"sqlite:///{tmp / 'server.db'}"
        self.log = tmp / "serve.log"
        self._held: socket.socket | None = None
        self.start()

    def start(self) -> None:
        seen = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [str(COGLEAGUE), "serve", "--port", str(self.port), "--db", self.db,
                 "--operator-key", OPERATOR_KEY, "--log-level", "warning"],
                stdout=out, stderr=subprocess.STDOUT)
        try:
            bound = serving_port(self.proc, self.log, seen=seen)
        except AssertionError:
            self.stop()
            raise
        finally:
            self._release()
        assert self.port in (0, bound), (self.port, bound)  # a restart: the same port again
        self.port, self.url = bound, f"http://127.0.0.1:{bound}"
        deadline = time.monotonic() + 120.0
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"cogleague serve exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=5.0).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"cogleague serve did not come up: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        self.proc.kill()
        self.proc.wait(60)
        self._held = hold_port(self.port)

    def _release(self) -> None:
        if self._held is not None:
            self._held.close()
            self._held = None

    def stop(self) -> None:
        self._release()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
