"""Canonical JSON: UTF-8, no ASCII escaping, compact separators, no NaN.

Byte-identical replays rest on this one function. `sort_keys` is per format: Ledger keeps the
listed key order, Commons Family sorts keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def dumps(doc: Any, *, sort_keys: bool = False) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                      sort_keys=sort_keys)


def write(path: str | Path, doc: Any, *, sort_keys: bool = False) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dumps(doc, sort_keys=sort_keys), encoding="utf-8")
    return p


def read(path: str | Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))
