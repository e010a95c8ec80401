"""`cogleague serve` on a port of its own choosing, for tests that start the command itself.

A port picked free by the test and bound by the command later can be taken in between (another
xdist worker's server or PostgreSQL cluster), and a readiness check may then reach someone
else's server. So the command gets ``--port 0`` and the test reads the port it bound from its
"serving on http://HOST:PORT" line, which it prints only once it listens.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

SERVING = re.compile(r"serving on http://[^\s/]+:(\d+)")
"""The line `cogleague serve` prints once it listens; group 1 is the bound port."""


def serving_port(proc: subprocess.Popen[bytes], log: Path, *, seen: int = 0,
                 within_s: float = 120.0) -> int:
    """The port `proc` (a `cogleague serve` writing its stdout to `log`) listens on, read from
    its "serving on" line past byte `seen` of `log` (a liveness bound: a loaded machine's
    start-up is slow; an exit before the line fails at once, with what it printed)."""
    deadline = time.monotonic() + within_s
    while True:
        exited = proc.poll() is not None  # read before the log: a line then exit is found
        text = log.read_bytes()[seen:].decode(errors="replace") if log.exists() else ""
        found = SERVING.search(text)
        if found is not None:
            return int(found.group(1))
        if exited:
            raise AssertionError(f"cogleague serve exited ({proc.returncode}) before serving:"
                                 f"\n{text[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"cogleague serve printed no 'serving on' line:\n{text[-3000:]}")
        time.sleep(0.05)


def start_serve(argv: Sequence[str], log: Path, *, cwd: Path | None = None,
                env: Mapping[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """Start `argv` (a `cogleague serve … --port 0 …` command line) with stdout and stderr
    appended to `log`: the process and the port it bound."""
    assert "--port" in argv and argv[list(argv).index("--port") + 1] == "0", argv
    seen = log.stat().st_size if log.exists() else 0
    with log.open("ab") as out:
        proc = subprocess.Popen(list(argv), stdout=out, stderr=subprocess.STDOUT, cwd=cwd,
                                env=None if env is None else dict(env))
    try:
        return proc, serving_port(proc, log, seen=seen)
    except BaseException:
        stop(proc)
        raise


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not ended within 30 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)


DOC_PORT = "8000"
"""The port the documented scripts serve on."""

WAIT_FOR_PORT = """\
for _ in $(seq 2400); do
  PORT=$(sed -n 's/^serving on http:[^ ]*:\\([0-9]*\\) .*/\\1/p' {log} 2>/dev/null || true)
  [ -n "$PORT" ] && break
  kill -0 $! 2>/dev/null || {{ echo "cogleague serve exited:" >&2; cat {log} >&2; exit 1; }}
  sleep 0.05
done
[ -n "$PORT" ] || {{ echo "cogleague serve printed no 'serving on' line" >&2; exit 1; }}
"""


def on_any_port(script: str, log: Path) -> str:
    """A documented shell script that starts ``cogleague serve --port 8000 … &`` and then
    talks to http://127.0.0.1:8000, changed to serve on ``--port 0`` with its stdout in `log`,
    wait for the "serving on" line, and talk to the port it names (``$PORT``) instead. `$!`
    and job numbers are as the script expects (the wait starts no job)."""
    lines = script.splitlines()
    starts = [i for i, line in enumerate(lines)
              if " serve " in line and f"--port {DOC_PORT}" in line and line.rstrip().endswith("&")]
    assert len(starts) == 1, f"one backgrounded `serve --port {DOC_PORT}` line, not {starts}"
    at = starts[0]
    started = lines[at].replace(f"--port {DOC_PORT}", "--port 0").rstrip()[:-1].rstrip()
    quoted = shlex.quote(str(log))
    lines[at] = f"{started} > {quoted} &"
    lines.insert(at + 1, WAIT_FOR_PORT.format(log=quoted).rstrip("\n"))
    changed = "\n".join(lines).replace(f"127.0.0.1:{DOC_PORT}", "127.0.0.1:$PORT") + "\n"
    assert DOC_PORT not in changed, f"port {DOC_PORT} left in the script:\n{changed}"
    return changed
