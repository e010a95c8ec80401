"""Ledger configuration (spec §2) and the time rules the runner enforces (§11).

A bad value raises `ConfigError` naming the field, the range and the value
(``rounds must be an integer in 4..28 (got 3)``). Nothing is silently clamped; booleans are
not integers.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cogleague.core.config import check_choice, check_int, check_number, check_str, reject_unknown
from cogleague.core.errors import ConfigError
from cogleague.core.game import DECISION_RETRIES, Timing
from cogleague.core.rng import random_seed
from cogleague.games.ledger.aliases import SEATS
from cogleague.games.ledger.baselines import BASELINES, baseline_key
from cogleague.seats.factory import is_bot_ref

SEED_MAX = 2_147_483_647  # the spec narrows core.rng.SEED_MAX: int 0..2147483647
ROUNDS_MIN, ROUNDS_MAX = 4, 28
EPISODE_TIMEOUT_S = (60.0, 6000.0, 1200.0)  # min, max, default
PLAY_BUDGET_FRACTION = (0.1, 0.9, 0.6)
DECISION_TIMEOUT_S = (5.0, 300.0, 30.0)
POLICY_NAME_MAX = 200

STANDARD, QUICKFIRE, CERTIFICATION = "standard", "quickfire", "certification"
VARIANTS = (STANDARD, QUICKFIRE, CERTIFICATION)
VARIANT_ROUNDS = {STANDARD: 14, QUICKFIRE: 7, CERTIFICATION: 6}
CERTIFICATION_SEED = 7
MODEL_SEAT = "llm"  # how a line-up names a model seat (see cogleague.seats.factory)
CERTIFICATION_LINEUP = (MODEL_SEAT, "mirror", "shark", MODEL_SEAT, "mirror", MODEL_SEAT,
                        "mirror", "shark")
DEFAULT_LINEUP = ("mirror", "shark", "grim", "saint", "opportunist", "mirror", "grim",
                  "opportunist")

# §11: the round reserve is the worst-case round duration for the seats present.
RESERVE_SCRIPTED_S = 2.0
RESERVE_MARGIN_S = 10.0  # added to two decision timeouts (an attempt and its retry)

DRIVER_MODEL, DRIVER_REMOTE, DRIVER_SCRIPTED = "model", "remote", "scripted"
KNOWN_SETTINGS = ("seed", "rounds", "episode_timeout_s", "play_budget_fraction",
                  "decision_timeout_s", "seats")


@dataclass(frozen=True)
class SeatConfig:
    """One seat as the config names it: `driver` is ``scripted:<baseline>``, ``model`` or
    ``remote``."""

    policy_name: str
    driver: str

    def to_json(self) -> dict[str, str]:
        return {"policy_name": self.policy_name, "driver": self.driver}


@dataclass(frozen=True)
class LedgerConfig:
    variant: str
    seed: int
    rounds: int
    episode_timeout_s: float
    play_budget_fraction: float
    decision_timeout_s: float
    seats: tuple[SeatConfig, ...]

    @property
    def policy_names(self) -> list[str]:
        return [s.policy_name for s in self.seats]

    def to_json(self) -> dict[str, Any]:
        """The replay's config header (the schedule is added by the replay)."""
        return {"variant": self.variant, "seed": self.seed, "rounds": self.rounds,
                "episode_timeout_s": self.episode_timeout_s,
                "play_budget_fraction": self.play_budget_fraction,
                "decision_timeout_s": self.decision_timeout_s}

    def timing(self) -> Timing:
        return Timing(
            decision_timeout_s=self.decision_timeout_s,
            retries=DECISION_RETRIES,
            play_budget_s=self.play_budget_fraction * self.episode_timeout_s,
            reserve_s=(1 + DECISION_RETRIES) * self.decision_timeout_s + RESERVE_MARGIN_S,
            reserve_scripted_s=RESERVE_SCRIPTED_S,
        )


def default_lineup(variant: str | None) -> list[str]:
    """Certification's fixed line-up (model seats named ``llm``), else a mix of all baselines."""
    if (variant or STANDARD) == CERTIFICATION:
        return list(CERTIFICATION_LINEUP)
    return list(DEFAULT_LINEUP)


def seat_from_name(index: int, name: Any) -> SeatConfig:
    """Classify a line-up entry as the seat factory does: ``llm[:PROMPT]`` → model,
    ``MODULE:CLASS`` (an SDK bot) or ``policy:PATH`` (a trained policy) → remote, anything
    else must be a baseline. A string's answer is remembered (`SeatConfig` is frozen, and a
    league seats the same few names by the hundred thousand); a refusal is not."""
    if type(name) is str:
        return _seat_from_str(index, name)
    return _classify(index, name)


@functools.lru_cache(maxsize=1024)
def _seat_from_str(index: int, name: str) -> SeatConfig:
    return _classify(index, name)


def _classify(index: int, name: Any) -> SeatConfig:
    name = check_str(f"seats[{index}]", name, POLICY_NAME_MAX, min_len=1)
    if name == MODEL_SEAT or name.startswith(MODEL_SEAT + ":"):
        return SeatConfig(name, DRIVER_MODEL)
    if is_bot_ref(name) or name.startswith("policy:"):
        return SeatConfig(name, DRIVER_REMOTE)
    key = baseline_key(name)
    if key is None:
        raise ConfigError("seats", f"seats: unknown baseline {name!r} for seat {index} "
                                   f"(known: {', '.join(BASELINES)})")
    return SeatConfig(name, f"{DRIVER_SCRIPTED}:{key}")


def _seat_from_spec(index: int, spec: Any) -> SeatConfig:
    if not isinstance(spec, Mapping):
        raise ConfigError("seats", f"seats[{index}] must be an object with policy_name and "
                                   f"driver (got {spec!r})")
    reject_unknown(f"seats[{index}]", spec, ("policy_name", "driver"))
    name = check_str(f"seats[{index}].policy_name", spec.get("policy_name"), POLICY_NAME_MAX,
                     min_len=1)
    driver = spec.get("driver")
    if isinstance(driver, str) and driver.startswith(DRIVER_SCRIPTED + ":"):
        key = baseline_key(driver.split(":", 1)[1])
        if key is None:
            raise ConfigError("seats", f"seats[{index}].driver: unknown baseline in {driver!r} "
                                       f"(known: {', '.join(BASELINES)})")
        return SeatConfig(name, f"{DRIVER_SCRIPTED}:{key}")
    if driver not in (DRIVER_MODEL, DRIVER_REMOTE):
        raise ConfigError("seats", f"seats[{index}].driver must be scripted:<baseline>, "
                                   f"{DRIVER_MODEL} or {DRIVER_REMOTE} (got {driver!r})")
    return SeatConfig(name, driver)


def build_config(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
                 policy_names: Sequence[str]) -> LedgerConfig:
    """Validate a variant plus overrides into a config. `seats` may come as policy names or as
    ``overrides["seats"] = [{policy_name, driver}, …]`` (servers naming remote accounts)."""
    variant = check_choice("variant", variant or STANDARD, VARIANTS)
    reject_unknown("ledger", overrides, KNOWN_SETTINGS)
    if seed is None:
        seed = overrides.get("seed")
    elif "seed" in overrides and overrides["seed"] != seed:
        raise ConfigError("seed", f"seed given twice ({seed!r} and {overrides['seed']!r})")
    rounds = overrides.get("rounds", VARIANT_ROUNDS[variant])
    if variant == CERTIFICATION:
        if seed is None:
            seed = CERTIFICATION_SEED
        if seed != CERTIFICATION_SEED:
            raise ConfigError("seed", f"seed must be {CERTIFICATION_SEED} in the certification "
                                      f"variant (got {seed!r})")
        if rounds != VARIANT_ROUNDS[CERTIFICATION]:
            raise ConfigError("rounds", f"rounds must be {VARIANT_ROUNDS[CERTIFICATION]} in the "
                                        f"certification variant (got {rounds!r})")
    if seed is None:
        seed = random_seed()  # OS entropy, recorded in the replay
    return LedgerConfig(
        variant=variant,
        seed=check_int("seed", seed, 0, SEED_MAX),
        rounds=check_int("rounds", rounds, ROUNDS_MIN, ROUNDS_MAX),
        episode_timeout_s=_number("episode_timeout_s", overrides, EPISODE_TIMEOUT_S),
        play_budget_fraction=_number("play_budget_fraction", overrides, PLAY_BUDGET_FRACTION),
        decision_timeout_s=_number("decision_timeout_s", overrides, DECISION_TIMEOUT_S),
        seats=_seats(variant, overrides.get("seats"), policy_names),
    )


def _number(field: str, overrides: Mapping[str, Any], bounds: tuple[float, float, float]) -> float:
    lo, hi, default = bounds
    return check_number(field, overrides.get(field, default), lo, hi)


def _seats(variant: str, specs: Any, policy_names: Sequence[str]) -> tuple[SeatConfig, ...]:
    if specs is not None:
        if not isinstance(specs, list | tuple):
            raise ConfigError("seats", f"seats must be a list of {SEATS} seats (got {specs!r})")
        seats = [_seat_from_spec(i, s) for i, s in enumerate(specs)]
        if policy_names and list(policy_names) != [s.policy_name for s in seats]:
            raise ConfigError("seats", "seats: the policy names differ from the seats setting")
    else:
        names = list(policy_names) or default_lineup(variant)
        if len(names) != SEATS:
            raise ConfigError("seats", f"seats must list exactly {SEATS} policies "
                                       f"(got {len(names)})")
        seats = [seat_from_name(i, n) for i, n in enumerate(names)]
    if len(seats) != SEATS:
        raise ConfigError("seats", f"seats must list exactly {SEATS} seats (got {len(seats)})")
    return tuple(seats)
