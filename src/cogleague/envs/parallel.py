"""`parallel_env(game, **config)`: a PettingZoo `ParallelEnv` over the real game and runner.

Agents are the seats (``seat_0`` …). One environment step asks every seat that decides now
for one turn: in games where a seat has several turns in one step (the dilemma's pairings)
the step is split into sub-steps, the k-th asking each seat its k-th turn; a seat with no turn
in a sub-step is still live, observes ``acting = 0`` and its action is ignored. When every
turn of the step has its answer the runner settles it. Rewards are each seat's change of the
encoding's `tally` since the previous step; at the end every agent terminates together and
its info carries the episode ``score`` and the end ``reason``.

A copy (`pickle`, `copy.deepcopy`) replays the running episode and continues as the original
(`snapshot.py`).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import IllegalAction
from cogleague.core.game import Turn
from cogleague.envs.driver import (
    ILLEGAL_ACTION,
    EpisodeDriver,
    answer_with,
    finished_replay,
    taken,
)
from cogleague.envs.snapshot import Construction, Episode, rng_from, rng_state
from cogleague.envs.table import (
    SEED_SPACE,
    TableSpec,
    agent_name,
    check_agent_keys,
    check_reset_options,
    plain_int,
)


class CogleagueParallelEnv(ParallelEnv):
    metadata = {"name": "cogleague_v1", "render_modes": []}  # noqa: RUF012 - PettingZoo's

    def __init__(self, game: str | GameDescriptor, variant: str | None = None,
                 policy_names: list[str] | None = None, views: bool = True,
                 seats: int | None = None, **config: Any) -> None:
        self._made = Construction.of(game, variant=variant, policy_names=policy_names,
                                     views=views, seats=seats, **config)
        self._episode: Episode | None = None
        self.spec_ = TableSpec(game, variant, policy_names, views, seats, **config)
        self.metadata = {"name": f"cogleague_{self.spec_.desc.name}_v1", "render_modes": []}
        self.render_mode = None
        self.possible_agents = [agent_name(s) for s in range(self.spec_.num_seats)]
        self.agents: list[str] = []
        self.driver: EpisodeDriver | None = None
        self._rng = np.random.default_rng()
        self._sub = 0
        self._last: list[float] = []
        self._now: list[Turn | None] = []
        self._decode: Any = None
        self._decode_game: Any = None

    # The spec's own space objects: the same object on every call, as PettingZoo requires,
    # with no method cache (`functools.cache` on a method would keep every env alive).
    def observation_space(self, agent: str) -> spaces.Box:
        return self.spec_.observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.spec_.action_space

    # -- episode ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new episode. `seed` is the game's seed (its replay records it); without one the
        environment draws it from its own generator (seeded by the last seeded reset). No
        `options` key applies: each warns naming it (`check_reset_options`)."""
        check_reset_options(options)
        seed = plain_int(seed)
        before = rng_state(self._rng)
        if seed is not None:
            game = self.spec_.seeded_game(seed)  # first: a bad seed is named with its range
            self._rng = np.random.default_rng(seed)
        else:
            game = self.spec_.drawn_game(int(self._rng.integers(SEED_SPACE)))
        if self.driver is not None:  # only now: a refused reset leaves the episode running
            self.driver.close()
        self.driver = EpisodeDriver(game, range(game.num_seats))
        self._episode = Episode(before, seed)
        self.driver.start()
        self.agents = list(self.possible_agents)
        self._sub = 0
        self._last = [float(x) for x in self.spec_.enc.tally(game)]
        self._locate()
        return self._observations()

    def _locate(self) -> None:
        """Each seat's turn in the current sub-step (None: it waits)."""
        assert self.driver is not None
        sub, turns = self._sub, self.driver.turns
        self._now = [ts[sub] if sub < len(ts) else None
                     for ts in (turns.get(s, ()) for s in range(len(self.possible_agents)))]

    def _current(self, seat: int) -> Turn | None:
        return self._now[seat]

    def _observations(self) -> tuple[dict[str, Any], dict[str, Any]]:
        assert self.driver is not None
        game, spec = self.driver.game, self.spec_
        observation, info = spec.observation, spec.info
        obs, infos = {}, {}
        for agent, turn in zip(self.possible_agents, self._now, strict=True):
            obs[agent] = observation(game, turn)
            infos[agent] = info(game, turn)
        return obs, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], ...]:
        driver = self.driver
        if driver is None or not self.agents:
            raise RuntimeError("step() needs a running episode: call reset() first")
        check_agent_keys(actions, self.possible_agents)
        game, enc = driver.game, self.spec_.enc
        decode = self._decode
        if decode is None or self._decode_game is not game:
            decode = self._decode = functools.partial(enc.decode, game)
            self._decode_game = game
        chosen: dict[str, int | IllegalAction] = {}
        for agent, turn in zip(self.possible_agents, self._now, strict=True):
            if turn is not None:
                if agent not in actions:
                    raise KeyError(f"actions: {agent} decides now and has no action")
                chosen[agent] = taken(actions[agent])
        assert self._episode is not None
        self._episode.steps.append(chosen)
        answers = driver.answers
        illegal: dict[str, str] = {}
        for agent, turn in zip(self.possible_agents, self._now, strict=True):
            if turn is not None:
                answer = answers[turn.turn_id] = answer_with(decode, turn, chosen[agent])
                if isinstance(answer, IllegalAction):
                    illegal[agent] = str(answer)
        self._sub += 1
        if not any(self._sub < len(ts) for ts in driver.turns.values()):
            driver.resume()
            self._sub = 0
        self._locate()
        tally = [float(x) for x in enc.tally(game)]
        rewards = {a: tally[s] - self._last[s] for s, a in enumerate(self.possible_agents)}
        self._last = tally
        done = driver.done
        obs, infos = self._observations()
        if done:
            assert driver.outcome is not None
            results = driver.outcome.results
            infos = {a: self.spec_.final_info(results, s)
                     for s, a in enumerate(self.possible_agents)}
            self.agents = []
        for agent, why in illegal.items():  # replaced by the fallback: said, not silent
            infos[agent] = {**infos[agent], ILLEGAL_ACTION: why}
        terminations = {a: done for a in self.possible_agents}
        truncations = {a: False for a in self.possible_agents}
        return obs, rewards, terminations, truncations, infos

    def current_turn(self, agent: str) -> Turn | None:
        """The turn `agent` answers in this step (None while it waits): its `view`,
        `legal_actions` and `context` are what a baseline would read."""
        if self.driver is None:
            return None
        return self._current(self.possible_agents.index(agent))

    # -- after the episode -------------------------------------------------------------------
    @property
    def game(self) -> Any:
        """The live game (read-only by convention)."""
        return None if self.driver is None else self.driver.game

    def replay_document(self) -> dict[str, Any]:
        """The finished episode's replay, as `cogleague play` writes it."""
        return finished_replay(self.driver, self.spec_.desc)

    def render(self) -> None:
        return None

    def close(self) -> None:
        if self.driver is not None:
            self.driver.close()
            self.driver = None
        self._episode = None

    # -- copies (`snapshot.py`) --------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        episode = self._episode if self.driver is not None else None
        return self._made.state(episode, rng=rng_state(self._rng))

    def __setstate__(self, state: dict[str, Any]) -> None:
        Construction.rebuild(self, state, self._replay)
        self._rng = rng_from(state["rng"])

    def _replay(self, episode: Episode) -> None:
        self._rng = rng_from(episode.rng)
        self.reset(seed=episode.seed)
        for actions in episode.steps:
            self.step(actions)
