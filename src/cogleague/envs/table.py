"""What the parallel and the single-agent environment share: building an episode from the
descriptor, its spaces, observations, masks, infos and rewards."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from cogleague.core.config import check_bool, check_int
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game, Turn
from cogleague.core.options import validate_options
from cogleague.envs.encoding import Encoding, MaskArray, ObsArray, encoding_of, observe
from cogleague.games import registry

SEED_SPACE = 2**31 - 1
"""Episode seeds an environment draws from its own generator when `reset` gets none."""


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


def plain_int(value: Any) -> Any:
    """A numpy integer as the Python int it is (seeds, seats and counts computed with numpy);
    anything else as given, for its own check to accept or refuse naming the field."""
    return int(value) if isinstance(value, np.integer) else value


RESET_OPTIONS: tuple[str, ...] = ()
"""The keys `reset(options=…)` applies: none (a table's options are the constructor's)."""


class ResetOptionWarning(UserWarning):
    """A `reset` option this environment does not apply. A warning, not an error, because
    PettingZoo's own API checkers reset with a made-up option and expect the reset to go on;
    ``warnings.simplefilter("error", ResetOptionWarning)`` makes it one."""


def check_reset_options(options: Any) -> None:
    """`reset`'s options, never silently ignored: None or a dict; each key that is not one of
    `RESET_OPTIONS` warns naming it and the allowed ones (the reset goes on without it).
    Options that are not a dict are a `ConfigError`, raised before the reset changes
    anything."""
    if options is None:
        return
    if not isinstance(options, Mapping):
        raise ConfigError("options", f"options must be a dict or None (got {options!r})")
    for key in options:
        if key not in RESET_OPTIONS:
            allowed = ", ".join(RESET_OPTIONS) or "none"
            warnings.warn(f"options: {key!r} is not a reset option and is not applied "
                          f"(allowed: {allowed}; a table's own options, as rounds or variant, "
                          "are the constructor's keywords)", ResetOptionWarning, stacklevel=3)


def check_names(field: str, names: Any) -> list[str]:
    """A list, tuple or numpy array of policy names, each a non-empty string, or a
    `ConfigError` naming `field`: a string is refused, not read as a list of its characters,
    and so is a set, whose order (seat order, a pool's draws) would change between runs."""
    if (isinstance(names, str | bytes) or not isinstance(names, Sequence | np.ndarray)
            or not all(isinstance(n, str) and n for n in names)):
        raise ConfigError(field, f"{field} must be a list of policy names, each a non-empty "
                                 f"string (got {names!r})")
    return [str(n) for n in names]


def check_agent_keys(actions: Any, agents: Sequence[str]) -> None:
    """A parallel step's actions: a dict whose every key is an agent of the table. A key that
    is none would be dropped silently (a waiting agent's action is ignored anyway), so a
    misnamed one is refused naming it."""
    if not isinstance(actions, Mapping):
        raise TypeError(f"actions must be a dict of agent name to action "
                        f"(got {type(actions).__name__})")
    if len(actions) > len(agents) or any(key not in agents for key in actions):
        stray = next(key for key in actions if key not in agents)
        raise KeyError(f"actions: {stray!r} is not an agent of this table "
                       f"(agents: {', '.join(agents)})")


def check_seat(seat: Any, seats: int) -> int:
    """The learning seat: an int in 0..seats-1 (a bool is not seat 1), or a `ConfigError`."""
    seat = plain_int(seat)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
        raise ConfigError("seat", f"seat must be 0..{seats - 1} (got {seat!r})")
    return seat


def check_opponent_count(spec: TableSpec, opponents: Sequence[str], kind: str) -> None:
    """`opponents` fills the table's other seats, or a `ConfigError` that says how many; for a
    game with a seat range, that ``seats=`` sets the table's size."""
    need, got = spec.num_seats - 1, len(opponents)
    if got == need:
        return
    lo, hi = spec.desc.seat_range
    hint = ""
    if lo < hi:
        hint = (f"; this table has {spec.num_seats} seats, the game seats {lo}..{hi}"
                + (f": pass seats={got + 1} for a table of {got + 1}" if lo <= got + 1 <= hi
                   else ""))
    raise ConfigError("opponents", f"opponents must list {need} {kind} for the other seats "
                                   f"(got {got}){hint}")


def default_opponents(spec: TableSpec, seat: int) -> list[str]:
    """The variant's line-up without `seat` (repeated to fill a larger table): the opponents
    an environment seats when the caller names none."""
    lineup = spec.desc.default_lineup(spec.variant)
    return [lineup[s % len(lineup)] for s in range(spec.num_seats) if s != seat]


def default_refused(exc: ConfigError, variant: str | None) -> ConfigError:
    """A refusal of the default opponents, saying they were the default: the caller gave no
    `opponents` to blame."""
    return ConfigError("opponents", f"opponents: not given, and the {variant or 'default'} "
                                    f"variant's line-up cannot sit here ({exc}); give "
                                    "opponents=[…]")


class TableSpec:
    """A game, variant and config as an environment plays them, episode after episode."""

    def __init__(self, game: str | GameDescriptor, variant: str | None = None,
                 policy_names: Sequence[str] | None = None, views: bool = True,
                 seats: int | None = None, **config: Any) -> None:
        self.desc = registry.get(game) if isinstance(game, str) else game
        self.enc: Encoding = encoding_of(self.desc)
        self.variant = variant if variant is not None else self.desc.default_variant
        if self.variant is not None and self.variant not in self.desc.variants:
            raise ConfigError("variant", f"variant must be one of "
                                         f"{', '.join(self.desc.variants)} (got {variant!r})")
        self.overrides = validate_options(self.desc.options, config)
        self.views = check_bool("views", views)
        lo, hi = self.desc.seat_range
        if seats is not None and (isinstance(seats, bool) or not isinstance(seats, int)
                                  or not lo <= seats <= hi):
            raise ConfigError("seats", f"seats must be an integer {lo}..{hi} (got {seats!r})")
        if policy_names is None:
            seats = seats or self.desc.seats_of(self.variant, self.overrides)
            policy_names = [f"rl:{agent_name(s)}" for s in range(seats)]
        else:
            policy_names = check_names("policy_names", policy_names)
            if not lo <= len(policy_names) <= hi:
                raise ConfigError("policy_names", f"policy_names must list {lo}..{hi} policies, "
                                                  f"one per seat (got {len(policy_names)})")
            if seats is not None and seats != len(policy_names):
                raise ConfigError("seats", f"seats is {seats} but policy_names lists "
                                           f"{len(policy_names)}")
        self.policy_names = list(policy_names)
        self.fixed_seed = self._fixed_seed()
        probe = self.new_game(None)  # sizes only (a variant may fix its own seed)
        self.num_seats = probe.num_seats
        self.obs_size = self.enc.obs_size(probe)
        self.num_actions = self.enc.num_actions(probe)
        low, high = self.enc.obs_bounds(probe)
        low_arr = np.full(self.obs_size + 1, low, dtype=np.float32)
        high_arr = np.full(self.obs_size + 1, high, dtype=np.float32)
        low_arr[0], high_arr[0] = 0.0, 1.0
        self.observation_space = spaces.Box(low_arr, high_arr, dtype=np.float32)
        self.action_space = spaces.Discrete(self.num_actions)
        self.fields = ["acting", *self.enc.obs_fields(probe)]
        self._all_legal = np.ones(self.num_actions, dtype=np.int8)  # copied: infos share nothing
        self._waiting = np.zeros(self.obs_size + 1, dtype=np.float32)

    def new_game(self, seed: int | None) -> Game:
        return self.desc.make(self.variant, dict(self.overrides), seed, self.policy_names, None)

    def _fixed_seed(self) -> int | None:
        """The seed of a variant that fixes its own (Ledger's certification: 7), None where
        any seed plays: such a variant refuses seed 0 and plays one seed when given none."""
        try:
            self.new_game(0)
            return None
        except ConfigError as exc:
            if exc.field != "seed":
                raise
        seeds = {self.new_game(None).seed for _ in range(2)}
        if len(seeds) != 1:
            raise ConfigError("seed", f"variant {self.variant!r} refuses seed 0 but fixes "
                                      "no seed of its own")
        return seeds.pop()

    def seeded_game(self, seed: int) -> Game:
        """The game of ``reset(seed=seed)``: that seed's game. A variant that fixes its seed
        plays its own whatever the seed (in the game's range; it then seeds only the
        environment's generator), so the ecosystem's checkers, which reset with any seed,
        run on it too."""
        if self.fixed_seed is None:
            return self.new_game(seed)
        check_int("seed", seed, 0, self.desc.seed_max)
        return self.new_game(None)

    def drawn_game(self, seed: int) -> Game:
        """A game for a seed the environment drew itself (a variant that fixes its own seed
        plays its own)."""
        return self.new_game(seed if self.fixed_seed is None else None)

    def observation(self, game: Game, turn: Turn | None) -> ObsArray:
        if turn is None:
            return self._waiting.copy()
        return observe(self.enc, game, turn, self.obs_size)

    def mask(self, game: Game, turn: Turn | None) -> MaskArray:
        """The turn's mask (all ones while the seat waits or when every action is legal)."""
        if turn is None:
            return self._all_legal.copy()
        mask = self.enc.mask(game, turn)
        return self._all_legal.copy() if mask is None else mask

    def info(self, game: Game, turn: Turn | None) -> dict[str, Any]:
        """``acting``, ``turn_id``, ``action_mask`` and, with `views`, the protocol view."""
        info: dict[str, Any] = {"acting": turn is not None,
                                "turn_id": None if turn is None else turn.turn_id,
                                "action_mask": self.mask(game, turn)}
        if self.views and turn is not None:
            info["view"] = turn.view
        return info

    def final_info(self, results: Mapping[str, Any], seat: int) -> dict[str, Any]:
        return {"acting": False, "turn_id": None, "action_mask": self._all_legal.copy(),
                "score": self.enc.score(results, seat), "reason": results.get("reason")}
