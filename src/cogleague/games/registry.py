"""The one game loader: every game, built-in or not, comes from the ``cogleague.games``
entry-point group.

An entry point names a `GameDescriptor` (``ledger = "cogleague.games.ledger:GAME"``), or a
module whose ``GAME`` is one. Loading is lazy and per game: a plugin that fails to import is
reported by name with its error (`problems()`, `cogleague games`) and the other games go on.
`register` adds a descriptor by hand (tests, a server's extra games) through the same table.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from importlib import metadata
from typing import TYPE_CHECKING, Any

from cogleague.core.errors import ConfigError

if TYPE_CHECKING:  # imported when a game loads: listing names needs no descriptor class
    from cogleague.core.descriptor import GameDescriptor

GROUP = "cogleague.games"


@dataclass(frozen=True)
class LoadProblem:
    """A game that could not be loaded: its entry-point name, where it came from, the error."""

    name: str
    origin: str
    error: str


_loaded: dict[str, GameDescriptor] = {}
_problems: dict[str, LoadProblem] = {}
_scanned = False


def _origin(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    where = f"{dist.metadata['Name']} {dist.version}" if dist is not None else "unknown package"
    return f"entry point {ep.name} = {ep.value} ({where})"


def _as_descriptor(obj: Any, where: str) -> GameDescriptor:
    from cogleague.core.descriptor import GameDescriptor

    if isinstance(obj, GameDescriptor):
        return obj
    game = getattr(obj, "GAME", None)
    if isinstance(game, GameDescriptor):
        return game
    raise TypeError(f"{where} is not a cogleague GameDescriptor (nor a module with GAME)")


def _entry_points() -> list[metadata.EntryPoint]:
    return sorted(metadata.entry_points(group=GROUP), key=lambda e: e.name)


def _load_entry(ep: metadata.EntryPoint) -> None:
    """Load one entry point into the table (or its problem), once."""
    if ep.name in _loaded or ep.name in _problems:
        return  # the same game found twice (e.g. an editable install and a copy)
    origin = _origin(ep)
    try:
        desc = _as_descriptor(ep.load(), ep.value)
        if desc.name != ep.name:
            raise ValueError(f"the descriptor is named {desc.name!r}, the entry point "
                             f"{ep.name!r}")
    except Exception as exc:  # a broken plugin must not take the other games down
        _problems[ep.name] = LoadProblem(ep.name, origin, f"{type(exc).__name__}: {exc}")
        return
    _loaded[ep.name] = replace(desc, origin=origin)


def _scan() -> None:
    global _scanned
    if _scanned:
        return
    _scanned = True
    for ep in _entry_points():
        _load_entry(ep)


def entry_names() -> list[str]:
    """Every game's name, loading none: the entry points' and those registered by hand (the
    CLI lists `play` commands from it and loads only the game that is played)."""
    return sorted({ep.name for ep in _entry_points()} | set(_loaded))


def find(name: str) -> GameDescriptor | None:
    """The game called `name`, loading only its own entry point; None when there is none or
    it failed to load (`get` says why)."""
    if name not in _loaded and not _scanned:
        for ep in _entry_points():
            if ep.name == name:
                _load_entry(ep)
                break
    return _loaded.get(name)


def register(desc: GameDescriptor, origin: str = "registered by hand") -> GameDescriptor:
    """Add (or replace) a game by hand: tests and a server's extra games."""
    _scan()
    out = replace(desc, origin=desc.origin or origin)
    _loaded[desc.name] = out
    _problems.pop(desc.name, None)
    return out


def register_module(path: str) -> GameDescriptor:
    """Import `path` (``package.module``, exposing ``GAME``) and register its game; raises
    `ConfigError` naming the module when it is not a game."""
    try:
        desc = _as_descriptor(importlib.import_module(path), path)
    except (ImportError, TypeError) as exc:
        raise ConfigError("game", f"game module {path!r} cannot be loaded ({exc})") from exc
    return register(desc, origin=f"module {path}")


def names() -> list[str]:
    """Every loaded game's name, sorted."""
    _scan()
    return sorted(_loaded)


def available() -> list[GameDescriptor]:
    return [_loaded[n] for n in names()]


def problems() -> list[LoadProblem]:
    """Games whose entry point failed to load, with their errors."""
    _scan()
    return [_problems[n] for n in sorted(_problems)]


def get(name: str) -> GameDescriptor:
    """The game called `name`; `ConfigError` naming the known games (and why a broken one is
    not among them) otherwise."""
    _scan()
    if isinstance(name, str) and name in _loaded:
        return _loaded[name]
    if isinstance(name, str) and name in _problems:
        p = _problems[name]
        raise ConfigError("game", f"game {name!r} is installed but failed to load: {p.error}")
    raise ConfigError("game", f"game must be one of {', '.join(names())} (got {name!r})")


def by_replay_format(fmt: Any) -> GameDescriptor | None:
    """The game whose replay documents carry format `fmt`."""
    return next((d for d in available() if d.replay_format == fmt), None)
