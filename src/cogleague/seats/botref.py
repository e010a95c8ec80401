"""Bot references, as users write them everywhere a seat is named (CLI ``--seats``, league
files, ``cogleague bot run``, the Python API): ``path/to/file.py:Class`` or
``package.module:Class``. One loader for all of them, with one-line errors.

A file path is loaded from the file itself (no `PYTHONPATH` needed); its directory goes first
on the import path so the bot may import its own helper modules. A module path is imported with
the working directory on the import path, as ``python -m`` does.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from cogleague.core.errors import ConfigError

FIELD = "seats"


def is_bot_ref(name: str) -> bool:
    """``X:Class`` where X is a ``.py`` file or a dotted module (not ``llm:…``, ``policy:…``,
    ``axelrod:…`` or another seat kind's prefix)."""
    target, sep, cls = name.rpartition(":")
    if not sep or not target or not cls or not cls.isidentifier():
        return False
    if target.endswith(".py"):
        return True
    return "/" not in target and all(part.isidentifier() for part in target.split(".")) \
        and target not in SEAT_PREFIXES


SEAT_PREFIXES = ("llm", "policy", "axelrod", "human", "remote")
"""Prefixes other seat kinds use (``llm:PROMPT``…): never read as a module."""


def _load_file(path: Path, field: str = FIELD) -> Any:
    """Import a bot file under a name derived from its absolute path (two files called
    ``bot.py`` in different folders do not collide); errors name `field`."""
    resolved = path.resolve()
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:10]
    name = f"cogleague_bot_{resolved.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ConfigError(field, f"{field}: {path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    folder = str(resolved.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ConfigError(field, f"{field}: bot file {path} fails to import: "
                                 f"{type(exc).__name__}: {exc}") from exc
    return module


def load_bot_class(ref: str, base_dir: Path | None = None, field: str = FIELD) -> type:
    """The `cogleague.Bot` subclass `ref` names; `ConfigError` (naming `field`) saying what is
    wrong: the file, the module, the class, or that it is not a Bot. Relative file paths are
    read from `base_dir` (a league file's folder) when given, else the working directory."""
    from cogleague.client.bot import Bot

    target, sep, class_name = ref.rpartition(":")
    if not sep or not target or not class_name:
        raise ConfigError(field, f"{field}: a bot is FILE.py:CLASS or MODULE:CLASS (got {ref!r})")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        if not path.is_file():
            raise ConfigError(field, f"{field}: bot file {path} does not exist")
        module = _load_file(path, field)
    else:
        cwd = str(Path.cwd())
        if cwd not in sys.path:
            sys.path.insert(0, cwd)
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise ConfigError(field, f"{field}: bot module {target!r} cannot be imported "
                                     f"({exc})") from exc
        except Exception as exc:
            raise ConfigError(field, f"{field}: bot module {target!r} fails to import: "
                                     f"{type(exc).__name__}: {exc}") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        found = sorted(n for n, v in vars(module).items()
                       if isinstance(v, type) and issubclass(v, Bot) and v is not Bot)
        raise ConfigError(field, f"{field}: {target} has no class {class_name} (Bot classes "
                                 f"there: {', '.join(found) or 'none'})")
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise ConfigError(field, f"{field}: {ref} is not a subclass of cogleague.Bot")
    return cls


def missing_class(name: str, field: str = FIELD) -> ConfigError:
    """The error for a bot file named without its class (``my_bot.py`` for
    ``my_bot.py:MyBot``): the form, and the Bot classes the file holds."""
    from cogleague.client.bot import Bot

    path = Path(name)
    if not path.is_file():
        return ConfigError(field, f"{field}: bot file {path} does not exist")
    found = sorted(n for n, v in vars(_load_file(path, field)).items()
                   if isinstance(v, type) and issubclass(v, Bot) and v is not Bot)
    return ConfigError(field, f"{field}: {name} is a bot file: name its class, FILE.py:CLASS "
                              f"(Bot classes there: {', '.join(found) or 'none'})")


def check_bot_game(bot: Any, game_name: str, ref: str, field: str = FIELD) -> None:
    """A bot that declares the game it was written for (`Bot.game`) is refused at another
    game's table before play, instead of failing inside its first turn."""
    written_for = getattr(bot, "game", None)
    if written_for is not None and written_for != game_name:
        raise ConfigError(field, f"{field}: bot {ref} was written for {written_for}, this table "
                                 f"plays {game_name}")
