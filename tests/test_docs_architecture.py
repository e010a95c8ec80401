"""docs/architecture.md is the map of `src/cogleague/`: every module of the package, and every
file the web pages serve, is named on it by its file name, so a file added without a line on
the map is caught. A folder the map describes as a whole (one baseline, physics module or
planner per file) is named by the folder."""

from __future__ import annotations

import re

from helpers.docs import ROOT

PACKAGE = ROOT / "src" / "cogleague"
MAP = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
WHOLE_FOLDERS = {"games/commons/baselines", "games/dilemma/baselines", "games/commons/modules",
                 "games/commons/planner"}


def unnamed(text: str) -> list[str]:
    """The package's modules whose file name `text` never gives."""
    out = []
    static = [f for f in (PACKAGE / "web" / "static").rglob("*") if f.is_file()]
    for source in sorted([*PACKAGE.rglob("*.py"), *static]):
        relative = source.relative_to(PACKAGE)
        if source.name == "__init__.py" or str(relative.parent) in WHOLE_FOLDERS:
            continue
        if not re.search(rf"(?<![\w.]){re.escape(source.name)}\b", text):
            out.append(str(relative))
    return out


def test_the_map_names_every_module_of_the_package() -> None:
    missing = unnamed(MAP)
    assert not missing, f"docs/architecture.md names no line for {missing}"


def test_the_check_catches_a_module_left_off_the_map() -> None:
    assert "server/listen.py" not in unnamed(MAP)
    assert "server/listen.py" in unnamed(MAP.replace("listen.py", "gone.py"))


def test_every_whole_folder_is_named_on_the_map() -> None:
    for folder in WHOLE_FOLDERS:
        assert (PACKAGE / folder).is_dir(), folder
        assert f"{folder.rsplit('/', 1)[1]}/" in MAP, folder
