"""Where an operator's tuning comes from besides the command line: a TOML file of Settings
fields (`cogleague serve --config FILE`) and ``COGLEAGUE_SERVE_<FIELD>`` environment variables
(they win over the file). Values are only read and typed here; `Settings.check` judges them,
so every source gets the same message, prefixed with where the value came from."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from cogleague.core.config import reject_unknown
from cogleague.core.errors import ConfigError
from cogleague.server.settings import (
    FLAGS,
    POSITIVE_COUNTS,
    POSITIVE_NUMBERS,
    Settings,
    SettingsClash,
)

ENV_PREFIX = "COGLEAGUE_SERVE_"

TUNABLE = (*POSITIVE_NUMBERS, *POSITIVE_COUNTS, "session_sweep_every_s", "record_league",
           "tune_gc", "sqlite_synchronous")
"""The limits and switches an operator tunes; the rest have their own `serve` options."""

_KINDS: dict[str, type] = {f.name: type(f.default) for f in fields(Settings)
                           if f.default is not MISSING}


class SettingsSourceError(ValueError):
    """A bad value, with where it came from (`origin: field must be …`): one line for the CLI."""


def read_sources(config: Path | None, env: Mapping[str, str]) -> tuple[dict[str, Any],
                                                                       dict[str, str]]:
    """The fields the file and the environment set, and each one's origin (for messages)."""
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    if config is not None:
        for name, value in _read_file(config).items():
            values[name], origin[name] = value, f"{config}"
    for var in sorted(env):
        if not var.startswith(ENV_PREFIX) or var == ENV_PREFIX + "CONFIG":
            continue
        name = var[len(ENV_PREFIX):].lower()
        if name not in TUNABLE:
            raise SettingsSourceError(f"{var} is not a server setting (known: "
                                      f"{', '.join(ENV_PREFIX + t.upper() for t in TUNABLE)})")
        values[name], origin[name] = _typed(name, env[var]), var
    return values, origin


def build(origin: Mapping[str, str], **values: Any) -> Settings:
    """`Settings(**values)`; a refusal names the file or variable the field came from, and a
    clash of two fields (`SettingsClash`) where each of them came from: a file, a variable,
    an option (`origin`), the caller's code, or the field's default."""
    try:
        return Settings(**values)
    except SettingsClash as exc:
        sources = ", ".join(f"{name} from {_source(name, origin, values)}"
                            for name in (exc.field, *exc.others))
        raise SettingsSourceError(f"{exc}: {sources}") from exc
    except ConfigError as exc:
        where = origin.get(exc.field)
        raise SettingsSourceError(f"{where}: {exc}" if where else str(exc)) from exc


def _source(name: str, origin: Mapping[str, str], values: Mapping[str, Any]) -> str:
    if name in origin:
        return origin[name]
    return "the caller" if name in values else "its default"


def _read_file(path: Path) -> dict[str, Any]:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsSourceError(f"--config {path} cannot be read: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsSourceError(f"--config {path} is not TOML: {exc}") from exc
    try:
        reject_unknown("server", doc, TUNABLE)
    except ConfigError as exc:
        raise SettingsSourceError(f"{path}: {exc}") from exc
    return doc


def _typed(name: str, text: str) -> Any:
    """The environment's text as the field's type when it reads as one; else the text itself,
    which `Settings.check` then refuses with the field's range."""
    kind = _KINDS.get(name)
    stripped = text.strip()
    if name in FLAGS or kind is bool:
        return {"true": True, "false": False}.get(stripped.lower(), text)
    for parse in ((int,) if kind is int else (float,) if kind is float else ()):
        try:
            return parse(stripped)
        except ValueError:
            continue
    return text
