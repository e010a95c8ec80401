"""The command line answers before it imports what it does not need: `cogleague --help` is
written from the command list alone (equal to what click would write), and an argument error
of `cogleague play GAME` loads only that game — not the other games, SQLAlchemy, the server,
rich or numpy. (How fast that is: `benchmarks/cli_startup.py`.)"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from cogleague.cli import main
try:
    main({argv!r})
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({{"code": code, "modules": sorted(sys.modules)}}))
"""


def loaded(*argv: str) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=list(argv))],
                          capture_output=True, text=True, timeout=120, check=False)
    last = done.stdout.strip().splitlines()[-1]
    doc = json.loads(last)
    return doc["code"], set(doc["modules"])


CLICKED = """
import json
from typer.testing import CliRunner
from cogleague.cli import app, top_help
clicked = CliRunner().invoke(app, ["--help"], prog_name="cogleague", terminal_width=80)
print(json.dumps({"code": clicked.exit_code, "clicked": clicked.output, "ours": top_help()}))
"""


def test_the_top_help_is_what_click_writes() -> None:
    # in a fresh process: once a command's module is loaded, click lists that command's own
    # help, which `cogleague --help` (written before any is loaded) never shows
    done = subprocess.run([sys.executable, "-c", CLICKED], capture_output=True, text=True,
                          timeout=120, check=True)
    doc = json.loads(done.stdout.strip().splitlines()[-1])
    assert doc["code"] == 0
    assert doc["ours"] == doc["clicked"]


def test_help_imports_no_typer() -> None:
    code, modules = loaded("--help")
    assert code == 0
    assert "typer" not in modules and "click" not in modules
    assert not any(m.startswith("cogleague.games.") for m in modules)


def test_an_argument_error_loads_only_the_named_game() -> None:
    code, modules = loaded("play", "ledger", "--seed", "x")
    assert code == 2
    assert "cogleague.games.ledger.descriptor" in modules
    heavy = ("cogleague.games.commons", "cogleague.games.dilemma", "cogleague_threshold",
             "sqlalchemy", "cogleague.server", "rich", "numpy", "cogleague.league", "httpx")
    assert not [m for m in modules if m.startswith(heavy)], sorted(
        m for m in modules if m.startswith(heavy))
