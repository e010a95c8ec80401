"""Every file the README and docs/ name is there: a repository path (``tests/…``,
``benchmarks/…``, ``src/…``), a test module by its file name, and a module of the package named
from inside it (``core/wallets.py``, ``server/store.py``, ``games/dilemma/steps.Name``). A page
that points at a file that moved or was removed sends its reader nowhere."""

from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path

import pytest

from helpers.docs import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
REPO_PATH = re.compile(r"(?<![\w/.<-])((?:tests|benchmarks|src|examples|prompts|docs)/"
                       r"[\w./-]*\w)")
TEST_FILE = re.compile(r"(?<![\w/.-])(test_\w+\.py)\b")
PACKAGES = "core|games|server|seats|league|envs|web|cli|client|testing|profiles"
PACKAGE_FILE = re.compile(rf"(?<![\w/.-])((?:{PACKAGES})/[\w/]+\.(?:py|js|md|html|tmpl))\b")
PACKAGE_ATTR = re.compile(rf"(?<![\w/.-])((?:{PACKAGES})/[\w/]+)\.([A-Za-z_]\w*)\b")
SUFFIXES = {"py", "js", "md", "html", "css", "tmpl", "toml", "png", "json", "txt", "jsonl"}
PLACEHOLDER = re.compile(r"[A-Z]{3,}|<|\.\.\.")


def tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                            check=True, timeout=60).stdout
    return listed.split()


def without_drawings(text: str) -> str:
    """`text` without its blocks that have no language: a folder drawn as a tree or a
    command's output, whose names are relative to what it draws (checked by hand)."""
    kept, inside, bare = [], False, False
    for line in text.splitlines():
        if line.startswith("```"):
            bare = not inside and line.strip() == "```"
            inside = not inside
            continue
        if not (inside and bare):
            kept.append(line)
    return "\n".join(kept)


def missing_names(text: str, files: list[str]) -> list[str]:
    """The names in `text` (a page) that point at no file of the repository."""
    text = without_drawings(text)
    names = set(files)
    folders = {str(Path(f).parent) for f in files} | {
        str(parent) for f in files for parent in Path(f).parents}
    package = ROOT / "src" / "cogleague"
    out = []
    for m in REPO_PATH.finditer(text):
        path = m.group(1).split(":", 1)[0].rstrip(".")
        if not PLACEHOLDER.search(path) and path not in names and path.rstrip("/") not in \
                folders and not (ROOT / path).exists():
            out.append(path)
    basenames = {Path(f).name for f in files}
    out += [m.group(1) for m in TEST_FILE.finditer(text)
            if m.group(1) not in basenames and m.group(1) != "test_my_bot.py"]  # a user's file
    out += [m.group(1) for m in PACKAGE_FILE.finditer(text)
            if not PLACEHOLDER.search(m.group(1)) and not (package / m.group(1)).exists()]
    for m in PACKAGE_ATTR.finditer(text):
        module, attr = m.groups()
        if attr in SUFFIXES:
            continue
        source = package / f"{module}.py"
        if not source.exists() or not re.search(
                rf"^\s*(?:class|def|async def)\s+{attr}\b|^{attr}\s*[:=]",
                source.read_text(encoding="utf-8"), flags=re.M):
            out.append(m.group(0))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_each_file_a_page_names_exists(page: Path) -> None:
    missing = missing_names(page.read_text(encoding="utf-8"), tracked())
    assert not missing, f"{page.name} names files that are not there: {sorted(set(missing))}"


def test_the_check_catches_a_missing_file_of_each_kind() -> None:
    files = tracked()
    page = ("see `tests/nowhere/test_x.py`, `test_gone.py`, `core/nothing.py`, "
            "`core/wallets.NoSuchClass`, and `core/wallets.Wallets` and `tests/conftest.py`")
    assert missing_names(page, files) == ["tests/nowhere/test_x.py", "test_gone.py",
                                          "core/nothing.py", "core/wallets.NoSuchClass"]
    assert missing_names("```\nexamples/threshold/\n  prompts/fair.txt\n```", files) == []


DOTTED = re.compile(r"`(cogleague(?:\.\w+)+)")
LOGGERS = {"cogleague.bot", "cogleague.agent"}
"""Logger names a page gives (``logging.getLogger`` names, not importable objects)."""


def unresolved(names: set[str]) -> list[str]:
    """The dotted names that are neither a module of the package nor an attribute of one."""
    out = []
    for name in sorted(names - LOGGERS):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj: object = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            break
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                out.append(name)
                break
            obj = getattr(obj, attr)
    return out


def test_each_dotted_name_a_page_gives_resolves() -> None:
    names = {m.group(1) for page in PAGES
             for m in DOTTED.finditer(page.read_text(encoding="utf-8"))}
    assert len(names) >= 40
    assert not unresolved(names)


def test_the_dotted_check_catches_a_name_that_is_gone() -> None:
    assert unresolved({"cogleague.play", "cogleague.core.verify.verify_replay",
                       "cogleague.core.nowhere", "cogleague.core.jsonio.no_such"}) == [
        "cogleague.core.jsonio.no_such", "cogleague.core.nowhere"]
