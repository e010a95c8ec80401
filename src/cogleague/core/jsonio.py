"""Canonical JSON: UTF-8, no ASCII escaping, compact separators, no NaN.

Byte-identical replays rest on this one function. `sort_keys` is per format: Ledger keeps the
listed key order, Commons Family sorts keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _encoder(sort_keys: bool) -> json.JSONEncoder:
    # check_circular=False: artifacts are trees (a cycle would still fail, with RecursionError);
    # skipping the per-container id bookkeeping makes every dump ~10 % cheaper.
    return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                            sort_keys=sort_keys, check_circular=False)


_ENCODERS = {False: _encoder(False), True: _encoder(True)}


def dumps(doc: Any, *, sort_keys: bool = False) -> str:
    return _ENCODERS[sort_keys].encode(doc)


def write(path: str | Path, doc: Any, *, sort_keys: bool = False) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dumps(doc, sort_keys=sort_keys), encoding="utf-8")
    return p


def read(path: str | Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def first_difference(recorded: Any, derived: Any, path: str = "$", *,
                     sort_keys: bool = False) -> str:
    """Where two JSON documents first differ, as ``path: recorded X, re-derived Y``.

    Replay verifiers use it to say exactly which field failed to re-derive. Keys are visited in
    the recorded order, then keys only the re-derived side has; `sort_keys` compares key order
    insensitively (for formats written with sorted keys)."""

    def same(a: Any, b: Any) -> bool:
        return dumps(a, sort_keys=sort_keys) == dumps(b, sort_keys=sort_keys)

    if isinstance(recorded, dict) and isinstance(derived, dict):
        for key in [*recorded, *(k for k in derived if k not in recorded)]:
            if key not in recorded or key not in derived:
                side = "recorded" if key in recorded else "re-derived"
                return f"{path}.{key}: present only in the {side} document"
            if not same(recorded[key], derived[key]):
                return first_difference(recorded[key], derived[key], f"{path}.{key}",
                                        sort_keys=sort_keys)
    if isinstance(recorded, list) and isinstance(derived, list):
        if len(recorded) != len(derived):
            return f"{path}: {len(recorded)} items recorded, {len(derived)} re-derived"
        for i, (a, b) in enumerate(zip(recorded, derived, strict=True)):
            if not same(a, b):
                return first_difference(a, b, f"{path}[{i}]", sort_keys=sort_keys)
    return f"{path}: recorded {dumps(recorded)[:200]}, re-derived {dumps(derived)[:200]}"
