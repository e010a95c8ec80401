"""An environment copied mid-episode (`pickle`, `cloudpickle`, `copy.deepcopy`) continues
exactly as the original: the same observations, rewards, terminations and infos, step for
step, under the same random legal actions, for every registered game with an RL encoding.
Checkpointing, multiprocessing vector envs and search over copies rely on it."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import cloudpickle
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogleague.core.batch import batch_of
from cogleague.envs import (
    aec_env,
    parallel_env,
    parallel_vector_env,
    single_agent_env,
    vector_env,
)
from cogleague.games import registry
from envs.support import TEXTLESS

RL_GAMES = sorted(d.name for d in registry.available() if "rl" in d.extras)
BATCH_GAMES = sorted(n for n in RL_GAMES if batch_of(registry.get(n)) is not None)

COPIERS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
    "cloudpickle": lambda env: cloudpickle.loads(cloudpickle.dumps(env)),
    "deepcopy": copy.deepcopy,
}

SETTINGS = settings(max_examples=6, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def canon(value: Any) -> Any:
    """`value` as plain tuples that compare equal only when the two are byte-identical
    (array dtypes, shapes and bytes; float bits; dict order)."""
    if isinstance(value, np.ndarray):
        return ("nd", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.generic):
        return ("np", value.dtype.str, value.tobytes())
    if isinstance(value, float):
        return ("f", value.hex())
    if isinstance(value, dict):
        return ("d", tuple((canon(k), canon(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(canon(v) for v in value))
    if value is None or isinstance(value, bool | int | str):
        return (type(value).__name__, value)
    return ("o", type(value).__name__, canon(getattr(value, "__dict__", repr(value))))


def pick(rng: np.random.Generator, mask: Any) -> int:
    legal = np.flatnonzero(np.asarray(mask))
    return int(legal[rng.integers(len(legal))])


def short(game: str) -> tuple[str | None, dict[str, Any]]:
    """A short variant of `game` (the shared text-free line-ups' options), or its default."""
    variant, options, _ = TEXTLESS.get(game, (None, {}, []))
    return variant, dict(options)


# -- one harness per environment face: make, step with random legal actions, finished? -------

class Parallel:
    def __init__(self, game: str) -> None:
        variant, options = short(game)
        self.env = parallel_env(game, variant=variant, **options)

    def reset(self, seed: int | None) -> Any:
        return self.env.reset(seed=seed)

    def live(self) -> bool:
        return bool(self.env.agents)

    def step(self, rng: np.random.Generator) -> Any:
        env = self.env
        actions = {a: pick(rng, env.spec_.mask(env.game, env.current_turn(a)))
                   for a in env.agents}
        return env.step(actions)

    def end(self) -> Any:
        return self.env.replay_document()


class Aec(Parallel):
    def __init__(self, game: str) -> None:
        variant, options = short(game)
        self.env = aec_env(game, variant=variant, **options)

    def reset(self, seed: int | None) -> Any:
        self.env.reset(seed=seed)
        return self.env.last()

    def live(self) -> bool:
        return bool(self.env.agents)

    def step(self, rng: np.random.Generator) -> Any:
        env = self.env
        _, _, term, trunc, info = env.last()
        env.step(None if term or trunc else pick(rng, info["action_mask"]))
        if not env.agents:  # the episode is over: nothing is left to observe
            return env.rewards, env.terminations
        return env.agent_selection, env.last(), env.rewards

    def end(self) -> Any:
        return self.env.unwrapped.replay_document()


class Single(Parallel):
    def __init__(self, game: str) -> None:
        variant, options = short(game)
        self.env = single_agent_env(game, seat=1, variant=variant, **options)
        self.mask: Any = None
        self.done = False

    def reset(self, seed: int | None) -> Any:
        out = self.env.reset(seed=seed)
        self.mask, self.done = out[1]["action_mask"], False
        return out

    def live(self) -> bool:
        return not self.done

    def step(self, rng: np.random.Generator) -> Any:
        out = self.env.step(pick(rng, self.mask))
        self.mask, self.done = out[4]["action_mask"], out[2]
        return out


class Vector(Parallel):
    STEPS = 50  # vector envs reset themselves: a stretch that crosses an autoreset

    def __init__(self, game: str) -> None:
        variant, options = short(game)
        desc = registry.get(game)
        batch = batch_of(desc)
        assert batch is not None
        seats = desc.seats_of(variant or desc.default_variant, options)
        self.env = vector_env(game, num_envs=3, seat=0, variant=variant,
                              opponents=[batch.baselines[-1]] * (seats - 1), **options)
        self.mask: Any = None
        self.steps = 0

    def reset(self, seed: int | None) -> Any:
        out = self.env.reset(seed=seed)
        self.mask = out[1]["action_mask"]
        return out

    def live(self) -> bool:
        return self.steps < self.STEPS

    def step(self, rng: np.random.Generator) -> Any:
        out = self.env.step(np.array([pick(rng, m) for m in self.mask]))
        self.mask = out[4]["action_mask"]
        self.steps += 1
        return out

    def end(self) -> Any:
        return None


class ParallelVector(Vector):
    def __init__(self, game: str) -> None:
        variant, options = short(game)
        self.env = parallel_vector_env(game, num_envs=3, variant=variant, **options)
        self.masks: Any = None
        self.steps = 0

    def reset(self, seed: int | None) -> Any:
        out = self.env.reset(seed=seed)
        self.masks = {a: i["action_mask"] for a, i in out[1].items()}
        return out

    def step(self, rng: np.random.Generator) -> Any:
        actions = {a: np.array([pick(rng, m) for m in self.masks[a]])
                   for a in self.env.possible_agents}
        out = self.env.step(actions)
        self.masks = {a: i["action_mask"] for a, i in out[4].items()}
        self.steps += 1
        return out


FACES: dict[str, type[Parallel]] = {"parallel": Parallel, "aec": Aec, "single": Single}
VECTOR_FACES: dict[str, type[Parallel]] = {"vector": Vector, "parallel_vector": ParallelVector}


def length(face: type[Parallel], game: str, seed: int, choices: int) -> int:
    """Steps of the episode (or stretch) these seed and choices play."""
    probe = face(game)
    probe.reset(seed)
    rng = np.random.default_rng(choices)
    steps = 0
    while probe.live():
        probe.step(rng)
        steps += 1
    return steps


def copies_continue_alike(face: type[Parallel], game: str, copier: str, seed: int,
                          choices: int, where: float) -> None:
    """Copy after a fraction `where` of the episode (0: right after `reset`, 1: at its end)."""
    cut = round(where * length(face, game, seed, choices))
    original = face(game)
    original.reset(seed)
    rng = np.random.default_rng(choices)
    for _ in range(cut):
        original.step(rng)
    twin = copy.copy(original)
    twin.__dict__ = {k: copy.deepcopy(v) for k, v in original.__dict__.items() if k != "env"}
    twin.env = COPIERS[copier](original.env)
    twin_rng = copy.deepcopy(rng)
    steps = 0
    while original.live():
        assert twin.live()
        assert canon(original.step(rng)) == canon(twin.step(twin_rng)), f"step {cut + steps}"
        steps += 1
    assert not twin.live()
    assert canon(original.end()) == canon(twin.end())
    # the generators were copied too: the next episode without a seed draws the same one
    assert canon(original.reset(None)) == canon(twin.reset(None))


def test_every_registered_rl_game_is_checked() -> None:
    assert {"commons", "dilemma", "ledger"} <= set(RL_GAMES)
    assert {"commons", "dilemma", "ledger"} <= set(BATCH_GAMES)


@pytest.mark.parametrize("copier", list(COPIERS))
@pytest.mark.parametrize("face", list(FACES))
@pytest.mark.parametrize("game", RL_GAMES)
@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), choices=st.integers(0, 2**32 - 1),
       where=st.floats(0, 1))
def test_a_copy_continues_as_the_original(game: str, face: str, copier: str, seed: int,
                                          choices: int, where: float) -> None:
    copies_continue_alike(FACES[face], game, copier, seed, choices, where)


@pytest.mark.parametrize("copier", list(COPIERS))
@pytest.mark.parametrize("face", list(VECTOR_FACES))
@pytest.mark.parametrize("game", BATCH_GAMES)
@SETTINGS
@given(seed=st.integers(0, 2**20), choices=st.integers(0, 2**32 - 1), where=st.floats(0, 1))
def test_a_vector_copy_continues_as_the_original(game: str, face: str, copier: str, seed: int,
                                                 choices: int, where: float) -> None:
    copies_continue_alike(VECTOR_FACES[face], game, copier, seed, choices, where)


@pytest.mark.parametrize("copier", list(COPIERS))
def test_a_copy_replays_refused_actions_as_fallbacks(copier: str) -> None:
    """Actions the game refused (no integer, out of range) fell back in the original; the
    copy falls back the same way and ends with the same replay."""
    variant, options = short("dilemma")
    env = parallel_env("dilemma", variant=variant, **options)
    env.reset(seed=11)
    env.step({a: 1.5 if s == 0 else 10**6 for s, a in enumerate(env.agents)})
    twin = COPIERS[copier](env)
    while env.agents:
        actions = {a: 0 for a in env.agents}
        assert canon(env.step(actions)) == canon(twin.step(actions))
    original, copied = env.replay_document(), twin.replay_document()
    assert "fallback" in repr(original)
    assert canon(original) == canon(copied)


def test_a_copy_of_a_closed_or_fresh_env_has_no_episode() -> None:
    env = parallel_env("dilemma")
    assert not pickle.loads(pickle.dumps(env)).agents
    env.reset(seed=3)
    env.close()
    twin = copy.deepcopy(env)
    assert twin.driver is None
    with pytest.raises(RuntimeError, match="reset"):
        twin.step({})


CONTINUE = """
import pickle, sys
import numpy as np
env, rng = pickle.loads(sys.stdin.buffer.read())
out = []
while env.agents:
    actions = {a: int(rng.choice(np.flatnonzero(env.spec_.mask(env.game, env.current_turn(a)))))
               for a in env.agents}
    obs, rewards, *_ = env.step(actions)
    out.append((sorted((a, o.tobytes().hex()) for a, o in obs.items()), sorted(rewards.items())))
out.append(env.replay_document())
sys.stdout.write(repr(out))
"""


@pytest.mark.parametrize("game", RL_GAMES)
def test_a_pickle_continues_alike_in_another_process(game: str) -> None:
    """Multiprocessing and checkpoints unpickle in another interpreter (another hash seed):
    the episode replayed there continues as it would have here."""
    import os
    import subprocess
    import sys

    variant, options = short(game)
    env = parallel_env(game, variant=variant, views=False, **options)
    env.reset(seed=9)
    rng = np.random.default_rng(1)
    for _ in range(2):
        env.step({a: pick(rng, env.spec_.mask(env.game, env.current_turn(a)))
                  for a in env.agents})
    blob = pickle.dumps((env, rng))
    here = subprocess.run([sys.executable, "-c", CONTINUE], input=blob, capture_output=True,
                          env={**os.environ, "PYTHONHASHSEED": "1"}, timeout=300, check=True)
    there = subprocess.run([sys.executable, "-c", CONTINUE], input=blob, capture_output=True,
                           env={**os.environ, "PYTHONHASHSEED": "2"}, timeout=300, check=True)
    assert here.stdout.startswith(b"[([(")  # steps were played there
    assert here.stdout == there.stdout
