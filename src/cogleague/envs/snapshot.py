"""Copying an environment mid-episode (`pickle`, `cloudpickle`, `copy.deepcopy`).

A running episode is a suspended coroutine (`driver.py`) and a kernel holds modules: neither
pickles. Episodes are deterministic — the same construction, seed, seats and actions give the
same episode — so an environment's state is its construction arguments, its generator's state
before the episode's reset, that reset's seed and the actions taken since; unpickling builds a
fresh environment and replays them. A copy then continues byte for byte as the original.

An environment records its `Episode` as it plays and implements ``__getstate__`` /
``__setstate__`` with `Construction.state` and `Construction.rebuild`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cogleague.core.descriptor import GameDescriptor
from cogleague.games import registry

RngState = dict[str, Any]


def rng_state(rng: np.random.Generator) -> RngState:
    """A snapshot of `rng` (its bit generator's state, a plain dict)."""
    return dict(rng.bit_generator.state)


def rng_from(state: RngState) -> np.random.Generator:
    """A generator at the snapshot `state` (any bit generator numpy names)."""
    bits = getattr(np.random, state["bit_generator"])()
    bits.state = state
    return np.random.Generator(bits)


def game_ref(game: str | GameDescriptor) -> str | GameDescriptor:
    """The game as a copy names it: a registered descriptor by its name (its options class is
    made at run time and does not pickle), any other as given."""
    if isinstance(game, GameDescriptor) and registry.find(game.name) is game:
        return game.name
    return game


@dataclass
class Episode:
    """The running episode as it can be replayed: the generator before its reset, the reset's
    seed argument and each step's actions, as the environment took them."""

    rng: RngState
    seed: int | None
    steps: list[Any] = field(default_factory=list)


@dataclass
class Construction:
    """An environment's constructor arguments (the game by reference), kept to rebuild it."""

    game: str | GameDescriptor
    kwargs: dict[str, Any]

    @classmethod
    def of(cls, game: str | GameDescriptor, **kwargs: Any) -> Construction:
        return cls(game_ref(game), dict(kwargs))

    def state(self, episode: Episode | None, **extra: Any) -> dict[str, Any]:
        """What ``__getstate__`` returns: the arguments, the episode and any `extra`."""
        return {"game": self.game, "kwargs": self.kwargs, "episode": episode, **extra}

    @staticmethod
    def rebuild(env: Any, state: dict[str, Any],
                replay: Callable[[Episode], None]) -> None:
        """What ``__setstate__`` does: run ``__init__`` with the saved arguments, then
        `replay` the saved episode (when one was running)."""
        env.__init__(state["game"], **state["kwargs"])
        if state["episode"] is not None:
            replay(state["episode"])
