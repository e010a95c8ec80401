"""Every Python example in docs/api.md runs as written (in a scratch folder)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index: int, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(BLOCKS[index], encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    if "fault_summary" in BLOCKS[index]:
        assert "fallbacks: seat 1 (__main__:broken) 2 error" in done.stdout
    if "ConfigError as err" in BLOCKS[index]:
        assert "rounds_total must be an integer in 1..1000 (got 0)" in done.stdout
    if "run_league" in BLOCKS[index]:
        assert done.stdout.splitlines()[0] == "4 0 0"


def test_the_reference_names_every_public_name_of_the_package() -> None:
    """api.md's Reference table names everything `import cogleague` exports (`__all__`), so
    a name added to the package is not left for a reader to find in the source."""
    import cogleague

    table = DOC.read_text(encoding="utf-8").split("## Reference", 1)[1]
    named = set(re.findall(r"`cogleague\.(\w+)", table))
    missing = sorted(set(cogleague.__all__) - named)
    assert not missing, f"api.md's Reference names no row for {missing}"


def test_the_batch_results_fields_the_reference_gives_are_its_fields() -> None:
    """The Reference's `BatchResult` fields are the dataclass's (it once said `rewards` for
    what the result calls `totals`)."""
    import dataclasses

    import cogleague

    row = next(line for line in DOC.read_text(encoding="utf-8").splitlines()
               if "`cogleague.BatchResult`" in line)
    given = re.search(r"`cogleague\.BatchResult` \((.*?)\) \|", row)
    assert given, row
    fields = {f.name for f in dataclasses.fields(cogleague.BatchResult)}
    shown = set(re.findall(r"`(\w+)`", given.group(1)))
    assert shown and shown <= fields, (shown, fields)
