"""Vector environments over a game's batch kernel (``extras["batch"]``, `core/batch.py`).

- `BatchVectorEnv` (`vector_env`): a Gymnasium `VectorEnv` of `num_envs` tables in which one
  seat learns and every other seat is a baseline's array twin;
- `ParallelVectorEnv` (`parallel_vector_env`): the PettingZoo parallel API over `num_envs`
  tables, every seat an agent, each value a (num_envs, …) array.

Both follow Gymnasium's vector convention: `observation_space` / `action_space` are the
batched spaces of the values exchanged (`batch_space` of one table's),
`single_observation_space` / `single_action_space` one table's (per agent, as methods, in the
PettingZoo face).

Observations, masks and rewards are the game's RL encoding (`extras["rl"]`), so a policy file
trained here plays at a rules-engine table (`policy:PATH`). Episodes of one configuration all
take the kernel's `steps_per_episode`; after the step that ends them every table is reset on
the next `step` (Gymnasium's next-step autoreset: that step's actions are ignored, its rewards
are zero). Table i of ``reset(seed=s)`` plays seed s + i, each a seed the rules engine plays
(the game's range; a variant that fixes its seed plays only that one, at every table, and
``reset(seed=s)`` then seeds only the generator); later episodes draw their seeds from the
environment's generator. A copy (`pickle`, `copy.deepcopy`) replays the running episodes and
continues as the original (`snapshot.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from pettingzoo import ParallelEnv

from cogleague.batch_api import check_seeds
from cogleague.core.batch import Array, BatchKernel, batch_of
from cogleague.core.config import check_int
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError, IllegalAction
from cogleague.envs.snapshot import Construction, Episode, rng_from, rng_state
from cogleague.envs.table import (
    SEED_SPACE,
    TableSpec,
    agent_name,
    check_agent_keys,
    check_opponent_count,
    check_reset_options,
    check_seat,
    default_opponents,
    default_refused,
    plain_int,
)

NUM_ENVS_MAX = 1_000_000
"""The most tables one vector environment holds: far past what a step's arrays fit in memory
for most games, so a mistyped ``10**9`` is refused at once instead of allocating for minutes."""
NOT_VECTOR_KEYWORDS = ("views", "policy_names")
"""Keywords of the rules-engine environments that a vector environment does not take."""


def check_vector_config(config: dict[str, Any]) -> None:
    """A keyword of the rules-engine environments given to a vector one is refused naming it
    (else Python's own `TypeError` about a duplicated argument)."""
    for key in NOT_VECTOR_KEYWORDS:
        if key in config:
            raise ConfigError(key, f"{key}: the vector environments take no {key} (their "
                                   "infos carry no protocol view and their line-up is "
                                   "not recorded); it is a keyword of parallel_env, aec_env "
                                   "and single_agent_env")


class KernelTables:
    """What both vector environments share: the kernel, its spaces and episodes of B tables."""

    def __init__(self, game: str | GameDescriptor, num_envs: int, lineup: Sequence[str | None],
                 variant: str | None, config: dict[str, Any]) -> None:
        num_envs = check_int("num_envs", plain_int(num_envs), 1, NUM_ENVS_MAX)
        self.spec = TableSpec(game, variant, None, False, len(lineup), **config)
        batch = batch_of(self.spec.desc)
        if batch is None:
            raise ConfigError("game", f"game {self.spec.desc.name!r} declares no batch kernel "
                                      "(descriptor extras['batch'])")
        self.kernel: BatchKernel = batch.kernel(self.spec.variant, self.spec.overrides,
                                                self.spec.num_seats)
        self.lineup = list(lineup)
        unknown = [n for n in lineup if n is not None and n not in batch.baselines]
        if unknown:  # the opponents of `vector_env`; the kernel would blame `seats`
            raise ConfigError("opponents", f"opponents must be baselines with a batch twin "
                                           f"({', '.join(batch.baselines)}; got {unknown[0]!r})")
        self.policies = {s: self.kernel.policy(name, s) for s, name in enumerate(lineup)
                         if name is not None}
        self.num_envs = num_envs
        self.rng = np.random.default_rng()
        self.fixed_seed = self.spec.fixed_seed  # such a variant plays it at every table
        self.state: Any = None
        self._masks: Array | None = None
        self.steps = 0
        self.ended = False
        self.episode: Episode | None = None
        self._index_dtype = np.min_scalar_type(-self.kernel.num_actions)  # a signed int

    def reset(self, seed: int | None) -> None:
        seed = plain_int(seed)
        before = rng_state(self.rng)
        spec = self.spec
        if seed is not None:
            if self.fixed_seed is not None:  # as `TableSpec.seeded_game`: any seed in range
                check_int("seed", seed, 0, spec.desc.seed_max)
                seeds = [self.fixed_seed] * self.num_envs
            else:  # table i plays seed + i: each a seed the rules engine plays
                check_int("seed", seed, 0, spec.desc.seed_max - (self.num_envs - 1))
                seeds = [seed + i for i in range(self.num_envs)]
                check_seeds(spec.desc, spec.variant, spec.overrides, spec.policy_names, seeds,
                            "seed")
            self.rng = np.random.default_rng(seed)
        elif self.fixed_seed is not None:
            seeds = [self.fixed_seed] * self.num_envs
        else:
            seeds = [int(x) for x in self.rng.integers(SEED_SPACE, size=self.num_envs)]
        self.state = self.kernel.reset(seeds, self.lineup)
        self.episode = Episode(before, seed)
        self._masks = None
        self.steps = 0
        self.ended = False

    def close(self) -> None:
        """No episode any more: `step` needs a `reset` first."""
        self.state = None
        self._masks = None
        self.episode = None

    def snapshot(self) -> dict[str, Any]:
        """The running episodes (None when there are none) and the generator, to `restore`."""
        return {"episode": self.episode, "rng": rng_state(self.rng)}

    def restore(self, saved: dict[str, Any]) -> None:
        """Replay a `snapshot`'s episodes on these (fresh) tables."""
        episode: Episode | None = saved["episode"]
        if episode is not None:
            self.rng = rng_from(episode.rng)
            self.reset(episode.seed)
            for learners in episode.steps:
                self.step(learners)
        self.rng = rng_from(saved["rng"])

    def masks(self) -> Array:
        """(B, seats, actions) int8 of the current state, made once per state (read-only:
        callers copy what they hand out)."""
        if self._masks is None:
            m = self.kernel.mask(self.state)
            shape = (self.num_envs, self.kernel.num_seats, self.kernel.num_actions)
            self._masks = np.ones(shape, dtype=np.int8) if m is None else np.asarray(
                m, dtype=np.int8)
        return self._masks

    def step(self, learners: dict[int, Array]) -> tuple[Array, Array]:
        """Every table one step: the learners' actions (B,) by seat, the baselines' own."""
        actions = np.zeros((self.num_envs, self.kernel.num_seats), dtype=np.int64)
        masks = self.masks()
        taken: dict[int, Array] = {}
        for s, a in learners.items():
            given = np.asarray(a)
            if given.dtype.kind not in "iu" or given.size != self.num_envs:
                raise IllegalAction(f"actions of {agent_name(s)}: {self.num_envs} integer "
                                    f"indices, shape ({self.num_envs},), expected (got "
                                    f"{given.dtype} of shape {given.shape})")
            a = given.astype(np.int64).reshape(self.num_envs)
            bad = (a < 0) | (a >= self.kernel.num_actions)
            if not bad.any():
                bad = masks[np.arange(self.num_envs), s, a] == 0
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise IllegalAction(f"actions[{i}]: {int(a[i])} is not a legal action of "
                                    f"{agent_name(s)} now (its action_mask says which are)")
            actions[:, s] = a
            taken[s] = a.astype(self._index_dtype)  # the replay's record, kept small
        assert self.episode is not None
        self.episode.steps.append(taken)
        for s, policy in self.policies.items():
            actions[:, s] = np.asarray(policy.act(self.state))
        self.state, rewards, done = self.kernel.step(self.state, actions)
        self._masks = None
        self.steps += 1
        self.ended = bool(np.all(np.asarray(done)))
        return np.asarray(rewards, dtype=np.float64), np.asarray(done, dtype=bool)

    def observations(self) -> Array:
        return np.array(self.kernel.observe(self.state), dtype=np.float32)

    def scores(self) -> Array:
        return np.asarray(self.kernel.scores(self.state), dtype=np.float64)


class BatchVectorEnv(VectorEnv):
    """One learning seat at `num_envs` tables; `opponents` are the other seats' baselines in
    seat order (default: the variant's line-up without the agent's seat). Infos carry
    ``action_mask`` (num_envs, actions) and, on the step that ends the episodes, ``score``."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 - gymnasium's

    def __init__(self, game: str | GameDescriptor, num_envs: int = 1,
                 opponents: Sequence[str] | None = None, seat: int = 0,
                 variant: str | None = None, seats: int | None = None, **config: Any) -> None:
        self._made = Construction.of(game, num_envs=num_envs, opponents=opponents, seat=seat,
                                     variant=variant, seats=seats, **config)
        check_vector_config(config)
        probe = TableSpec(game, variant, None, False, seats, **config)
        n = probe.num_seats
        seat = check_seat(seat, n)
        defaulted = opponents is None
        if opponents is None:
            opponents = default_opponents(probe, seat)
        elif isinstance(opponents, str | bytes) or not isinstance(opponents, Sequence):
            # not read as a list of its characters; each entry is checked as a baseline below
            raise ConfigError("opponents", f"opponents must be a list of baseline names, one "
                                           f"per other seat (got {opponents!r})")
        check_opponent_count(probe, opponents, "baselines")
        names: list[str | None] = list(opponents)
        names.insert(seat, None)
        self.seat = seat
        try:
            self.tables = KernelTables(game, num_envs, names, variant, config)
        except ConfigError as exc:
            if not defaulted or exc.field != "opponents":
                raise
            raise default_refused(exc, probe.variant) from None
        self.num_envs = self.tables.num_envs
        self.single_observation_space = self.tables.spec.observation_space
        self.single_action_space = self.tables.spec.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._pending_reset = False

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Array, dict[str, Any]]:
        check_reset_options(options)  # none applies: an unknown key warns, never silent
        seed = plain_int(seed)
        self.tables.reset(seed)  # first: it names a bad seed and its range, Gymnasium would not
        super().reset(seed=seed)
        self._pending_reset = False
        return self._obs(), self._infos()

    def render(self) -> None:
        """No render modes: with ``render_mode = None`` nothing is computed."""
        return None

    def _obs(self) -> Array:
        return self.tables.observations()[:, self.seat]

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self.tables.masks()[:, self.seat].copy()}

    def step(self, actions: Any) -> tuple[Array, Array, Array, Array, dict[str, Any]]:
        if self.tables.state is None:
            raise RuntimeError("step() needs a running episode: call reset() first")
        b = self.num_envs
        if self._pending_reset:
            self.tables.reset(None)
            self._pending_reset = False
            return (self._obs(), np.zeros(b), np.zeros(b, dtype=bool),
                    np.zeros(b, dtype=bool), self._infos())
        rewards, done = self.tables.step({self.seat: np.asarray(actions)})
        infos = self._infos()
        if done.any():
            infos["score"] = self.tables.scores()[:, self.seat]
            infos["_score"] = done.copy()
            self._pending_reset = True
        return self._obs(), rewards[:, self.seat].copy(), done, np.zeros(b, dtype=bool), infos

    # -- copies (`snapshot.py`) --------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        rng = None if self._np_random is None else rng_state(self._np_random)
        return self._made.state(None, tables=self.tables.snapshot(),
                                pending=self._pending_reset, rng=rng,
                                rng_seed=self._np_random_seed)

    def __setstate__(self, state: dict[str, Any]) -> None:
        Construction.rebuild(self, state, lambda _: None)
        self.tables.restore(state["tables"])
        self._pending_reset = state["pending"]
        self._np_random = None if state["rng"] is None else rng_from(state["rng"])
        self._np_random_seed = state["rng_seed"]


class ParallelVectorEnv(ParallelEnv):
    """Every seat an agent at `num_envs` tables (the PettingZoo parallel API, each value a
    (num_envs, …) array): ``reset`` → (observations, infos), ``step(actions)`` →
    (observations, rewards, terminations, truncations, infos), keyed by agent name;
    ``observation_space(agent)`` / ``action_space(agent)`` batched, ``single_…`` one table's;
    PettingZoo's `close`, `render`, `num_agents`, `max_num_agents`, `unwrapped`."""

    render_mode = None

    metadata = {"name": "cogleague_parallel_vector_v1",  # noqa: RUF012 - PettingZoo's
                "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, game: str | GameDescriptor, num_envs: int = 1,
                 variant: str | None = None, seats: int | None = None, **config: Any) -> None:
        self._made = Construction.of(game, num_envs=num_envs, variant=variant, seats=seats,
                                     **config)
        check_vector_config(config)
        probe = TableSpec(game, variant, None, False, seats, **config)
        self.tables = KernelTables(game, num_envs, [None] * probe.num_seats, variant, config)
        self.num_envs = self.tables.num_envs
        self.possible_agents = [agent_name(s) for s in range(probe.num_seats)]
        self.agents: list[str] = []
        obs_space = batch_space(self.tables.spec.observation_space, self.num_envs)
        act_space = batch_space(self.tables.spec.action_space, self.num_envs)
        assert isinstance(obs_space, spaces.Box) and isinstance(act_space, spaces.MultiDiscrete)
        self._observation_space, self._action_space = obs_space, act_space
        self._pending_reset = False

    def render(self) -> None:
        return None

    def close(self) -> None:
        """Drop the tables' state (again is fine): `step` then asks for a `reset`."""
        self.tables.close()
        self.agents = []

    # Gymnasium's vector convention, per agent: `observation_space` / `action_space` describe
    # the (num_envs, …) values `reset` and `step` exchange (`batch_space` of one table's), the
    # `single_*` spaces one table's; built once, the same object on every call (PettingZoo).
    def observation_space(self, agent: str) -> spaces.Box:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.MultiDiscrete:
        return self._action_space

    def single_observation_space(self, agent: str) -> spaces.Box:
        return self.tables.spec.observation_space

    def single_action_space(self, agent: str) -> spaces.Discrete:
        return self.tables.spec.action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Array], dict[str, dict[str, Any]]]:
        check_reset_options(options)  # none applies: an unknown key warns, never silent
        self.tables.reset(seed)
        self.agents = list(self.possible_agents)
        self._pending_reset = False
        return self._obs(), self._infos()

    def _obs(self) -> dict[str, Array]:
        obs = self.tables.observations()
        return {a: obs[:, s].copy() for s, a in enumerate(self.possible_agents)}

    def _infos(self) -> dict[str, dict[str, Any]]:
        masks = self.tables.masks()
        return {a: {"action_mask": masks[:, s].copy()} for s, a in enumerate(self.possible_agents)}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Array], dict[str, Array],
                                                     dict[str, Array], dict[str, Array],
                                                     dict[str, dict[str, Any]]]:
        if self.tables.state is None:
            raise RuntimeError("step() needs a running episode: call reset() first")
        b, agents = self.num_envs, self.possible_agents
        check_agent_keys(actions, agents)
        if self._pending_reset:
            self.tables.reset(None)
            self._pending_reset = False
            zeros = {a: np.zeros(b) for a in agents}
            false = {a: np.zeros(b, dtype=bool) for a in agents}
            return self._obs(), zeros, false, dict(false), self._infos()
        missing = [a for a in agents if a not in actions]
        if missing:
            raise KeyError(f"actions: {missing[0]} decides now and has no action")
        rewards, done = self.tables.step({s: actions[a] for s, a in enumerate(agents)})
        infos = self._infos()
        if done.any():
            scores = self.tables.scores()
            for s, a in enumerate(agents):
                infos[a]["score"] = scores[:, s].copy()
            self._pending_reset = True
        return (self._obs(), {a: rewards[:, s].copy() for s, a in enumerate(agents)},
                {a: done.copy() for a in agents},
                {a: np.zeros(b, dtype=bool) for a in agents}, infos)

    # -- copies (`snapshot.py`) --------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return self._made.state(None, tables=self.tables.snapshot(),
                                pending=self._pending_reset)

    def __setstate__(self, state: dict[str, Any]) -> None:
        Construction.rebuild(self, state, lambda _: None)
        self.tables.restore(state["tables"])
        self._pending_reset = state["pending"]
        if self.tables.state is not None:
            self.agents = list(self.possible_agents)
