"""`cogleague account new` with a wrong `--operator-key` (real server, the real CLI): the
error names the option and what is wrong with it, not only "unknown API key", which a
newcomer who has no API key yet cannot place."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

CLI = str(Path(sys.executable).with_name("cogleague"))


def test_a_wrong_operator_key_is_named_as_the_option(make_server: Any, tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'accounts.db'}")
    done = subprocess.run([CLI, "account", "new", "me", "--server", server.url,
                           "--operator-key", "not-the-operator-key-1234"],
                          capture_output=True, text=True, timeout=60)
    said = done.stdout + done.stderr
    assert done.returncode == 2 and done.stdout == "", said
    assert f"--operator-key: not the operator key of the server at {server.url}" in said, said
