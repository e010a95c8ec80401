"""A game from outside the package gets environments by declaring ``extras["rl"]`` alone."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

from cogleague.core.errors import IllegalAction
from cogleague.core.game import Action, Game, Turn
from cogleague.envs import aec_env, parallel_env, single_agent_env
from cogleague.games import registry
from envs.support import CHECKERS_DUMMY_OPTION
from server.toyinfo import GAME as TOY


class ToyEncoding:
    """Name a number 0..9; see the round and your own score."""

    name = "toyrl.rl.v1"

    def obs_size(self, game: Game) -> int:
        return 2

    def obs_fields(self, game: Game) -> list[str]:
        return ["round_fraction", "your_score"]

    def obs_bounds(self, game: Game) -> tuple[float, float]:
        return 0.0, 1.0

    def features(self, game: Game, turn: Turn) -> list[float]:
        g: Any = game
        return [g.played / g.rounds, g.scores[turn.seat] / (9 * g.rounds)]

    def num_actions(self, game: Game) -> int:
        return 10

    def mask(self, game: Game, turn: Turn) -> None:
        return None

    def decode(self, game: Game, turn: Turn, index: int) -> Action:
        if not 0 <= index <= 9:
            raise IllegalAction(f"n must be 0..9 (got {index})")
        return {"n": index}

    def encode(self, game: Game, turn: Turn, action: Mapping[str, Any]) -> int:
        return int(action["n"])

    def tally(self, game: Game) -> Sequence[float]:
        return game.scores  # type: ignore[attr-defined, no-any-return]

    def score(self, results: Mapping[str, Any], seat: int) -> float:
        return float(results["scores"][seat])

    def signature(self, game: Game) -> dict[str, Any]:
        return {"encoding": self.name, "observation_size": 3, "actions": 10}


PLUGIN = registry.register(dataclasses.replace(TOY, name="toyrl", extras={"rl": ToyEncoding()}))


@CHECKERS_DUMMY_OPTION
def test_a_plugin_game_passes_the_ecosystem_checks_with_no_env_code() -> None:
    parallel_api_test(parallel_env("toyrl", rounds=4), num_cycles=100)
    parallel_seed_test(lambda: parallel_env(PLUGIN, rounds=4), num_cycles=50)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation numpy array is all zeros")
        api_test(aec_env("toyrl", rounds=4), num_cycles=100)
        warnings.filterwarnings("ignore", message=".*render modes.*")
        check_env(single_agent_env("toyrl", rounds=4), skip_render_check=True)


def test_a_plugin_game_pays_rewards_that_sum_to_its_score() -> None:
    env = parallel_env("toyrl", rounds=3)
    env.reset(seed=1)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        _, rewards, _, _, infos = env.step({a: 7 for a in env.agents})
        for a, r in rewards.items():
            totals[a] += r
    assert totals == dict.fromkeys(env.possible_agents, 21.0)
    assert all(info["score"] == 21.0 for info in infos.values())


def test_a_plugin_game_env_copies_mid_episode() -> None:
    """A hand-registered game travels by its name: pickled or deep-copied mid-episode, its
    environment continues as the original."""
    import copy
    import pickle

    env = parallel_env(PLUGIN, rounds=4)
    env.reset(seed=2)
    env.step({a: 3 for a in env.agents})
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    while env.agents:
        actions = {a: i + 1 for i, a in enumerate(env.agents)}
        want = repr(env.step(actions))
        assert [repr(twin.step(actions)) for twin in twins] == [want, want]
    assert all(twin.replay_document() == env.replay_document() for twin in twins)
