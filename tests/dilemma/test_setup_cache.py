"""What does not depend on the seed is made once per table size and shared: the round shapes
(`steps.round_shapes`) and the replay's templates on them (`texts.StepTexts`), bounded. The
bytes stay the generic encoding's (`tests/core/test_replay_text.py` holds them for any line-up)."""

from __future__ import annotations

import pytest

import cogleague
from cogleague.core import jsonio
from cogleague.games.dilemma import texts
from cogleague.games.dilemma.baselines._base import COOPERATE_ACTION
from cogleague.games.dilemma.config import make_config
from cogleague.games.dilemma.game import DilemmaGame
from cogleague.games.dilemma.steps import round_shapes

LINEUP = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger"]


def test_tables_of_one_size_share_their_round_shapes_but_not_their_contexts() -> None:
    one = DilemmaGame(make_config(None, {}, 1), LINEUP)
    two = DilemmaGame(make_config(None, {}, 2), LINEUP)
    for parity in (0, 1):
        for step in (0, 1):
            a, b = one._plans[parity][step], two._plans[parity][step]
            assert a.shape is b.shape is round_shapes(4)[parity][step]
            assert a.contexts[0].table is one.state and b.contexts[0].table is two.state
    assert round_shapes(4) is not round_shapes(3)


def test_a_shape_matches_the_turns_a_table_asks() -> None:
    game = DilemmaGame(make_config(None, {"seats": 3}, 5), ["pavlov"] * 3)
    game.start()
    game.open_round()  # round 1: the lower seat of each pairing moves first
    step = game.step()
    assert step.turn_ids() == ["r1:0-1:0", "r1:0-2:0", "r1:1-2:1"]
    assert list(step.seats) == [0, 0, 1]


def test_templates_are_reused_across_episodes_and_bounded(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    first = cogleague.play("dilemma", LINEUP, seed=3, rounds_total=6, promises=False)
    assert first.replay_json == jsonio.dumpb(first.replay)
    shapes = round_shapes(4)
    made = {id(s.texts) for pair in shapes for s in pair}
    again = cogleague.play("dilemma", LINEUP, seed=4, rounds_total=6, promises=False)
    assert again.replay_json == jsonio.dumpb(again.replay)
    assert {id(s.texts) for pair in shapes for s in pair} == made  # the same templates
    monkeypatch.setattr(texts, "PATTERNS", 0)  # nothing more is kept: rendered each time
    fresh = cogleague.play("dilemma", ["random"] * 4, seed=9, rounds_total=8, promises=False)
    kept = sum(len(s.texts._steps) for pair in round_shapes(4) for s in pair if s.texts)
    assert fresh.replay_json == jsonio.dumpb(fresh.replay)
    assert sum(len(s.texts._steps) for pair in round_shapes(4) for s in pair
               if s.texts) == kept


def test_a_modified_shared_reply_is_encoded_as_it_is_now() -> None:
    result = cogleague.play("dilemma", LINEUP, seed=1, rounds_total=3, promises=False)
    COOPERATE_ACTION["action"] = "defect"
    try:
        assert result.replay_json == jsonio.dumpb(result.replay)
    finally:
        COOPERATE_ACTION["action"] = "cooperate"


def test_replay_bytes_are_the_documents_with_totals_past_the_number_table() -> None:
    pay = {"reward": 90, "punishment": 40, "temptation": 100, "sucker": 0}
    lineup = ["tit_for_tat", "always_defect", "pavlov", "random", "grim_trigger"]
    result = cogleague.play("dilemma", lineup, seed=2, rounds_total=60, promises=False,
                            payoffs=pay)
    assert max(result.scores) > 4096  # the running totals leave `jsonio.INT_BYTES`
    assert result.replay_json == jsonio.dumpb(result.replay)
