"""`single_agent_env`: one seat as a Gymnasium `Env`, every other seat a real seat object.

How most people train one agent against a pool: the opponents are baselines, SDK bots
(``MODULE:CLASS`` with a synchronous `on_turn`) or saved policies (``policy:PATH``), built by
the same seat factory as `cogleague play` and asked by the runner itself. One `step` answers
one turn of the agent's seat; the runner plays everyone else until the agent decides again or
the episode ends. The reward is the change of the agent's tally since its previous step, the
final info carries the episode ``score`` and the end ``reason``. A copy (`pickle`,
`copy.deepcopy`) rebuilds its opponents and replays the running episode (`snapshot.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym

from cogleague.core.config import check_int
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError, IllegalAction
from cogleague.core.game import Game, Turn
from cogleague.envs.driver import (
    ILLEGAL_ACTION,
    EpisodeDriver,
    SyncSeat,
    answer_with,
    finished_replay,
    taken,
)
from cogleague.envs.snapshot import Construction, Episode, rng_from, rng_state
from cogleague.envs.table import (
    SEED_SPACE,
    TableSpec,
    agent_name,
    check_names,
    check_opponent_count,
    check_reset_options,
    check_seat,
    default_opponents,
    default_refused,
    plain_int,
)
from cogleague.seats.factory import make_seat


class SingleAgentEnv(gym.Env):
    """`opponents`: the other seats' names in seat order (default: the variant's line-up
    without the agent's seat, repeated to fill a larger table); `pool`: instead, names to
    draw the other seats from at every reset (uniformly, with replacement, from the
    environment's own generator)."""

    metadata = {"render_modes": []}  # noqa: RUF012 - gymnasium's own declaration

    def __init__(self, game: str | GameDescriptor, opponents: Sequence[str] | None = None,
                 seat: int = 0, pool: Sequence[str] | None = None, variant: str | None = None,
                 name: str | None = None, views: bool = True, seats: int | None = None,
                 **config: Any) -> None:
        self._made = Construction.of(game, opponents=opponents, seat=seat, pool=pool,
                                     variant=variant, name=name, views=views, seats=seats,
                                     **config)
        self._episode: Episode | None = None
        probe = TableSpec(game, variant, None, False, seats, **config)
        n = probe.num_seats
        seat = check_seat(seat, n)
        if opponents is not None and pool is not None:
            raise ConfigError("opponents", "give opponents or pool, not both")
        if opponents is not None:
            opponents = check_names("opponents", opponents)
        if pool is not None:
            pool = check_names("pool", pool)
        if name is not None and (not isinstance(name, str) or not name):
            raise ConfigError("name", f"name must be a non-empty string, the agent's policy "
                                      f"name in the replay (got {name!r})")
        if pool is not None and not pool:
            raise ConfigError("pool", "pool must name at least one policy")
        defaulted = opponents is None and pool is None
        if defaulted:
            opponents = default_opponents(probe, seat)
        if opponents is not None:
            check_opponent_count(probe, opponents, "policies")
        self.seat = seat
        self.agent_policy = name or f"rl:{agent_name(seat)}"
        self.opponents = None if opponents is None else list(opponents)
        self.pool = None if pool is None else list(pool)
        self.views = views
        self._variant = variant
        self._config = config
        self._game_arg = game
        self.spec_ = self._table(self.opponents or [self.pool[0]] * (n - 1))  # type: ignore[index]
        try:
            self._check_others()
        except ConfigError as exc:
            if not defaulted or exc.field != "opponents":
                raise
            raise default_refused(exc, probe.variant) from None
        self.observation_space = self.spec_.observation_space
        self.action_space = self.spec_.action_space
        self.driver: EpisodeDriver | None = None
        self._sub = 0
        self._last = 0.0

    def _check_others(self) -> None:
        """Every opponent or pool name sits at this table now, not at the first `reset`; an
        error names the argument the caller gave (`make_seat` names `seats`)."""
        game = self.spec_.drawn_game(0)
        other = 1 if self.seat == 0 else 0
        for field, names in (("opponents", self.opponents), ("pool", self.pool)):
            for name in dict.fromkeys(names or ()):
                try:
                    SyncSeat(make_seat(game, other, name), game)
                except ConfigError as exc:
                    if exc.field not in ("seats", "opponents"):
                        raise
                    raise exc.renamed(field) from None

    def _table(self, others: Sequence[str]) -> TableSpec:
        names = list(others)
        names.insert(self.seat, self.agent_policy)
        return TableSpec(self._game_arg, self._variant, names, self.views, **self._config)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        check_reset_options(options)  # none applies: an unknown key warns, never silent
        seed = plain_int(seed)
        if seed is not None:  # ours first: Gymnasium's own check names no range
            check_int("seed", seed, 0, self.spec_.desc.seed_max)
        before = rng_state(self.np_random)
        saved = self._np_random, self._np_random_seed, self.spec_.policy_names
        super().reset(seed=seed)
        try:
            game, opponents = self._deal(seed)
        except ConfigError:  # a refused reset leaves the generator and the episode as they were
            self._np_random, self._np_random_seed, self.spec_.policy_names = saved
            raise
        if self.driver is not None:  # only now: a refused reset leaves the episode running
            self.driver.close()
        self.driver = EpisodeDriver(game, [self.seat], opponents)
        self._episode = Episode(before, seed)
        self.driver.start()
        self._sub = 0
        self._last = float(self.spec_.enc.tally(game)[self.seat])
        return self._observe()

    def _deal(self, seed: int | None) -> tuple[Game, dict[int, Any]]:
        """The next episode's game (the pool's draw for the other seats) and its opponents."""
        drawn = int(self.np_random.integers(SEED_SPACE)) if seed is None else 0
        if self.pool is not None:
            picks = self.np_random.integers(len(self.pool), size=self.spec_.num_seats - 1)
            names = [self.pool[int(i)] for i in picks]
            names.insert(self.seat, self.agent_policy)
            self.spec_.policy_names = names
        game = self.spec_.seeded_game(seed) if seed is not None else self.spec_.drawn_game(drawn)
        return game, {s: make_seat(game, s, game.policy_names[s])
                      for s in range(game.num_seats) if s != self.seat}

    def _turn(self) -> Turn | None:
        assert self.driver is not None
        turns = self.driver.turns[self.seat]
        return turns[self._sub] if self._sub < len(turns) else None

    def _observe(self) -> tuple[Any, dict[str, Any]]:
        assert self.driver is not None
        turn = self._turn()
        game = self.driver.game
        return self.spec_.observation(game, turn), self.spec_.info(game, turn)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        driver = self.driver
        if driver is None or driver.done:
            raise RuntimeError("step() needs a running episode: call reset() first")
        game, enc = driver.game, self.spec_.enc
        turn = self._turn()
        assert turn is not None and self._episode is not None
        index = taken(action)
        self._episode.steps.append(index)
        answer = driver.answers[turn.turn_id] = answer_with(
            lambda t, i: enc.decode(game, t, i), turn, index)
        self._sub += 1
        if self._sub >= len(driver.turns[self.seat]):
            driver.resume()
            self._sub = 0
        tally = float(enc.tally(game)[self.seat])
        reward, self._last = tally - self._last, tally
        obs, info = self._observe()
        if driver.done:
            assert driver.outcome is not None
            info = self.spec_.final_info(driver.outcome.results, self.seat)
        if isinstance(answer, IllegalAction):  # replaced by the fallback: said, not silent
            info = {**info, ILLEGAL_ACTION: str(answer)}
        return obs, reward, driver.done, False, info

    @property
    def game(self) -> Any:
        return None if self.driver is None else self.driver.game

    def replay_document(self) -> dict[str, Any]:
        return finished_replay(self.driver, self.spec_.desc)

    def render(self) -> None:
        """No render modes: with ``render_mode = None`` nothing is computed (Gymnasium's
        convention), as in the PettingZoo faces."""
        return None

    def close(self) -> None:
        if self.driver is not None:
            self.driver.close()
            self.driver = None
        self._episode = None

    # -- copies (`snapshot.py`) --------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        episode = self._episode if self.driver is not None else None
        rng = None if self._np_random is None else rng_state(self._np_random)
        return self._made.state(episode, rng=rng, rng_seed=self._np_random_seed)

    def __setstate__(self, state: dict[str, Any]) -> None:
        Construction.rebuild(self, state, self._replay)
        self._np_random = None if state["rng"] is None else rng_from(state["rng"])
        self._np_random_seed = state["rng_seed"]

    def _replay(self, episode: Episode) -> None:
        self._np_random = rng_from(episode.rng)
        self.reset(seed=episode.seed)
        for action in episode.steps:
            self.step(action)
