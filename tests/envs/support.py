"""Shared helpers of the environment tests: play a line-up headless, replay its actions."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.envs import parallel_env
from cogleague.envs.encoding import encoding_of
from cogleague.games import registry
from cogleague.seats.factory import make_seats

# PettingZoo's checkers reset once with a made-up option, {"options": 1}, which the
# environments warn about (`ResetOptionWarning`) and do not apply: tests that run them mark it.
CHECKERS_DUMMY_OPTION = pytest.mark.filterwarnings(
    "ignore:options. 'options' is not a reset option:cogleague.envs.table.ResetOptionWarning")

# Per game: a variant, options and a line-up of baselines that write no free text (the numeric
# action has no notes, promises or chat), so their episodes can be replayed through an env.
TEXTLESS: dict[str, tuple[str | None, dict[str, Any], list[str]]] = {
    "dilemma": ("classic200", {"rounds_total": 12},
                ["tit_for_tat", "pavlov", "grim_trigger", "random"]),
    "ledger": ("quickfire", {}, ["mirror", "shark", "grim", "saint", "opportunist", "mirror",
                                 "grim", "opportunist"]),
    "commons": ("cleanup", {"rounds": 6, "chat_enabled": False},
                ["free_rider", "punisher", "random", "cleaner", "reciprocator", "fair_share"]),
}


def headless(game_name: str, seed: int) -> tuple[str, dict[str, Any]]:
    """(replay bytes, {turn_id: logged action}) of the line-up played by the runner."""
    variant, options, names = TEXTLESS[game_name]
    desc = registry.get(game_name)
    game = desc.make(variant, dict(options), seed, names, None)
    outcome = play_headless(game, make_seats(game, game.policy_names))
    actions = {tid: d.action for entry in outcome.log.entries if entry.decisions
               for tid, d in entry.decisions.items()}
    doc = jsonio.dumps(desc.replay_document(game, outcome.log), sort_keys=desc.replay_sort_keys)
    return doc, actions


def through_env(game_name: str, seed: int, actions: dict[str, Any]) -> tuple[str, list[float]]:
    """The same episode with every seat an env agent answering the logged actions' indices;
    (replay bytes, each seat's summed rewards)."""
    variant, options, names = TEXTLESS[game_name]
    desc = registry.get(game_name)
    enc = encoding_of(desc)
    env = parallel_env(game_name, variant=variant, policy_names=names, views=False, **options)
    env.reset(seed=seed)
    totals = [0.0] * len(env.possible_agents)
    while env.agents:
        chosen = {}
        for agent in env.agents:
            turn = env.current_turn(agent)
            chosen[agent] = 0 if turn is None else enc.encode(env.game, turn,
                                                              actions[turn.turn_id])
        _, rewards, _, _, _ = env.step(chosen)
        for s, agent in enumerate(env.possible_agents):
            totals[s] += rewards[agent]
    doc = jsonio.dumps(env.replay_document(), sort_keys=desc.replay_sort_keys)
    return doc, totals
