"""Over random variants, options and seeds: every observation lies in its space, every mask
has a legal action, and a mask marks exactly the indices the encoding's `decode` accepts (so
an agent sampling from the mask never falls back, and nothing legal is hidden from it)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogleague.core.errors import IllegalAction
from cogleague.envs import parallel_env

COMMONS = ["cleanup", "harvest-open", "harvest-closed", "harvest-partnership",
           "allelopathic", "mushrooms"]


@st.composite
def tables(draw: Any) -> tuple[str, str, dict[str, Any]]:
    game = draw(st.sampled_from(["dilemma", "ledger", "commons"]))
    if game == "dilemma":
        return game, draw(st.sampled_from(["standard", "classic200"])), {
            "rounds_total": draw(st.integers(1, 3)), "seats": draw(st.integers(3, 8)),
            "promises": draw(st.booleans())}
    if game == "ledger":
        return game, "quickfire", {}
    options: dict[str, Any] = {"rounds": draw(st.integers(1, 3)),
                               "num_players": draw(st.integers(2, 12)),
                               "sanctions_enabled": draw(st.booleans()),
                               "ledger_public": draw(st.booleans()),
                               "max_sanctions_received": draw(st.integers(1, 11)),
                               "sanction_burn": draw(st.floats(0, 30))}
    if draw(st.booleans()):
        options["patch_count"] = draw(st.integers(1, 12))
    return game, draw(st.sampled_from(COMMONS)), options


@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(table=tables(), seed=st.integers(0, 2**31 - 1), picks=st.randoms(use_true_random=False))
def test_observations_fit_and_masks_are_the_decodable_actions(
        table: tuple[str, str, dict[str, Any]], seed: int, picks: Any) -> None:
    game, variant, options = table
    env = parallel_env(game, variant=variant, views=False, **options)
    enc, n = env.spec_.enc, env.spec_.num_actions
    obs, infos = env.reset(seed=seed)
    checked = 0
    while env.agents:
        actions = {}
        for agent in env.agents:
            assert env.observation_space(agent).contains(obs[agent]), (agent, obs[agent])
            mask = infos[agent]["action_mask"]
            assert mask.shape == (n,) and mask.dtype == np.int8 and mask.sum() >= 1
            turn = env.current_turn(agent)
            if turn is not None and checked < 2:
                for index in range(n):
                    try:
                        enc.decode(env.game, turn, index)
                        legal = True
                    except IllegalAction:
                        legal = False
                    assert legal == bool(mask[index]), (agent, index)
            actions[agent] = int(picks.choice(np.flatnonzero(mask)))
        checked += 1
        obs, _, _, _, infos = env.step(actions)
    for agent in env.possible_agents:
        assert env.observation_space(agent).contains(obs[agent])
