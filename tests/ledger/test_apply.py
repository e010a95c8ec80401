"""Apply (§8): transactional settlement; illegal calls leave the state deep-equal."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from cogleague.core.errors import GameStateError, SeatInputRejected
from cogleague.core.game import Decision
from cogleague.games.ledger.game import LedgerGame

from .support import lowest_move, make_game, open_first_round, scripted_decisions, seat_decisions


def snapshot(game: LedgerGame) -> dict[str, Any]:
    return {"table": copy.deepcopy(vars(game.table)),
            "pending": [t.turn_id for t in game.pending()]}


def _second_round(game: LedgerGame) -> list:  # type: ignore[type-arg]
    turns = open_first_round(game)
    game.apply(scripted_decisions(game, turns))
    game.open_round()
    return game.pending()


def test_a_round_settles_four_meetings_in_schedule_order() -> None:
    game = make_game(seed=7)
    turns = open_first_round(game)
    assert [t.turn_id for t in turns] == [f"r0s{s}" for s in range(8)]
    assert turns[0].legal_actions == {"move": {"min": 0, "max": 1}, "note": 120, "memo": 400}
    events = game.apply(seat_decisions(turns, lowest_move))
    meetings = [e.data for e in events if e.kind == "meeting"]
    assert [(m["pair"], m["a"], m["b"], m["subgame"]) for m in meetings] == [
        (0, 0, 1, "DILEMMA"), (1, 2, 4, "TRUST"), (2, 5, 7, "DILEMMA"), (3, 3, 6, "DILEMMA")]
    assert list(meetings[0]) == [
        "round", "pair", "a", "b", "subgame", "moveA", "moveB", "payA", "payB", "scriptedA",
        "scriptedB", "fallbackA", "fallbackB", "clampedA", "clampedB", "timeoutsA", "timeoutsB",
        "memoA", "memoB"]
    assert (meetings[1]["payA"], meetings[1]["payB"]) == (6, 2)  # sent 0
    assert game.rounds_played == 1 and game.between_rounds and game.pending() == []


@pytest.mark.parametrize("call", ["apply_closed", "apply_twice", "open_twice", "start_twice"])
def test_illegal_calls_raise_and_leave_the_state_deep_equal(call: str) -> None:
    game = make_game(seed=7)
    if call == "apply_closed" or call == "start_twice":
        game.start()
    else:
        turns = open_first_round(game)
        if call == "apply_twice":
            game.apply(scripted_decisions(game, turns))
    before = snapshot(game)
    with pytest.raises(GameStateError):
        if call in ("apply_closed", "apply_twice"):
            game.apply({})
        elif call == "open_twice":
            game.open_round()
        else:
            game.start()
    assert snapshot(game) == before


def test_opening_before_start_raises() -> None:
    game = make_game(seed=7)
    with pytest.raises(GameStateError):
        game.open_round()


@pytest.mark.parametrize("action", [
    {"move": 2}, {"move": -1}, {"move": True}, {"move": 0.0}, {"move": "0"}, {},
    {"move": 0, "vote": 1}, {"move": 0, "memo": 5}, {"move": 0, "memo": "a\nb"},
    {"move": 0, "memo": "x" * 401}, {"move": 0, "memo": "plan \udfff"},
])
def test_a_bad_decision_names_its_turn_and_changes_nothing(action: dict[str, Any]) -> None:
    game = make_game(seed=7)
    turns = open_first_round(game)  # seat 0 plays DILEMMA in round 0
    decisions = scripted_decisions(game, turns)
    decisions["r0s0"] = Decision(action, source="seat")
    before = snapshot(game)
    with pytest.raises(SeatInputRejected) as err:
        game.apply(decisions)
    assert err.value.turn_id == "r0s0"
    assert snapshot(game) == before


def test_unknown_turn_ids_raise_and_change_nothing() -> None:
    game = make_game(seed=7)
    turns = open_first_round(game)
    decisions = scripted_decisions(game, turns)
    decisions["r5s0"] = Decision({"move": 0}, source="seat")
    before = snapshot(game)
    with pytest.raises(GameStateError, match="unknown turn ids"):
        game.apply(decisions)
    assert snapshot(game) == before


def test_a_right_subject_posts_the_note() -> None:
    game = make_game(seed=7)
    turns = _second_round(game)
    target = game.aliases[game.table.slots[0][3].partner]
    decisions = scripted_decisions(game, turns)
    decisions["r1s3"] = Decision({"move": 0, "note": "liar", "subject": target}, source="seat")
    events = game.apply(decisions)
    assert [e.data for e in events if e.kind == "gossip"] == [
        {"round": 1, "author": 3, "subject": game.table.slots[0][3].partner, "text": "liar"}]


def test_a_missing_decision_gets_the_mirror_fallback() -> None:
    game = make_game(seed=7)
    turns = open_first_round(game)
    decisions = scripted_decisions(game, turns)
    del decisions["r0s5"]
    meeting = next(e.data for e in game.apply(decisions) if e.kind == "meeting"
                   and 5 in (e.data["a"], e.data["b"]))
    side = "A" if meeting["a"] == 5 else "B"
    assert (meeting[f"move{side}"], meeting[f"scripted{side}"], meeting[f"fallback{side}"]) == (
        0, True, True)  # mirror cooperates with a partner who never played
    assert game.results()["fallbacks"] == [0, 0, 0, 0, 0, 1, 0, 0]


def test_a_fallback_decision_drops_note_and_memo() -> None:
    game = make_game(seed=7)
    turns = _second_round(game)
    decisions = scripted_decisions(game, turns)
    decisions["r1s2"] = Decision({"move": 0, "note": "x", "memo": "y"}, source="fallback",
                                 cause="timeout", attempts=2, timeouts=2)
    events = game.apply(decisions)
    assert not [e for e in events if e.kind == "gossip"]
    assert game.table.memos[2] == ""
    assert game.results()["timeouts"][2] == 2 and game.results()["fallbacks"][2] == 1


def test_stop_is_idempotent_and_only_ends_by_deadline() -> None:
    game = make_game(seed=7)
    with pytest.raises(GameStateError):
        game.stop("deadline")
    turns = open_first_round(game)
    game.apply(scripted_decisions(game, turns))
    with pytest.raises(ValueError, match="reason must be deadline"):
        game.stop("bored")
    events = game.stop("deadline")
    assert [e.to_json() for e in events] == [{"kind": "end", "round": 1, "reason": "deadline"}]
    assert game.done and game.stop("deadline") == [] and game.stop("error") == []
    with pytest.raises(GameStateError):
        game.open_round()
    assert game.results()["reason"] == "deadline" and game.results()["rounds"] == 1
