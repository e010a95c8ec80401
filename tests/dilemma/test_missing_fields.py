"""A move without its required field is refused saying the field is missing and what it
accepts — not ``(got None)``, which reads as if the seat had sent null. Dilemma's `action`
and Ledger's `move` are worded by the same `core/brief.refused_field`."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core.errors import IllegalAction
from cogleague.games.dilemma.actions import normalize
from cogleague.games.ledger.replies import parse_reply
from cogleague.games.ledger.schedule import Slot
from cogleague.games.ledger.subgames import DILEMMA


@pytest.mark.parametrize("move", [{}, {"message": "I will cooperate"}, '{"message": "hi"}'])
def test_a_dilemma_move_without_action_says_action_is_missing(move: Any) -> None:
    with pytest.raises(IllegalAction) as refused:
        normalize(move, True)
    assert str(refused.value) == "action is missing: it must be cooperate or defect"


def test_a_dilemma_action_sent_as_null_is_still_named_as_sent() -> None:
    with pytest.raises(IllegalAction, match=r"^action must be cooperate or defect \(got None\)$"):
        normalize({"action": None}, True)


def test_a_ledger_reply_without_move_says_move_is_missing() -> None:
    slot = Slot(pair=0, partner=1, subgame=DILEMMA, side=0, role="a", lo=0, hi=1)
    with pytest.raises(IllegalAction) as refused:
        parse_reply({"note": "hello"}, slot, None)
    assert str(refused.value) == "move is missing: it must be an integer 0..1"
