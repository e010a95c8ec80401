"""An agent may edit what an environment hands it (`infos[agent]["view"]`): the views of one
step may share containers between seats (`docs/rl.md`: copy before editing, to keep another
seat's view intact), but never with the game, so the episode is unchanged."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from cogleague.envs import parallel_env
from cogleague.games import registry


def _vandalise(view: Any) -> None:
    if isinstance(view, dict):
        for value in list(view.values()):
            _vandalise(value)
        view.clear()
    elif isinstance(view, list):
        for value in view:
            _vandalise(value)
        view.clear()


def _episode(game: str, variant: str | None, vandal: bool, **config: Any) -> str:
    env = parallel_env(game, variant=variant, **config)
    _, infos = env.reset(seed=2)
    rng = np.random.default_rng(0)
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"])))
                   for a in env.agents}
        if vandal:
            for a in env.agents:
                _vandalise(infos[a].get("view"))
        _, _, _, _, infos = env.step(actions)
    return json.dumps(env.replay_document(), sort_keys=True)


@pytest.mark.parametrize("variant", registry.get("commons").variants)
def test_editing_a_commons_view_leaves_the_episode_unchanged(variant: str) -> None:
    assert _episode("commons", variant, True, rounds=3) == \
        _episode("commons", variant, False, rounds=3)


@pytest.mark.parametrize("game", ["dilemma", "ledger"])
def test_editing_a_view_leaves_the_episode_unchanged(game: str) -> None:
    assert _episode(game, None, True) == _episode(game, None, False)
