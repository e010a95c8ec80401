"""Gossip is cheap talk (the Ledger seed): a note never changes a payoff or a score. An invalid
note is dropped, visibly, and the move of the reply that carried it stands."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio
from cogleague.core.clock import FakeClock
from cogleague.core.episode import EpisodeOutcome, run_episode
from cogleague.core.game import Decision, Turn
from cogleague.games.ledger.board import NO_TARGET_YET
from cogleague.games.ledger.game import LedgerGame

from .support import (
    SEED7_ALIASES,
    ScriptSeat,
    make_game,
    open_first_round,
    scripted_decisions,
    seats_with,
)

ROUNDS = 4
SEAT = 2


def _greedy(extra: dict[str, Any] | None) -> ScriptSeat:
    """Plays the top of its range (so never what mirror, the fallback, would play in
    DILEMMA against a cooperator) and adds `extra` to every reply."""

    def reply(turn: Turn, hint: str | None) -> dict[str, Any]:
        return {"move": turn.legal_actions["move"]["max"], **(extra or {})}

    return ScriptSeat(reply, name="greedy")


def _play(extra: dict[str, Any] | None) -> tuple[LedgerGame, EpisodeOutcome]:
    game = make_game(seed=7, rounds=ROUNDS)
    seats = seats_with(game, {SEAT: _greedy(extra)})
    outcome = asyncio.run(run_episode(game, seats, clock=FakeClock()))
    return game, outcome


def _play_record(outcome: EpisodeOutcome) -> list[tuple[Any, ...]]:
    return [(e.data["moveA"], e.data["moveB"], e.data["payA"], e.data["payB"])
            for e in outcome.log.events if e.kind == "meeting"]


_PLAIN = _play(None)


def _same_play_as_without_a_note(outcome: EpisodeOutcome) -> None:
    _game, plain = _PLAIN
    assert outcome.results["scores"] == plain.results["scores"]
    assert _play_record(outcome) == _play_record(plain)
    assert outcome.results["fallbacks"] == [0] * 8


def test_a_wrong_subject_drops_the_note_and_the_move_stands() -> None:
    game, outcome = _play({"note": "they cheat", "subject": "Nobody", "memo": "kept"})
    _same_play_as_without_a_note(outcome)
    assert not any(e.kind == "gossip" for e in outcome.log.events)
    assert game.table.memos[SEAT] == "kept"  # only the note is dropped
    # visible: one wrong_shape fault per round (round 1's note has no target at all), naming
    # the field and what is allowed (the seat is told the same words in a `wrong_shape` error
    # frame); the first reason is kept
    assert outcome.faults[SEAT] == {"wrong_shape": ROUNDS}
    assert outcome.reasons[SEAT]["wrong_shape"] == NO_TARGET_YET
    turn = _second_round(make_game(seed=7))[SEAT]
    why = game.parse(turn, {"move": 0, "note": "they cheat", "subject": "Nobody"}).reason
    round_two_target = game.aliases[game.table.slots[0][SEAT].partner]
    assert why is not None and why.startswith("note dropped: subject must be")
    assert repr(round_two_target) in why and "'Nobody'" in why and "move stands" in why


def test_a_right_subject_posts_the_note() -> None:
    game = make_game(seed=7, rounds=ROUNDS)

    def reply(turn: Turn, hint: str | None) -> dict[str, Any]:
        out = {"move": turn.legal_actions["move"]["max"]}
        if turn.view["noteTarget"] is not None:  # round 1 has none: a note there is dropped
            out.update(note="fair", subject=turn.view["noteTarget"])
        return out

    outcome = asyncio.run(run_episode(game, seats_with(game, {SEAT: ScriptSeat(reply)}),
                                      clock=FakeClock()))
    _same_play_as_without_a_note(outcome)
    assert [e.data["round"] for e in outcome.log.events if e.kind == "gossip"] == [1, 2, 3]
    assert outcome.faults[SEAT] == {}


_NOTE_VALUES = st.one_of(st.none(), st.integers(), st.text(max_size=200),
                         st.lists(st.text(max_size=3), max_size=2))
_SUBJECTS = st.one_of(st.none(), st.integers(), st.text(max_size=60),
                      st.sampled_from([*SEED7_ALIASES, "Tinker", "Gasket ", "bolt"]))


@settings(max_examples=60, deadline=None)
@given(note=_NOTE_VALUES, subject=_SUBJECTS, with_subject=st.booleans())
def test_no_note_changes_a_payoff_or_a_score(note: Any, subject: Any,
                                             with_subject: bool) -> None:
    extra: dict[str, Any] = {"note": note}
    if with_subject:
        extra["subject"] = subject
    _game, outcome = _play(extra)
    _same_play_as_without_a_note(outcome)


def _second_round(game: LedgerGame) -> list[Turn]:
    turns = open_first_round(game)
    game.apply(scripted_decisions(game, turns))
    game.open_round()
    return game.pending()


def test_apply_drops_an_unacceptable_note_and_keeps_the_move() -> None:
    """An action handed to apply directly (not read by `parse`): a note apply cannot accept
    (wrong subject, no subject in round 1, text that is not cleaned) is left off the board;
    the move and the memo are settled as given."""
    for bad in ("wrong subject", {"note": "a\nb"}, {"note": 5}, {"note": "x \ud800"}):
        game = make_game(seed=7)
        decisions = scripted_decisions(game, _second_round(game))
        if bad == "wrong subject":
            target = game.aliases[game.table.slots[0][3].partner]
            bad = {"note": "liar", "subject": next(a for a in game.aliases if a != target)}
        assert isinstance(bad, dict)
        decisions["r1s3"] = Decision({"move": 1, **bad, "memo": "m"}, source="seat")
        events = game.apply(decisions)
        meeting = next(e.data for e in events if e.kind == "meeting"
                       and 3 in (e.data["a"], e.data["b"]))
        assert meeting["moveA" if meeting["a"] == 3 else "moveB"] == 1
        assert meeting["fallbackA"] is False and meeting["fallbackB"] is False
        assert not any(e.kind == "gossip" and e.data["author"] == 3 for e in events)
        assert game.table.memos[3] == "m"
    first = make_game(seed=7)
    decisions = scripted_decisions(first, open_first_round(first))
    decisions["r0s4"] = Decision({"move": 1, "note": "hi"}, source="seat")
    events = first.apply(decisions)
    assert not any(e.kind == "gossip" for e in events)
    assert first.results()["fallbacks"] == [0] * 8


def test_a_lone_surrogate_in_a_note_or_memo_is_read_as_a_replacement_character() -> None:
    """A model's or an in-process bot's JSON escape \\ud800 decodes to a lone surrogate, which
    UTF-8 cannot encode: cleaning reads it as U+FFFD (`core.text`), so the note goes on the
    board, the move stands and the replay is written."""
    game, outcome = _play({"note": "fair \ud800 play", "memo": "plan \udfff"})
    _same_play_as_without_a_note(outcome)
    assert [e.data["text"] for e in outcome.log.events if e.kind == "gossip"] == [
        "fair \ufffd play"] * (ROUNDS - 1)
    assert game.table.memos[SEAT] == "plan \ufffd"
    replay = jsonio.dumpb(game.replay_document(outcome.log, frames=True))
    assert "fair \ufffd play".encode() in replay
