"""The one immutable, validated Commons Family config (rules §2) and its seven variants.

`make_config(variant, overrides, seed)` is the only way in: a variant's settings, then the
overrides, then the seed, each checked; an unknown key or a value out of range raises
`ConfigError` whose message starts with the field name. Bools are never accepted as ints.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from cogleague.core.config import (
    check_bool,
    check_choice,
    check_int,
    check_number,
    reject_unknown,
)
from cogleague.core.errors import ConfigError
from cogleague.core.rng import SEED_MAX
from cogleague.games.commons.modules import MODULES
from cogleague.games.commons.modules.common import EFFORT_BUDGET
from cogleague.games.commons.modules.harvest import PROPERTY_RIGHTS

__all__ = ["VARIANTS", "CommonsConfig", "ConfigError", "make_config"]

DEFAULT_SEED = 20260824
MAX_SEED = SEED_MAX  # spec: int 0..2^63−1
NORM_MAX_CHARS = 400
NAME_MAX_CHARS = 64
DEFAULT_NAMES = ("Cog Alpha", "Cog Bravo", "Cog Charlie", "Cog Delta", "Cog Echo", "Cog Foxtrot")
STANDARD_SEATS = 6
CLEANUP_NORM = "Posted norm: one apple each, and someone cleans every round."


@dataclass(frozen=True, slots=True)
class CommonsConfig:
    """Every setting of one episode (rules §2). Build with `make_config`, never directly."""

    module: str
    variant: str | None = None
    rounds: int = 20
    num_players: int = STANDARD_SEATS
    effort_budget: int = EFFORT_BUDGET
    round_seconds: int = 20
    min_round_seconds: int = 3
    decision_timeout_seconds: int = 8
    connect_timeout_seconds: int = 180
    episode_timeout_seconds: int = 1200
    seed: int = DEFAULT_SEED
    ledger_public: bool = True
    chat_enabled: bool = True
    chat_max_chars: int = 140
    sanctions_enabled: bool = False
    sanction_cost: float = 1.0
    sanction_burn: float = 3.0
    max_sanctions_received: int = 5
    norm_text: str = ""
    property_rights: str = "open"
    patch_count: int = 6
    names: tuple[str, ...] = DEFAULT_NAMES

    def to_json(self) -> dict[str, Any]:
        """Every field, in declaration order (`asdict` without its deep copies: all fields
        are scalars but `names`, which becomes a list)."""
        doc = {name: getattr(self, name) for name in _FIELD_NAMES}
        doc["names"] = list(self.names)
        return doc


_FIELD_NAMES = tuple(f.name for f in fields(CommonsConfig))


VARIANTS: dict[str, dict[str, Any]] = {
    "cleanup": {"module": "cleanup", "sanctions_enabled": True, "norm_text": CLEANUP_NORM,
                "seed": 20260824},
    "harvest-open": {"module": "harvest", "property_rights": "open", "seed": 20260825},
    "harvest-closed": {"module": "harvest", "property_rights": "closed", "seed": 20260826},
    "harvest-partnership": {"module": "harvest", "property_rights": "partnership",
                            "seed": 20260827},
    "allelopathic": {"module": "allelopathic", "sanctions_enabled": True, "seed": 20260828},
    "mushrooms": {"module": "mushrooms", "sanctions_enabled": True, "seed": 20260829},
    "certification": {"module": "cleanup", "rounds": 8, "round_seconds": 6,
                      "sanctions_enabled": True, "norm_text": CLEANUP_NORM, "seed": 20260824},
}
"""Variant → its settings (all: 6 seats, 20 rounds unless said, 20 s, 3 s floor, ledger and
chat on)."""

CERTIFICATION_SEATS = ("llm", "steward", "cleaner", "punisher", "free_rider", "random")
"""The certification line-up by slot (rules §2)."""

_INT_RANGES: dict[str, tuple[int, int]] = {
    "rounds": (1, 100),
    "num_players": (2, 12),
    "effort_budget": (EFFORT_BUDGET, EFFORT_BUDGET),
    "round_seconds": (1, 120),
    "min_round_seconds": (0, 120),
    "decision_timeout_seconds": (1, 120),
    "connect_timeout_seconds": (1, 3600),
    "episode_timeout_seconds": (60, 86400),
    "seed": (0, MAX_SEED),
    "chat_max_chars": (1, 1000),
    "max_sanctions_received": (1, 11),
    "patch_count": (1, 12),
}
_NUMBER_RANGES: dict[str, tuple[float, float]] = {"sanction_cost": (0.0, 10.0),
                                                  "sanction_burn": (0.0, 30.0)}
_BOOLS = ("ledger_public", "chat_enabled", "sanctions_enabled")
FIELDS = tuple(CommonsConfig.__dataclass_fields__)


def default_names(n: int) -> tuple[str, ...]:
    """Cog Alpha … Cog Foxtrot for the first six slots, then ``Seat <slot>``."""
    return tuple(DEFAULT_NAMES[s] if s < len(DEFAULT_NAMES) else f"Seat {s}" for s in range(n))


def _check_names(value: Any, n: int) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or len(value) != n:
        raise ConfigError("names", f"names must be a list of {n} strings (got {value!r})")
    for name in value:
        if not isinstance(name, str) or not 1 <= len(name) <= NAME_MAX_CHARS:
            raise ConfigError("names", f"names must be strings of 1..{NAME_MAX_CHARS} code "
                                       f"points (got {name!r})")
    return tuple(value)


def make_config(variant: str | None = None, overrides: Mapping[str, Any] | None = None,
                seed: int | None = None) -> CommonsConfig:
    """A validated config: the variant's settings, then `overrides`, then `seed` if given.

    Without a variant, ``module`` must be among the overrides. ``norm_text`` is cut to 400 code
    points (a rule, not a silent clamp); ``names`` defaults by seat count."""
    given = dict(overrides or {})
    reject_unknown("Commons Family", given, FIELDS)
    if variant is not None:
        check_choice("variant", variant, VARIANTS)
        settings: dict[str, Any] = {**VARIANTS[variant], "variant": variant}
    else:
        if given.get("variant") is not None:
            return make_config(check_choice("variant", given.pop("variant"), VARIANTS), given,
                               seed)
        settings = {"variant": None}
    settings.update(given)
    if seed is not None:
        settings["seed"] = seed
    if "module" not in settings:
        raise ConfigError("module", f"module is required: one of {', '.join(MODULES)}")
    check_choice("module", settings["module"], MODULES)
    for key, (lo, hi) in _INT_RANGES.items():
        if key in settings:
            check_int(key, settings[key], lo, hi)
    for key, (flo, fhi) in _NUMBER_RANGES.items():
        if key in settings:
            settings[key] = check_number(key, settings[key], flo, fhi)
    for key in _BOOLS:
        if key in settings:
            check_bool(key, settings[key])
    if "norm_text" in settings:
        norm = settings["norm_text"]
        if not isinstance(norm, str):
            raise ConfigError("norm_text", f"norm_text must be a string (got {norm!r})")
        settings["norm_text"] = norm[:NORM_MAX_CHARS]
    if "property_rights" in settings:
        check_choice("property_rights", settings["property_rights"], PROPERTY_RIGHTS)
    n = settings.get("num_players", STANDARD_SEATS)
    settings["names"] = (_check_names(settings["names"], n) if "names" in settings
                         else default_names(n))
    return CommonsConfig(**settings)
