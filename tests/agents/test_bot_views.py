"""An in-process bot's ``visible_state`` and ``legal_actions`` are its own, as over the
network (where every seat decodes its own JSON): a bot that edits them changes neither the
game nor another seat's view (the Commons Family shares parts of a round's views)."""

from __future__ import annotations

from typing import Any

import cogleague
from cogleague.client.bot import Bot, TurnInfo
from cogleague.envs import single_agent_env


def _vandalise(state: dict[str, Any]) -> None:
    """What careless code does to a dict it was given: empties every list and dict in it."""
    for value in state.values():
        if isinstance(value, list | dict):
            value.clear()


class Harvester(Bot):
    """Harvests 1 every round, editing nothing."""

    name = "harvester"  # both bots play under one policy name: their replays may be equal

    def on_turn(self, turn: TurnInfo) -> Any:
        return {"harvest": 1, "clean": 0}


class Vandal(Harvester):
    """The same moves, after editing its visible state as a bot computing 'the other cogs' by
    removing itself from ``aliases`` does."""

    def on_turn(self, turn: TurnInfo) -> Any:
        state = turn.visible_state
        state["aliases"].remove(state["alias"])
        _vandalise(state)
        return super().on_turn(turn)


def test_a_bot_that_edits_its_visible_state_changes_nothing_else() -> None:
    runs = [cogleague.play("commons", [bot, "random", "punisher", "random"], variant="cleanup",
                           seed=4, rounds=4, sanctions_enabled=True)
            for bot in (Harvester(), Vandal())]
    plain, vandalised = runs
    assert vandalised.fault_summary is None, vandalised.fault_summary
    assert vandalised.scores == plain.scores
    assert vandalised.replay_json == plain.replay_json


def test_an_sdk_bot_opponent_in_an_environment_edits_only_its_own_copy() -> None:
    def play(opponent: str) -> tuple[list[Any], Any]:
        env = single_agent_env("commons", variant="cleanup", rounds=4, sanctions_enabled=True,
                               seats=4, opponents=[f"agents.test_bot_views:{opponent}", "punisher",
                                          "random"])
        env.reset(seed=4)
        trace: list[Any] = []
        done = False
        while not done:
            obs, reward, done, _, _ = env.step(3)
            trace.append((obs.tolist(), reward))
        return trace, env.replay_document()["results"]["scores"]

    assert play("Vandal") == play("Harvester")
