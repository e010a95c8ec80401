"""An ``illegal`` (or ``parse``) fallback carries the game's reason — which field, what was
legal — in the replay's decision, the results' faults and the one-line summary; the verifier
accepts it there and nowhere else."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import cogleague
from cogleague.client import Bot, TurnInfo
from cogleague.core.errors import ReplayError
from cogleague.core.verify import verify_replay
from cogleague.games import registry

WHY = "action must be cooperate or defect (got 'steal')"


class Thief(Bot):
    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        return {"action": "steal"}


def _fallbacks(replay: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for entry in replay["log"] for d in (entry.get("decisions") or {}).values()
            if d["source"] == "fallback"]


def test_an_illegal_fallback_says_why_in_replay_results_and_summary() -> None:
    result = cogleague.play("dilemma", [Thief(), "tit_for_tat", "tit_for_tat"], seed=1,
                            rounds_total=2)
    fallbacks = _fallbacks(result.replay)
    assert fallbacks and all(d["cause"] == "illegal" and d["reason"] == WHY
                             for d in fallbacks)
    assert result.faults["seats"][0]["reasons"] == {"illegal": WHY}
    assert result.fault_summary is not None and f"illegal ({WHY})" in result.fault_summary
    verify_replay(result.replay, registry.get("dilemma"))


def test_a_clean_episode_writes_no_reason_and_the_verifier_refuses_a_stray_one() -> None:
    result = cogleague.play("dilemma", ["tit_for_tat"] * 3, seed=1, rounds_total=2)
    replay = result.replay
    decisions = [d for e in replay["log"] for d in (e.get("decisions") or {}).values()]
    assert decisions and not any("reason" in d for d in decisions)
    forged = copy.deepcopy(replay)
    first = next(e for e in forged["log"] if e.get("decisions"))
    next(iter(first["decisions"].values()))["reason"] = "made up"
    with pytest.raises(ReplayError, match="reason is a string on a parse or illegal fallback"):
        verify_replay(forged, registry.get("dilemma"))
