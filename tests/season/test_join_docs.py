"""docs/league.md's "Join the league" commands, run as written in a shell (only the port is
changed: the server picks one and the commands use the one it names): a server with the
example season, an account, a registered bot, its tables played by `cogleague agent run`, and
the board that shows it."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers.serving import on_any_port

ROOT = Path(__file__).resolve().parents[2]


def join_commands() -> str:
    text = (ROOT / "docs" / "league.md").read_text(encoding="utf-8")
    section = text.split("## Join the league", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def run_in_a_shell(script: str, folder: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The join commands in bash in `folder` (holding a copy of examples/), the server on the
    port it picks (its log returned beside the result), stopped when the script ends."""
    log = folder / "serve.log"
    shutil.copytree(ROOT / "examples", folder / "examples",
                    ignore=shutil.ignore_patterns("rl", "threshold"))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-ec", "trap 'kill %1 2>/dev/null' EXIT\n"
                           + on_any_port(script, log)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    return done, log


def test_the_documented_join_commands_run_as_written(tmp_path: Path) -> None:
    script = join_commands()
    assert "cogleague agent run" in script and "--season examples/season.toml" in script
    done, log = run_in_a_shell(script, tmp_path)
    assert done.returncode == 0, (done.stdout[-3000:] + done.stderr[-3000:]
                                  + log.read_text()[-3000:])
    assert "my-bot v1  remote  dilemma  cap 2  active  owner me" in done.stdout
    assert "agent my-bot: 10 table(s) played, 0 failed" in done.stdout
    board = json.loads(done.stdout[done.stdout.index('{"league"'):].splitlines()[0])
    rows = {r["agent"]: r for g in board["games"] for r in g["rows"]}
    assert rows["my-bot"]["games"] >= 10 and rows["my-bot"]["owner"] == "me"


async def test_the_documented_python_agent_runs_as_written(make_server: Any,
                                                           tmp_path: Path) -> None:
    """docs/league.md's `run_agent` example (the SDK, not the CLI), on a real server: the
    documented URL and key replaced by the test server's, examples/ on the path."""
    from season.season import account, register, season_file
    from server.support import OPERATOR_KEY

    section = (ROOT / "docs" / "league.md").read_text(encoding="utf-8").split(
        "## Join the league", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None, "no Python example in Join the league"
    code = found.group(1)
    assert "from cogleague.client import run_agent" in code
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    fill_after_s=0.2)))
    key = await account(server.url, OPERATOR_KEY, "me")
    await register(server.url, key, name="my-bot", games=["dilemma"], cap=2)
    script = tmp_path / "agent.py"
    script.write_text(code.replace("http://127.0.0.1:8000", server.url), encoding="utf-8")
    env = {**os.environ, "COGLEAGUE_KEY": key, "PYTHONPATH": str(ROOT / "examples")}
    done = await asyncio.to_thread(subprocess.run, [sys.executable, str(script)], env=env,
                                   capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    said = re.search(r"(\d+) tables played, 0 failed", done.stdout)
    # at least 3: with a cap of 2 a second table may end before the stop is seen
    assert said is not None and int(said.group(1)) >= 3, done.stdout


def test_the_documented_join_commands_stop_with_a_clear_error_when_the_key_is_wrong(
        tmp_path: Path) -> None:
    """The same commands when the account cannot be made (here the server runs with another
    operator key; so it goes when another server already holds the port): the script stops
    at that step with the server's reason, not a Python traceback and an empty key."""
    script = join_commands()
    serve = next(line for line in script.splitlines() if "cogleague serve" in line)
    script = script.replace(serve, serve.replace("operator-key-change-me",
                                                 "another-operator-key-1234"))
    done, _ = run_in_a_shell(script, tmp_path)
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert "Traceback" not in said and "--operator-key: not the operator key" in said, said
    assert "agent register" not in said and "Missing option '--key'" not in said, said
