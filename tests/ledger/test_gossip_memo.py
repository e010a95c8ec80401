"""Gossip and memos (§7): targets, order, windows, cleaning, privacy."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core.clock import FakeClock
from cogleague.core.episode import run_episode
from cogleague.core.game import Turn
from cogleague.games.ledger.board import clean_memo_text, clean_note_text

from .support import ScriptSeat, make_game, seats_with


def _talker(note: str | None = None, memo: str | None = None) -> ScriptSeat:
    """Plays the lowest legal move and writes a note (naming its round) and a memo each round."""

    def reply(turn: Turn, hint: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"move": turn.legal_actions["move"]["min"]}
        out["note"] = note if note is not None else f"s{turn.seat} r{turn.round}"
        if memo is not None:
            out["memo"] = memo
        return out

    return ScriptSeat(reply, name="talker")


async def _episode(rounds: int = 14, seats: dict[int, ScriptSeat] | None = None,
                   seed: int = 7) -> Any:
    game = make_game(seed=seed, rounds=rounds)
    chosen = seats if seats is not None else {s: _talker() for s in range(8)}
    outcome = await run_episode(game, seats_with(game, chosen), clock=FakeClock())
    return game, outcome


async def test_notes_review_the_previous_partner_in_seat_order_from_round_two() -> None:
    game, outcome = await _episode()
    gossip = [e.data for e in outcome.log.events if e.kind == "gossip"]
    assert len(gossip) == 8 * 13  # round 1 has no target: its notes are discarded
    for r in range(1, 14):
        this_round = [g for g in gossip if g["round"] == r]
        assert [g["author"] for g in this_round] == list(range(8))
        for g in this_round:
            assert g["subject"] == game.table.slots[r - 1][g["author"]].partner
            assert g["text"] == f"s{g['author']} r{r}"
    assert [n.to_json() for n in game.table.board] == gossip


async def test_the_observation_names_the_target_and_windows_the_board() -> None:
    seen: list[dict[str, Any]] = []

    def reply(turn: Turn, hint: str | None) -> dict[str, Any]:
        seen.append(turn.view)
        return {"move": turn.view["meeting"]["legal"]["min"], "note": "watching"}

    game, _outcome = await _episode(seats={s: (ScriptSeat(reply) if s == 0 else _talker())
                                          for s in range(8)})
    assert seen[0]["noteTarget"] is None and seen[0]["board"] == []
    for view in seen[1:]:
        r = view["round"]
        partner = game.table.slots[r - 1][0].partner
        assert view["noteTarget"] == game.aliases[partner]
        assert len(view["board"]) == min(12, 8 * (r - 1))
    # the last view (round 14) saw the 12 notes before round 14's own eight
    assert [b["text"] for b in seen[-1]["board"]] == [n.text for n in game.table.board[-20:-8]]
    frame = game.spectator_state()
    assert len(frame["board"]) == 5
    assert frame["board"] == [n.to_json() for n in game.table.board[-5:]]


@pytest.mark.parametrize("char", ["😀", "漢", "é"])
def test_long_notes_keep_119_code_points_and_an_ellipsis(char: str) -> None:
    cleaned = clean_note_text(char * 500)
    assert cleaned == char * 119 + "…" and len(cleaned) == 120
    assert cleaned.encode("utf-8").decode("utf-8") == cleaned
    assert clean_note_text(char * 120) == char * 120
    memo = clean_memo_text(char * 500)
    assert memo == char * 399 + "…" and clean_memo_text(char * 400) == char * 400


def test_cleaning_controls_and_blanks() -> None:
    assert clean_note_text("good\npartner\r\n") == "good partner"
    assert clean_note_text("a\x00b\x07c") == "abc"
    assert clean_note_text("\tx\ty ") == "x y"
    assert clean_note_text("   \n\t ") == "" and clean_note_text("\x00") == ""
    assert clean_note_text(None) == "" and clean_note_text(12) == ""


async def test_blank_notes_are_no_notes() -> None:
    _game, outcome = await _episode(rounds=4, seats={s: _talker(note=" \n ") for s in range(8)})
    assert not any(e.kind == "gossip" for e in outcome.log.events)


async def test_memos_are_private_kept_when_empty_and_capped() -> None:
    memos = {1: "secret plan " * 50}

    def memo_seat(turn: Turn, hint: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"move": turn.legal_actions["move"]["min"]}
        if turn.round == 0:
            out["memo"] = memos[1]
        elif turn.round == 1:
            out["memo"] = ""  # an empty memo keeps the current one
        return out

    views: dict[int, list[dict[str, Any]]] = {s: [] for s in range(8)}

    def watcher(seat: int) -> ScriptSeat:
        def reply(turn: Turn, hint: str | None) -> dict[str, Any]:
            views[seat].append(turn.view)
            return {"move": turn.legal_actions["move"]["min"]}
        return ScriptSeat(reply)

    seats = {s: watcher(s) for s in range(8)}
    seats[1] = ScriptSeat(lambda t, h: (views[1].append(t.view), memo_seat(t, h))[1])
    game, outcome = await _episode(rounds=4, seats=seats)
    stored = clean_memo_text(memos[1])
    assert len(stored) == 400 and stored.endswith("…")
    assert game.table.memos[1] == stored
    assert [v["memo"] for v in views[1]] == ["", stored, stored, stored]
    for seat in (0, 2, 3, 4, 5, 6, 7):
        for view in views[seat]:
            assert "secret plan" not in str(view)
    meeting = next(e for e in outcome.log.events if e.kind == "meeting"
                   and e.data["round"] == 0 and 1 in (e.data["a"], e.data["b"]))
    side = "memoA" if meeting.data["a"] == 1 else "memoB"
    partner = meeting.data["b"] if side == "memoA" else meeting.data["a"]
    assert meeting.view_for(1)[side] == stored  # the author sees it
    assert side not in meeting.view_for(partner)  # the partner does not
    assert meeting.to_json()[side] == stored  # the replay does
    assert game.spectator_state()["seats"][1]["memo"] == stored  # and the spectator frame


async def test_a_reply_naming_the_wrong_subject_keeps_its_move_and_loses_its_note() -> None:
    """Gossip is cheap talk: the note is dropped (a `wrong_shape` fault with the reason), the
    move and the memo stand, and no seat falls back."""

    def misnamer(turn: Turn, hint: str | None) -> dict[str, Any]:
        return {"move": turn.legal_actions["move"]["max"], "note": "they cheat",
                "subject": "Nobody", "memo": "kept"}

    game, outcome = await _episode(rounds=4, seats={2: ScriptSeat(misnamer)})
    steps = outcome.log.decisions
    for r in range(4):
        assert steps[r][f"r{r}s2"].source == "seat"
        assert steps[r][f"r{r}s2"].action == {"move": game.table.slots[r][2].hi, "memo": "kept"}
    assert outcome.results["fallbacks"] == [0] * 8
    assert outcome.faults[2] == {"wrong_shape": 4}  # round 1's note has no target at all
    assert not any(e.kind == "gossip" for e in outcome.log.events)
    assert game.table.memos[2] == "kept"
