"""The hot paths' shortcuts read exactly what the rules say: the lazily rendered meeting event,
the payoff and conduct tables, and the fast check of a baseline's bare move."""

from __future__ import annotations

import copy
import pickle

import pytest

from cogleague.core.errors import SeatInputRejected
from cogleague.core.game import Decision
from cogleague.games.ledger.conduct import KIND_BY_MOVE, is_kind
from cogleague.games.ledger.events import MEETING_KEYS, MeetingEvent
from cogleague.games.ledger.subgames import LEGAL, PAYOFF_TABLE, payoff
from cogleague.games.ledger.table import Table

from .support import make_game, open_first_round, play


def _meetings() -> list[MeetingEvent]:
    outcome = play(make_game(seed=11))
    events = [e for e in outcome.log.events if e.kind == "meeting"]
    assert len(events) == 56 and all(isinstance(e, MeetingEvent) for e in events)
    return events  # type: ignore[return-value]


def test_a_meeting_event_writes_its_keys_in_the_listed_order() -> None:
    for event in _meetings():
        doc = event.to_json()
        assert list(doc) == ["kind", *MEETING_KEYS]
        assert {k: doc[k] for k in MEETING_KEYS} == event.data
        assert event.to_json() == {"kind": "meeting", **event.data}  # rendered after a read


def test_a_meeting_event_folds_and_filters_like_any_event() -> None:
    game = make_game(seed=11)
    outcome = play(game)
    table = Table(list(game.aliases), list(game.policy_names), game.schedule)
    for event in outcome.log.events:
        table.fold(event.kind, event.data)
    assert table.results() == outcome.results
    meeting = next(e for e in outcome.log.events if e.kind == "meeting")
    a, b = meeting.data["a"], meeting.data["b"]
    assert "memoA" in meeting.view_for(a) and "memoA" not in meeting.view_for(b)  # type: ignore[operator]
    assert "memoB" not in meeting.view_for(None)  # type: ignore[operator]


def test_a_meeting_event_survives_pickle_and_copy() -> None:
    event = _meetings()[5]
    for clone in (pickle.loads(pickle.dumps(event)), copy.deepcopy(event)):
        assert clone == event and clone.to_json() == event.to_json()
        assert clone.restricted == event.restricted


def test_the_payoff_table_is_payoff_for_every_legal_pair() -> None:
    for subgame, ((lo_a, hi_a), (lo_b, hi_b)) in LEGAL.items():
        for move_a in range(lo_a, hi_a + 1):
            for move_b in range(lo_b, hi_b + 1):
                assert PAYOFF_TABLE[subgame][move_a][move_b] == payoff(subgame, move_a, move_b)


def test_the_conduct_table_is_is_kind_and_leaves_other_moves_to_it() -> None:
    for subgame, sides in LEGAL.items():
        for side, (lo, hi) in enumerate(sides):
            assert KIND_BY_MOVE[subgame][side] == {m: is_kind(subgame, side, m)
                                                  for m in range(lo, hi + 1)}
            assert hi + 1 not in KIND_BY_MOVE[subgame][side]


@pytest.mark.parametrize("decision", [
    Decision({"move": 99}, "scripted"),  # out of range
    Decision({"move": True}, "scripted"),  # a bool is not a move
    Decision({"move": 0}, "scripted", timeouts=False),  # type: ignore[arg-type]  # not a count
    Decision({"move": 0}, "scripted", timeouts=-1),
    Decision({"move": 0, "colour": "red"}, "scripted"),  # an unknown key
])
def test_a_scripted_decision_off_the_fast_path_is_refused_as_before(decision: Decision) -> None:
    game = make_game()
    turns = open_first_round(game)
    decisions = {t.turn_id: Decision({"move": t.legal_actions["move"]["min"]}, "scripted")
                 for t in turns}
    decisions[turns[3].turn_id] = decision
    with pytest.raises(SeatInputRejected) as refused:
        game.apply(decisions)
    assert refused.value.turn_id == turns[3].turn_id
    assert game.pending() == turns  # nothing changed
