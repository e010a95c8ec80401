"""The planner's on-disk cache: one JSON file per physics-relevant config.

Only the fields that change the physics key a plan (module, rounds, seats, rights, patch
count, and the seed where the deal matters: patch owners and pairs under closed or partnership
rights, favourites in allelopathic); timing, institutions and names do not change the welfare
of a plan that never sanctions or chats, and cleanup, mushrooms and open harvest deal nothing
that their physics reads. The directory is
``$COGLEAGUE_CACHE_DIR/planner`` (default ``~/.cache/cogleague/planner``). A missing,
unreadable or foreign file is simply recomputed; writes are atomic.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from cogleague.core import jsonio
from cogleague.games.commons.config import CommonsConfig

ENV_VAR = "COGLEAGUE_CACHE_DIR"
KEY_FIELDS = ("module", "rounds", "num_players", "property_rights", "patch_count")


def seed_matters(config: CommonsConfig) -> bool:
    """Does the seeded deal change this config's physics (rules §3)?"""
    if config.module == "harvest":
        return config.property_rights != "open"
    return config.module == "allelopathic"


def cache_dir() -> Path:
    root = os.environ.get(ENV_VAR)
    base = Path(root) if root else Path.home() / ".cache" / "cogleague"
    return base / "planner"


def cache_key(config: CommonsConfig, version: str) -> str:
    doc: dict[str, Any] = {k: getattr(config, k) for k in KEY_FIELDS}
    doc["seed"] = config.seed if seed_matters(config) else None
    doc["planner_version"] = version
    return hashlib.sha256(jsonio.dumps(doc, sort_keys=True).encode("utf-8")).hexdigest()[:32]


def load(key: str) -> dict[str, Any] | None:
    path = cache_dir() / f"{key}.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("key") == key else None


def store(key: str, doc: dict[str, Any]) -> None:
    """Best effort: a read-only or full disk only costs a recomputation next time."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(jsonio.dumps({**doc, "key": key}, sort_keys=True))
        os.replace(tmp, folder / f"{key}.json")
    except OSError:
        return
