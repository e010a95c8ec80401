"""Helpers for the seam tests: the real `cogleague` CLI in a child process, and a real (if
tiny) installed distribution with `cogleague.games` entry points, some of them broken."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

SRC = Path(__file__).resolve().parents[2] / "src"
# The CLI as its console script runs it (`cogleague = cogleague.cli:main`).
CLI = "import sys; from cogleague.cli import main; sys.argv[0] = 'cogleague'; main()"


def child_env(extra_path: tuple[Path, ...] = (), columns: int = 400) -> dict[str, str]:
    """This checkout's sources first, a wide plain terminal (rich tables are not cut)."""
    path = [*map(str, extra_path), str(SRC)]
    if os.environ.get("PYTHONPATH"):
        path.append(os.environ["PYTHONPATH"])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path), "COLUMNS": str(columns),
            "NO_COLOR": "1", "TERM": "dumb"}


def run_cli(*args: str, extra_path: tuple[Path, ...] = (), cwd: Path | None = None,
            columns: int = 400, timeout_s: float = 180.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], capture_output=True, text=True,
                          env=child_env(extra_path, columns), cwd=cwd, timeout=timeout_s,
                          check=False)


def run_python(code: str, extra_path: tuple[Path, ...] = (),
               timeout_s: float = 180.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=child_env(extra_path), timeout=timeout_s, check=False)


PLUGIN_DIST = "seam-plugins"
# entry-point name -> (module, attribute); each module's source is in PLUGIN_MODULES.
PLUGIN_ENTRY_POINTS = {
    "raising": "seam_plugins.raising:GAME",      # its module raises on import
    "notagame": "seam_plugins.notagame:GAME",    # a plain object, not a GameDescriptor
    "misnamed": "seam_plugins.misnamed:GAME",    # a descriptor under another game's name
    "dilemma_copy": "seam_plugins.copy",         # a module exposing GAME: a good plugin
}
PLUGIN_MODULES = {
    "__init__": "",
    "raising": 'raise RuntimeError("seam plugin exploded on import")\n',
    "notagame": "GAME = {'name': 'notagame'}\n",
    "misnamed": dedent("""\
        from dataclasses import replace

        from cogleague.games.dilemma.descriptor import GAME as _DILEMMA

        GAME = replace(_DILEMMA, name="someone_else")
        """),
    "copy": dedent("""\
        from dataclasses import replace

        from cogleague.games.dilemma.descriptor import GAME as _DILEMMA

        GAME = replace(_DILEMMA, name="dilemma_copy", title="A copy of the dilemma")
        """),
}


def install_plugins(root: Path) -> Path:
    """Write the package and its ``.dist-info`` (METADATA, entry_points.txt, RECORD) into
    `root`, as ``pip install --target`` lays them out; put `root` on a child's path."""
    pkg = root / "seam_plugins"
    pkg.mkdir(parents=True)
    for name, text in PLUGIN_MODULES.items():
        (pkg / f"{name}.py").write_text(text, encoding="utf-8")
    info = root / "seam_plugins-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PLUGIN_DIST}\n"
                                   "Version: 0.3\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[cogleague.games]\n" + "".join(f"{k} = {v}\n" for k, v in PLUGIN_ENTRY_POINTS.items()),
        encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")
    return root
