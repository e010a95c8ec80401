"""`cogleague serve` and `cogleague bot run` as a user runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

from helpers.net import refused_port
from helpers.serving import start_serve, stop

COGLEAGUE = [sys.executable, "-c", "from cogleague.cli import main; main()"]


def serve(db: Path, log: Path, *extra: str, env: dict[str, str] | None = None
          ) -> tuple[subprocess.Popen[bytes], int]:
    """`cogleague serve` on a port it picks, its output in `log`: the process and the port."""
    return start_serve([*COGLEAGUE, "serve", "--port", "0", "--db", f"sqlite:///{db}",
                        "--log-level", "warning", *extra], log, env=env)


def wait_up(port: int, within_s: float = 120.0) -> None:
    """Until the server answers (a liveness bound: the command's start-up on a loaded machine
    has taken more than the 30 s the old count of tries allowed)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("the server did not come up")


def test_serve_prints_a_generated_operator_key_once(tmp_path: Path) -> None:
    db, first = tmp_path / "s.db", tmp_path / "first.log"
    proc, port = serve(db, first)
    try:
        line = first.read_text().splitlines()[0]
        key = re.search(r"operator key \(shown once, keep it\): (\S+)", line)
        assert key, line
        wait_up(port)
        made = httpx.post(f"http://127.0.0.1:{port}/accounts", json={"name": "ann"},
                          headers={"authorization": f"Bearer {key.group(1)}"})
        assert made.status_code == 201 and made.json()["api_key"].startswith("clk_")
    finally:
        stop(proc)
    second = tmp_path / "second.log"
    proc, port = serve(db, second)  # the second start keeps the key and prints none
    try:
        assert "operator key" not in second.read_text().splitlines()[0]
        wait_up(port)
    finally:
        stop(proc)
    assert key.group(1) not in second.read_text()


def test_cli_errors_are_one_line_with_exit_code_2(tmp_path: Path) -> None:
    with refused_port() as port:
        cases = [
            ["serve", "--operator-key", "short"],
            ["bot", "run", "nocolon", "--server", "http://127.0.0.1:1", "--key", "k", "--table",
             "t"],
            ["bot", "run", "missing_module_xyz:Bot", "--server", "http://127.0.0.1:1", "--key",
             "k", "--table", "t"],
            ["bot", "run", "examples/dilemma_bot.py:PromiseKeeper", "--server",
             f"http://127.0.0.1:{port}", "--key", "k", "--table", "t"],
        ]
        root = Path(__file__).resolve().parents[2]
        for args in cases:
            done = subprocess.run([*COGLEAGUE, *args], capture_output=True, text=True, cwd=root,
                                  timeout=60)
            assert done.returncode == 2, (args, done.stdout, done.stderr)
            assert done.stderr.strip().startswith("error:"), done.stderr
            assert "Traceback" not in done.stderr


def test_agent_refusals_name_the_option_not_the_api_field(tmp_path: Path) -> None:
    proc, port = serve(tmp_path / "s.db", tmp_path / "serve.log", "--open-registration")
    server = f"http://127.0.0.1:{port}"
    try:
        wait_up(port)
        key = httpx.post(f"{server}/accounts", json={"name": "ann"}).json()["api_key"]
        base = ["agent", "register", "a1", "--server", server, "--key", key]
        for extra, option in [(["--games", "dilemma", "--cap", "0"], "--cap"),
                              (["--games", "dilemma", "--kind", "nope"], "--kind"),
                              (["--games", "chess"], "--games"),
                              (["--games", "dilemma", "--kind", "model", "--token-budget", "0"],
                               "--token-budget")]:
            done = subprocess.run([*COGLEAGUE, *base, *extra], capture_output=True, text=True,
                                  cwd=tmp_path, timeout=60)
            assert done.returncode == 2, (extra, done.stdout, done.stderr)
            assert done.stderr.startswith(f"error: {option}"), (extra, done.stderr)
    finally:
        stop(proc)


def test_serve_shows_the_servers_own_info_lines_at_its_log_level(tmp_path: Path) -> None:
    """`--log-level info` (the default) showed uvicorn's lines only: the server's own info
    lines (a new database's schema, a table resumed after a restart) went nowhere, and its
    warnings reached stderr only through Python's last-resort handler, whatever the level."""
    log = tmp_path / "info.log"
    proc, port = start_serve([*COGLEAGUE, "serve", "--port", "0", "--db",
                              f"sqlite:///{tmp_path / 's.db'}", "--operator-key", "k" * 20,
                              "--log-level", "info"], log)
    try:
        wait_up(port)
    finally:
        stop(proc)
    out = log.read_text()
    assert "creating the schema" in out, out
    log = tmp_path / "warning.log"
    quiet, port = start_serve([*COGLEAGUE, "serve", "--port", "0", "--db",
                               f"sqlite:///{tmp_path / 'q.db'}", "--operator-key", "k" * 20,
                               "--log-level", "warning"], log)
    try:
        wait_up(port)
    finally:
        stop(quiet)
    out = log.read_text()
    assert "creating the schema" not in out, out


def test_serve_logs_the_seasons_close_and_end(tmp_path: Path) -> None:
    """An operator reading the log could not tell when registration closed or the season
    ended (only the board said so): both are info lines now."""
    root = Path(__file__).resolve().parents[2]
    season = tmp_path / "season.toml"
    season.write_text((root / "examples" / "season.toml").read_text().replace(
        "# hours = 24", "hours = 0.001").replace("final_top = 4", "final_top = 0"))
    out = tmp_path / "out.txt"
    proc, port = start_serve([*COGLEAGUE, "serve", "--port", "0", "--db",
                              f"sqlite:///{tmp_path / 's.db'}", "--operator-key", "k" * 20,
                              "--season", str(season)], out)
    try:
        wait_up(port)
        for _ in range(600):  # the season of 3.6 s closes, then ends (nothing to play)
            if httpx.get(f"http://127.0.0.1:{port}/leagues/season-demo/standings",
                         timeout=60).json()["phase"] == "ended":
                break
            time.sleep(0.1)
    finally:
        stop(proc)
    text = out.read_text()
    assert "season season-demo: registration closed" in text, text
    assert "season season-demo has ended" in text, text


def test_serve_warns_of_a_wildcard_node_url_on_postgres(tmp_path: Path) -> None:
    """`--host 0.0.0.0` without `--node-url` made the address other processes redirect
    seats to http://0.0.0.0:PORT, which no bot on another host can reach: said at once."""
    done = subprocess.run([*COGLEAGUE, "serve", "--host", "0.0.0.0", "--port", "0", "--db",
                           "postgresql://nobody@127.0.0.1:9/none"], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "COLUMNS": "400"})
    assert "--node-url" in done.stderr and "0.0.0.0" in done.stderr, done.stderr
    assert "reach" in done.stderr, done.stderr
    sqlite = subprocess.run([*COGLEAGUE, "serve", "--host", "0.0.0.0", "--port", "0", "--db",
                             f"sqlite:///{tmp_path / 'no-folder' / 's.db'}"],
                            capture_output=True, text=True, timeout=60)
    assert "--node-url" not in sqlite.stderr, sqlite.stderr  # one process: no redirects


def test_serve_takes_the_operator_key_from_the_environment(tmp_path: Path) -> None:
    """`--operator-key KEY` on a command line is readable by every local user (`ps`); the
    variable `account new` reads, COGLEAGUE_OPERATOR_KEY, gives it to `serve` too."""
    key, log = "operator-key-from-the-environment", tmp_path / "serve.log"
    proc, port = serve(tmp_path / "s.db", log,
                       env={**os.environ, "COGLEAGUE_OPERATOR_KEY": key})
    try:
        wait_up(port)
        made = httpx.post(f"http://127.0.0.1:{port}/accounts", json={"name": "ann"},
                          headers={"authorization": f"Bearer {key}"})
        assert made.status_code == 201, made.text
    finally:
        stop(proc)
    out = log.read_text()
    assert "operator key (shown once" not in out, out


def test_serve_takes_the_model_provider_for_llm_seats(tmp_path: Path) -> None:
    """`cogleague serve` had no option for the model provider: every `llm` seat and every
    season model agent on a served table fell back to the game's baseline ("no model
    provider configured"), with no way for the operator to configure one."""
    proc, port = serve(tmp_path / "s.db", tmp_path / "serve.log", "--operator-key", "k" * 20,
                       "--model-provider", "openai", "--model", "m", "--model-base-url",
                       "http://127.0.0.1:9/v1")
    url = f"http://127.0.0.1:{port}"
    try:
        wait_up(port)
        op = {"authorization": f"Bearer {'k' * 20}"}
        table = httpx.post(f"{url}/tables", json={"game": "dilemma"}, headers=op).json()["id"]
        joined = httpx.post(f"{url}/tables/{table}/join", headers=op,
                            json={"kind": "llm", "prompt": "Cooperate."}).json()
        assert joined["kind"] == "llm" and joined["note"] is None, joined
    finally:
        stop(proc)
    bad = subprocess.run([*COGLEAGUE, "serve", "--port", "0", "--db",
                          f"sqlite:///{tmp_path / 'b.db'}", "--model-provider", "grok"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2, bad.stderr
    assert "--model-provider: model_provider must be one of openai, anthropic (got 'grok')" \
        in bad.stderr, bad.stderr
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    keyless = subprocess.run([*COGLEAGUE, "serve", "--port", "0", "--db",
                              f"sqlite:///{tmp_path / 'c.db'}", "--model-provider", "openai"],
                             capture_output=True, text=True, timeout=60, env=env)
    assert keyless.returncode == 2, keyless.stderr
    assert "OPENAI_API_KEY is not set" in keyless.stderr, keyless.stderr
