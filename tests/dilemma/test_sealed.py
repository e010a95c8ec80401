"""Spec §2.4 and §4: choices are sealed until the reveal; a seat sees only its own pairings.

Asserted on what each seat could actually receive: the events through `Event.view_for(seat)`
and the `visible_state` of each of its turns.
"""

from __future__ import annotations

import json
from typing import Any

from cogleague.core.episode import play_headless
from cogleague.core.game import Event
from dilemma.support import Scripted, game, seen_by

SEED_VIEW_KEYS = {"game", "rules_version", "rounds_total", "round", "your_seat", "your_points",
                  "opponent", "opponent_promise", "you_move_first", "payoffs", "standings",
                  "pairings", "limits", "turn"}


def _run(first_choice: str) -> tuple[list[Event], list[Scripted]]:
    """Seat 0 opens every odd round with `first_choice` and a promise; the others cooperate."""
    g = game(["always_cooperate"] * 3, rounds_total=2)
    seats = [Scripted(lambda t: {"action": first_choice, "message": "trust me"}),
             Scripted(lambda t: {"action": "cooperate", "message": f"ok {t.round}"}),
             Scripted(lambda t: {"action": "cooperate"})]
    outcome = play_headless(g, seats)
    return outcome.log.events, seats


def _before_reveal(events: list[Event], seat: int, round_no: int) -> list[dict[str, Any]]:
    """What `seat` saw from the start until its first reveal of round `round_no`."""
    out = []
    for e in events:
        if e.kind == "choices_revealed" and e.data["round"] == round_no:
            break
        v = e.view_for(seat)
        if v is not None:
            out.append(v)
    return out


def test_no_event_shows_the_opponent_a_sealed_choice_before_the_reveal() -> None:
    events, _ = _run("defect")
    for seat in (1, 2):
        for view in _before_reveal(events, seat, 1):
            if view["kind"] in ("action_private", "timeout_private"):
                assert view["seat"] == seat  # only its own choice
            assert "defect" not in json.dumps(view)  # seat 0's choice is nowhere
    # the first mover's own choice is sent to it alone, at once
    own = [v for v in _before_reveal(events, 0, 1) if v["kind"] == "action_private"]
    assert [v["action"] for v in own] == ["defect", "defect"]
    assert all(e.audience == (e.data["seat"],) for e in events if e.kind == "action_private")


def test_the_second_mover_cannot_tell_the_first_movers_choice() -> None:
    """Everything the second mover gets before the reveal is identical whichever way the first
    mover chose: its events and the view of its turn."""
    events_c, seats_c = _run("cooperate")
    events_d, seats_d = _run("defect")
    for seat in (1, 2):
        assert _before_reveal(events_c, seat, 1) == _before_reveal(events_d, seat, 1)
        assert seats_c[seat].views[0] == seats_d[seat].views[0]
        assert seats_c[seat].views[1] == seats_d[seat].views[1]
    assert seats_c[1].views[1]["opponent"] == 0
    assert seats_c[1].views[1]["opponent_promise"] == "trust me"


def test_messages_between_other_pairs_are_never_seen() -> None:
    events, _ = _run("cooperate")
    for view in seen_by(events, 2):
        if view["kind"] == "message_private":
            assert 2 in (view["from"], view["to"])
    assert any(e.kind == "message_private" and e.audience == (0, 1) for e in events)
    assert all(e.view_for(None) is None for e in events if e.kind == "message_private")


def test_visible_state_is_the_seeds_shape_and_only_the_seats_own_pairings() -> None:
    _, seats = _run("defect")
    view = seats[1].views[-1]  # seat 1, round 2
    assert set(view) == SEED_VIEW_KEYS
    assert view["game"] == "dilemma" and view["rules_version"] == "dilemma-0.1"
    assert view["your_seat"] == 1 and view["rounds_total"] == 2 and view["round"] == 2
    assert view["limits"] == {"promises": True, "turn_deadline_ms": 10000,
                              "max_message_chars": 280}
    assert view["payoffs"] == {"reward": 3, "punishment": 1, "temptation": 5, "sucker": 0}
    assert [p["opponent"] for p in view["pairings"]] == [0, 2]
    row = view["pairings"][0]["history"][0]
    assert row == {"round": 1, "you": "C", "them": "D", "your_promise": "ok 1",
                   "their_promise": "trust me"}
    assert view["pairings"][0]["your_points"] == 0 and view["pairings"][0]["their_points"] == 5
    assert view["your_points"] == 3 and view["standings"][0] == {"seat": 0, "points": 10}
    assert view["turn"]["seat"] == 1
    assert set(view["turn"]) == {"turn", "seat", "pairing"}
