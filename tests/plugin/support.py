"""Helpers for the plugin tests: the installed `cogleague` command and a real `cogleague serve`.

The fourth game (`examples/threshold`) must work through the hosts as any user meets them, so
these tests drive the console script in child processes, where the game is found only through
its entry point, never registered by hand.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

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


SERVING = re.compile(r"serving on http://127\.0\.0\.1:(\d+)")
"""The line `cogleague serve` prints once it listens."""


class Served:
    """`cogleague serve` on a loopback port over a SQLite file; stopped by `stop`. The first
    start asks for any free port (``--port 0``) and reads the one bound from the "serving on"
    line: a port chosen here and bound by the command later could be taken meanwhile (another
    xdist worker's server) and /healthz answered by someone else. A restart binds it again."""

    def __init__(self, tmp: Path) -> None:
        self.port = 0
        self.url = ""
        self.db = f"sqlite:///{tmp / 'server.db'}"
        self.log = tmp / "serve.log"
        self.start()

    def start(self) -> None:
        seen = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [str(COGLEAGUE), "serve", "--port", str(self.port), "--db", self.db,
                 "--operator-key", OPERATOR_KEY, "--log-level", "warning"],
                stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120.0
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"cogleague serve exited: {self.log.read_text()[-2000:]}")
            if not self.port:
                found = SERVING.search(self.log.read_bytes()[seen:].decode(errors="replace"))
                if found is None:
                    time.sleep(0.05)
                    continue
                self.port = int(found.group(1))
                self.url = f"http://127.0.0.1:{self.port}"
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

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
