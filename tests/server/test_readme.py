"""docs/tables.md's server section works as written: its shell blocks, run in order, start a
server, create an account and a table per game with `cogleague account new` and
`cogleague table new`, and play them with the example bots."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from helpers.docs import ROOT, section, sh_blocks
from helpers.net import refused_port
from helpers.serving import on_any_port, start_serve, stop


def server_section_script() -> str:
    blocks = sh_blocks(section("server", "docs/tables.md"))
    assert len(blocks) >= 3, "the server section shows its steps as sh blocks"
    return "\n".join(blocks)


def shown_error() -> str:
    """The error line docs/tables.md shows for `table new dilemma --variant fast`."""
    text = (ROOT / "docs" / "tables.md").read_text(encoding="utf-8")
    shown = re.search(r"\$ cogleague table new dilemma --variant fast [^\n]*\n(error: [^\n]+)\n",
                      text)
    assert shown, "docs/tables.md shows the error of a wrong variant"
    return shown.group(1)


def test_the_documented_steps_work_as_written(tmp_path: Path) -> None:
    # Only the port changes (8000 may be taken here: the server picks one and the steps use the
    # one it names); the working directory is a scratch copy of the layout the page assumes
    # (.venv and examples at hand).
    log = tmp_path / "serve.log"
    steps = on_any_port(server_section_script(), log)
    script = "set -e\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n" + steps
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    out = done.stdout + done.stderr + log.read_text()
    assert done.returncode == 0, out[-3000:]
    assert out.count("ended (complete)") == 3, out[-3000:]
    assert out.count("seat a bot:") == 3, out[-3000:]  # `table new` names the next step
    assert (tmp_path / "cogleague-server.db").exists()


def test_a_wrong_value_is_one_line_naming_the_option(tmp_path: Path) -> None:
    """`table new` with a variant the game lacks, and `account new` against a server that is
    not there: one line each, exit 2."""
    cli = str(ROOT / ".venv" / "bin" / "cogleague")
    server, port = start_serve([cli, "serve", "--port", "0", "--operator-key",
                                "my-operator-key-123456"], tmp_path / "serve.log", cwd=tmp_path)
    try:
        url = f"http://127.0.0.1:{port}"
        made = subprocess.run([cli, "account", "new", "bob", "--operator-key",
                               "my-operator-key-123456", "--server", url, "--wait", "30"],
                              capture_output=True, text=True, timeout=60)
        assert made.returncode == 0, made.stderr
        key = made.stdout.strip()
        assert key and "\n" not in key
        bad = subprocess.run([cli, "table", "new", "dilemma", "--variant", "fast", "--key", key,
                              "--server", url], capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and bad.stdout == ""
        assert bad.stderr.strip() == shown_error(), bad.stderr  # as docs/tables.md shows it
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr
        many = subprocess.run([cli, "table", "new", "dilemma", "--open", "9", "--fill",
                               "tit_for_tat", "--key", key, "--server", url],
                              capture_output=True, text=True, timeout=60)
        assert many.returncode == 2 and "--open must be an integer in 1..4 for dilemma standard" \
            in many.stderr, \
            many.stderr
        twice = subprocess.run([cli, "account", "new", "bob", "--operator-key",
                                "my-operator-key-123456", "--server", url],
                               capture_output=True, text=True, timeout=60)
        assert twice.returncode == 2 and "is taken" in twice.stderr, twice.stderr
    finally:
        stop(server)
    with refused_port() as closed:  # not the stopped server's port: another could take it
        gone = subprocess.run([cli, "account", "new", "carol", "--server",
                               f"http://127.0.0.1:{closed}"], capture_output=True, text=True,
                              timeout=60)
    assert gone.returncode == 2 and "cannot reach it" in gone.stderr, gone.stderr


def test_a_generated_operator_key_is_written_at_the_start(tmp_path: Path) -> None:
    """docs/tables.md: without `--operator-key` the server makes one up and prints it at the
    first start — on stdout by the time it serves, also when stdout is a file (a server killed
    later flushes nothing, and the key is shown only once)."""
    page = " ".join((ROOT / "docs" / "tables.md").read_text(encoding="utf-8").split())
    assert "without `--operator-key` it makes one up and prints it at the first start" in page
    cli = str(ROOT / ".venv" / "bin" / "cogleague")
    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        server = subprocess.Popen([cli, "serve", "--port", "0"], cwd=tmp_path,
                                  stdout=sink, stderr=subprocess.PIPE, text=True)
        try:
            assert server.stderr is not None
            for line in server.stderr:
                if "Application startup complete" in line:
                    break
            written = out.read_text()
        finally:
            server.terminate()
            server.wait(timeout=30)
    assert "operator key (shown once, keep it): clk_" in written, written
