"""Determinism (rules §3): the seeded deal, byte-identical replays, recomputable scores,
welfare, the replay verifier and `simulate`."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from cogleague.core import jsonio
from cogleague.core.errors import ReplayError
from cogleague.core.verify import verify_replay
from cogleague.games.commons.config import VARIANTS, make_config
from cogleague.games.commons.descriptor import GAME
from cogleague.games.commons.modules import MODULES
from cogleague.games.commons.replay import FORMAT
from cogleague.games.commons.setup import deal
from cogleague.games.commons.simulate import simulate

from .support import play


def verify(doc: Any) -> Any:
    """The one verifier (core/verify.py) with this game's descriptor."""
    return verify_replay(doc, GAME)

MIXED = ["steward", "steward", "cleaner", "punisher", "free_rider", "random"]
PLAYABLE = [v for v in VARIANTS if v != "certification"]


def test_the_rules_test_vector() -> None:
    setup = deal(20260824, 6, 6)
    assert [a[-1] for a in setup.aliases] == ["E", "F", "B", "A", "C", "D"]
    assert setup.favorites == ["green", "green", "blue", "red", "blue", "red"]
    assert setup.owner == [2, 4, 0, 1, 5, 3]
    assert setup.pairs == [[2, 4], [0, 1], [5, 3]]


def test_the_engine_deals_the_same_way_whatever_the_module() -> None:
    for module in MODULES:
        game, _ = play(None, ["steward"] * 6, {"module": module, "rounds": 1})
        assert game.aliases == deal(20260824, 6, 6).aliases


@pytest.mark.parametrize("variant", PLAYABLE)
def test_same_seed_gives_a_byte_identical_replay(variant: str) -> None:
    docs = []
    for _ in range(2):
        game, outcome = play(variant, MIXED)
        docs.append(jsonio.dumps(game.replay_document(outcome.log), sort_keys=True))
    assert docs[0] == docs[1]
    other, outcome = play(variant, MIXED, seed=7)
    assert jsonio.dumps(other.replay_document(outcome.log), sort_keys=True) != docs[0]


@pytest.mark.parametrize("variant", PLAYABLE)
def test_scores_are_recomputable_from_the_round_records(variant: str) -> None:
    game, outcome = play(variant, MIXED)
    doc = game.replay_document(outcome.log)
    cfg = game.config
    scores = [0.0] * 6
    for rec in doc["rounds"]:
        scores = [x + g for x, g in zip(scores, rec["gains"], strict=True)]
        sanctions = [e for e in doc["events"] if e["kind"] == "sanction" and e["r"] == rec["r"]]
        for e in sanctions:
            scores[e["slot"]] -= cfg.sanction_cost
            scores[e["target_slot"]] -= cfg.sanction_burn
        assert scores == rec["scores"]
    assert scores == game.scores
    residual = MODULES[cfg.module].residual(game.state)
    assert game.welfare() == sum(scores) + residual
    assert doc["results"]["welfare"] == round(sum(scores) + residual, 3)
    assert doc["rounds"][-1]["series"]["total"] == residual


def test_the_replay_document_has_the_rules_shape() -> None:
    game, outcome = play("harvest-closed", MIXED)
    doc = game.replay_document(outcome.log)
    assert doc["format"] == FORMAT and doc["protocol"] == "commons-family.replay.v1"
    assert doc["generated_at"] is None and doc["seed"] == 20260826
    assert doc["names"] == game.aliases and doc["policyNames"] == MIXED
    owner = deal(20260826, 6, 6).owner
    assert [s["patches"] for s in doc["seats"]] == [[owner.index(s)] for s in range(6)]
    assert doc["seats"][4]["kind"] == "scripted" and doc["seats"][4]["scripted"] is True
    rec = doc["rounds"][0]
    assert set(rec) == {"r", "state_before", "decisions", "gains", "extracted", "scores",
                        "state_after", "total_extracted", "public_effort",
                        "seat_public_effort", "collapsed", "series", "seat_frozen",
                        "messages"}
    assert set(rec["decisions"][0]) == {"slot", "harvest", "clean", "eat", "eat_color",
                                        "plant", "plant_color", "patch", "sanction", "message",
                                        "src"}
    assert rec["decisions"][5]["src"] == "scripted:random"
    kinds = {e["kind"] for e in doc["events"]}
    assert {"episode_start", "round_open", "decision", "resolve", "round_end",
            "episode_end"} <= kinds
    assert all("kind" in e and "r" in e for e in doc["events"])
    assert set(doc["results"]) == {
        "reason", "rounds", "scores", "total_extracted", "public_effort", "sanctions_given",
        "sanctions_received", "welfare", "residual_value", "collapse_round", "dead_patches",
        "fallbacks", "llm_requests", "names", "aliases", "disconnected", "error"}


@pytest.mark.parametrize("variant", PLAYABLE)
def test_a_replay_verifies_and_a_tampered_one_does_not(variant: str) -> None:
    game, outcome = play(variant, MIXED)
    doc = jsonio.dumps(game.replay_document(outcome.log), sort_keys=True)
    import json

    verify(json.loads(doc))
    tampered = json.loads(doc)
    tampered["rounds"][3]["decisions"][2]["harvest" if "harvest" in variant or
                                          variant == "cleanup" else "eat"] = 3
    with pytest.raises(ReplayError):
        verify(tampered)
    broken = copy.deepcopy(json.loads(doc))
    broken["results"]["scores"][0] += 1
    with pytest.raises(ReplayError, match="scores"):
        verify(broken)


def test_simulate_replays_a_plan_through_the_engine() -> None:
    config = make_config("cleanup")
    plan = [[{"harvest": 1, "clean": 1}] * 6 for _ in range(config.rounds)]
    result = simulate(config, plan)
    game, _ = play("cleanup", ["cleaner"] * 6)
    assert result.welfare == game.welfare()  # six cleaners play exactly h:1 c:1 here
    assert result.scores == game.scores
    assert result.welfare == sum(result.scores) + result.residual
    assert [d["src"] for d in result.game.records[0]["decisions"]] == ["scripted:planner"] * 6
    with pytest.raises(ValueError, match="plan must hold"):
        simulate(config, plan[:-1])
