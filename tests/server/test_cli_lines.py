"""The lines `account new` and `table new` print against a real server read as sentences: no
doubled space where an optional part (the variant, when the default is played) is left out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from server.support import OPERATOR_KEY, ServerProcess

CLI = str(Path(sys.executable).with_name("cogleague"))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=120,
                          check=False, env={"COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb",
                                            "PATH": str(Path(sys.executable).parent)})
    assert done.returncode == 0, done.stderr
    return done


def words_apart_by_one_space(text: str) -> list[str]:
    """The lines with a doubled space after their indentation."""
    return [line for line in text.splitlines() if "  " in line.lstrip(" ")]


@pytest.mark.parametrize("variant", [[], ["--variant", "classic200"]], ids=["default", "named"])
def test_table_new_and_account_new_print_no_doubled_space(
        shared_server: ServerProcess, variant: list[str]) -> None:
    name = f"spaces{len(variant)}"
    made = cli("account", "new", name, "--operator-key", OPERATOR_KEY, "--server",
               shared_server.url)
    key = made.stdout.strip()
    assert not words_apart_by_one_space(made.stderr), made.stderr
    table = cli("table", "new", "dilemma", *variant, "--fill", "tit_for_tat", "--key", key,
                "--server", shared_server.url)
    assert "seat a bot:" in table.stderr and "dilemma" in table.stderr, table.stderr
    assert not words_apart_by_one_space(table.stderr), table.stderr
