"""The Python examples of docs/batch.md run as written (the JAX one when JAX is installed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "batch.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index: int, tmp_path: Path) -> None:
    if "import jax" in BLOCKS[index]:
        pytest.importorskip("jax")
    script = tmp_path / "example.py"
    script.write_text(BLOCKS[index], encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first == ("True (256,)" if "import jax" in BLOCKS[index] else "(1000, 3)")
