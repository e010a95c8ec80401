"""The threshold game's config: its rule numbers, variants, the option model and one frozen
config built from a variant plus overrides.

Every limit is stated once here; the option model (`OPTIONS`) gives the CLI flags, the server's
JSON Schema and the league's validation, and `make_config` adds the one cross-field rule the
model cannot state (the threshold must be reachable: at most seats × endowment).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from cogleague.core.errors import ConfigError
from cogleague.core.options import Option, option_model, validate_options

MIN_SEATS, MAX_SEATS = 3, 8
MIN_ROUNDS, MAX_ROUNDS = 1, 50
MAX_ENDOWMENT = 100
MAX_BONUS = 1000
MAX_SEED = 2**31 - 1
DEFAULT_SEATS = 4

BASE: dict[str, Any] = {"seats": DEFAULT_SEATS, "rounds": 10, "endowment": 10, "threshold": None,
                        "bonus": 15, "pledges": True, "refund": False}
VARIANTS: dict[str, dict[str, Any]] = {
    "standard": {},
    "refund": {"refund": True},
    "silent": {"pledges": False},
    "quick": {"rounds": 3},
}
DEFAULT_VARIANT = "standard"

OPTIONS = option_model("ThresholdOptions", {
    "seats": Option(int, "seats at the table (default: the line-up's length)", MIN_SEATS,
                    MAX_SEATS),
    "rounds": Option(int, "rounds to play (default: the variant's)", MIN_ROUNDS, MAX_ROUNDS),
    "endowment": Option(int, "tokens each seat receives per round", 1, MAX_ENDOWMENT),
    "threshold": Option(int, "tokens the group must put in for the bonus (default: half of "
                             "seats x endowment, rounded up)", 1, MAX_SEATS * MAX_ENDOWMENT),
    "bonus": Option(int, "tokens every seat receives when the threshold is met", 0, MAX_BONUS),
    "pledges": Option(bool, "whether seats post a public, non-binding pledge first"),
    "refund": Option(bool, "whether contributions come back when the threshold is missed"),
})


@dataclass(frozen=True, slots=True)
class ThresholdConfig:
    variant: str
    seed: int
    seats: int
    rounds: int
    endowment: int
    threshold: int
    bonus: int
    pledges: bool
    refund: bool

    @property
    def fair_share(self) -> int:
        """The threshold split evenly, rounded up (what each seat must give if all give alike)."""
        return min(self.endowment, -(-self.threshold // self.seats))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def make_config(variant: str | None, overrides: Mapping[str, Any], seed: int) -> ThresholdConfig:
    """The variant's settings, then the (validated) overrides; raises `ConfigError` by field."""
    name = DEFAULT_VARIANT if variant is None else variant
    if name not in VARIANTS:
        raise ConfigError("variant", f"variant must be one of {', '.join(VARIANTS)} "
                                     f"(got {variant!r})")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ConfigError("seed", f"seed must be an integer in 0..{MAX_SEED} (got {seed!r})")
    given = validate_options(OPTIONS, overrides, section="threshold config")
    values = {**BASE, **VARIANTS[name], **given}
    reach = values["seats"] * values["endowment"]
    if values["threshold"] is None:
        values["threshold"] = -(-reach // 2)
    elif values["threshold"] > reach:
        raise ConfigError("threshold", f"threshold must be an integer in 1..{reach} "
                                       f"(seats x endowment; got {values['threshold']!r})")
    return ThresholdConfig(variant=name, seed=seed, **values)


def config_from_json(doc: Mapping[str, Any]) -> ThresholdConfig:
    """The config a replay recorded, checked like any other."""
    overrides = {k: v for k, v in doc.items() if k not in ("variant", "seed")}
    return make_config(doc.get("variant"), overrides, doc.get("seed"))  # type: ignore[arg-type]
