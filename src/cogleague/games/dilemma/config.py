"""The table's configuration (spec §1): one validated, immutable record per match.

Every rule number lives here once, named, beside the check that enforces it. Nothing is clamped:
a bad value raises `ConfigError` naming the field and the legal range.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cogleague.core.config import check_bool, check_choice, check_int, reject_unknown
from cogleague.core.errors import ConfigError
from cogleague.core.rng import SEED_MAX

DEFAULT_SEATS = 4
MIN_SEATS, MAX_SEATS = 3, 8
DEFAULT_ROUNDS = 20
CLASSIC_ROUNDS = 200  # Axelrod's tournaments: 200 rounds per pairing, no talking
MIN_ROUNDS, MAX_ROUNDS = 1, 1000
DEFAULT_DEADLINE_MS = 10_000
MIN_DEADLINE_MS, MAX_DEADLINE_MS = 100, 600_000
MAX_MESSAGE_CHARS = 280  # fixed by the rules, counted in Unicode code points
MAX_STAKE = 10**9
DEFAULT_RAKE_BPS = 500
MAX_RAKE_BPS = 2000
MAX_SEED = SEED_MAX
# Payoffs are non-negative so that "split the pot in proportion to points" is always defined.
MAX_PAYOFF = 10**6

VARIANTS: dict[str, dict[str, Any]] = {
    "standard": {},
    # The classic Axelrod set-up: 200 rounds per pairing and no messages.
    "classic200": {"rounds_total": CLASSIC_ROUNDS, "promises": False},
}
DEFAULT_VARIANT = "standard"

PAYOFF_KEYS = ("reward", "punishment", "temptation", "sucker")


@dataclass(frozen=True, slots=True)
class Payoffs:
    """The matrix: R both cooperate, P both defect, T defect vs cooperate, S the sucker's."""

    reward: int = 3
    punishment: int = 1
    temptation: int = 5
    sucker: int = 0

    def to_json(self) -> dict[str, int]:
        return {"reward": self.reward, "punishment": self.punishment,
                "temptation": self.temptation, "sucker": self.sucker}


@dataclass(frozen=True, slots=True)
class DilemmaConfig:
    seats: int = DEFAULT_SEATS
    rounds_total: int = DEFAULT_ROUNDS
    promises: bool = True
    turn_deadline_ms: int = DEFAULT_DEADLINE_MS
    payoffs: Payoffs = Payoffs()
    stake: int = 0
    rake_bps: int = DEFAULT_RAKE_BPS
    seed: int = 0
    variant: str = DEFAULT_VARIANT

    @property
    def max_message_chars(self) -> int:
        return MAX_MESSAGE_CHARS

    @property
    def paid(self) -> bool:
        return self.stake > 0

    def to_json(self) -> dict[str, Any]:
        """The full config, seed included (replays and results; never sent to seats)."""
        return {"variant": self.variant, "seats": self.seats, "rounds_total": self.rounds_total,
                "promises": self.promises, "turn_deadline_ms": self.turn_deadline_ms,
                "max_message_chars": MAX_MESSAGE_CHARS, "payoffs": self.payoffs.to_json(),
                "stake": self.stake, "rake_bps": self.rake_bps, "seed": self.seed}


CONFIG_KEYS = ("seats", "rounds_total", "promises", "turn_deadline_ms", "max_message_chars",
               "payoffs", "stake", "rake_bps", "seed")


def check_payoffs(value: Any) -> Payoffs:
    """Integers with T > R > P >= S (a dilemma) and 2R > T + S (taking turns exploiting each
    other does not beat steady cooperation)."""
    if not isinstance(value, Mapping):
        raise ConfigError("payoffs", "payoffs must be an object with reward, punishment, "
                                     f"temptation, sucker (got {value!r})")
    reject_unknown("payoffs", value, PAYOFF_KEYS)
    base = Payoffs().to_json()
    nums = {k: check_int(f"payoffs.{k}", value.get(k, base[k]), 0, MAX_PAYOFF)
            for k in PAYOFF_KEYS}
    r, p, t, s = nums["reward"], nums["punishment"], nums["temptation"], nums["sucker"]
    if not t > r > p >= s:
        raise ConfigError("payoffs", "payoffs must satisfy temptation > reward > punishment >= "
                                     f"sucker (got T={t}, R={r}, P={p}, S={s})")
    if not 2 * r > t + s:
        raise ConfigError("payoffs", "payoffs must satisfy 2 × reward > temptation + sucker "
                                     f"(got 2×{r} <= {t}+{s})")
    return Payoffs(**nums)


def make_config(variant: str | None, overrides: Mapping[str, Any], seed: int) -> DilemmaConfig:
    """Variant defaults, then overrides, each validated. `seed` is already chosen."""
    name = check_choice("variant", variant or DEFAULT_VARIANT, VARIANTS)
    reject_unknown("dilemma config", overrides, CONFIG_KEYS)
    merged: dict[str, Any] = {**VARIANTS[name], **overrides}
    if "max_message_chars" in merged and merged["max_message_chars"] != MAX_MESSAGE_CHARS:
        raise ConfigError("max_message_chars", f"max_message_chars is fixed at "
                                               f"{MAX_MESSAGE_CHARS} (got "
                                               f"{merged['max_message_chars']!r})")
    d = DilemmaConfig()
    return DilemmaConfig(
        seats=check_int("seats", merged.get("seats", d.seats), MIN_SEATS, MAX_SEATS),
        rounds_total=check_int("rounds_total", merged.get("rounds_total", d.rounds_total),
                               MIN_ROUNDS, MAX_ROUNDS),
        promises=check_bool("promises", merged.get("promises", d.promises)),
        turn_deadline_ms=check_int("turn_deadline_ms",
                                   merged.get("turn_deadline_ms", d.turn_deadline_ms),
                                   MIN_DEADLINE_MS, MAX_DEADLINE_MS),
        payoffs=check_payoffs(merged.get("payoffs", {})),
        stake=check_int("stake", merged.get("stake", d.stake), 0, MAX_STAKE),
        rake_bps=check_int("rake_bps", merged.get("rake_bps", d.rake_bps), 0, MAX_RAKE_BPS),
        seed=check_int("seed", merged.get("seed", seed), 0, MAX_SEED),
        variant=name,
    )
