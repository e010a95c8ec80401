"""The documents the Rules page shows — each game's rules page and the table protocol — rendered
from their Markdown sources to HTML on the server (markdown-it-py, raw HTML disabled, so a
document can never inject markup into the page).

Sources are the server's own: a game's `GameDescriptor.rules_file`,
and the protocol page it serves at `GET /protocol` (`server/protocol.md`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from cogleague.games import registry

PROTOCOL = "protocol"
PROTOCOL_TITLE = "Table protocol"
PROTOCOL_SOURCES = (Path(__file__).resolve().parent.parent / "server" / "protocol.md",)
"""Where the protocol page's Markdown lives (the file the server's `GET /protocol` reads)."""

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    "table").enable("strikethrough")


def _rules_path(name: str) -> tuple[str, Path] | None:
    """(title, path) of a game's rules page, or None if the game or its page is missing."""
    try:
        info = registry.get(name)
    except Exception:  # a game that failed to load must not break the Rules page
        return None
    path = info.rules_file
    return (info.title, Path(path)) if path is not None and Path(path).is_file() else None


def _protocol_path() -> Path | None:
    return next((p for p in PROTOCOL_SOURCES if p.is_file()), None)


def _source(name: str) -> tuple[str, Path] | None:
    if name == PROTOCOL:
        path = _protocol_path()
        return (PROTOCOL_TITLE, path) if path else None
    if name in registry.names():
        return _rules_path(name)
    return None


def available() -> list[dict[str, str]]:
    """`[{name, title}]` for every document that exists right now, games first."""
    out = []
    for name in [*registry.names(), PROTOCOL]:
        src = _source(name)
        if src is not None:
            out.append({"name": name, "title": src[0]})
    return out


@lru_cache(maxsize=16)
def _render_file(path: Path, mtime_ns: int) -> str:
    return _MD.render(path.read_text(encoding="utf-8"))


def render(name: str) -> dict[str, Any]:
    """`{name, title, html}`; raises KeyError naming the known documents when `name` is not one."""
    src = _source(name)
    if src is None:
        known = ", ".join(d["name"] for d in available()) or "none yet"
        raise KeyError(f"no document {name!r} (known: {known})")
    title, path = src
    return {"name": name, "title": title, "html": _render_file(path, path.stat().st_mtime_ns)}
