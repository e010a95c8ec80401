"""An illegal action still falls back as any failing seat does (docs/rl.md), but not silently:
the step's info of the agent whose action was replaced says so (``illegal_action``, why),
so a policy emitting out-of-range indices is seen while training, not only in the replay."""

from __future__ import annotations

from cogleague.envs import aec_env, parallel_env, single_agent_env


def test_parallel_env_names_the_agent_whose_action_fell_back() -> None:
    env = parallel_env("dilemma")
    _, infos = env.reset(seed=0)
    acting = [a for a in env.agents if infos[a]["acting"]]
    actions = {a: 0 for a in env.agents}
    actions[acting[0]] = 9
    _, _, _, _, infos = env.step(actions)
    assert "9" in infos[acting[0]]["illegal_action"]
    assert all("illegal_action" not in infos[a] for a in env.agents if a != acting[0])
    _, _, _, _, infos = env.step({a: 0 for a in env.agents})
    assert all("illegal_action" not in infos[a] for a in env.agents)


def test_single_agent_env_says_its_action_fell_back() -> None:
    env = single_agent_env("dilemma", pool=["tit_for_tat"])
    env.reset(seed=0)
    *_, info = env.step(2)
    assert "2" in info["illegal_action"]
    *_, info = env.step(1.0)
    assert "1.0" in info["illegal_action"]
    *_, info = env.step(1)
    assert "illegal_action" not in info


def test_aec_env_carries_it_through_parallel_to_aec() -> None:
    env = aec_env("dilemma")
    env.reset(seed=0)
    first = env.agent_selection
    env.step(5)
    seen = []
    for agent in env.agent_iter(max_iter=8):
        *_, info = env.last()
        seen.append((agent, "illegal_action" in info))
        env.step(None if env.terminations[agent] else 0)
    assert (first, True) in seen
