"""History rows are built once per revealed round and kept (`views.history`): every view still
gets rows of its own, so a seat that edits its view in place (a bot, an RL `info["view"]`)
changes nothing another seat sees, nothing it sees on its next turn, and not the replay."""

from __future__ import annotations

from typing import Any

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.core.game import Action, Turn
from cogleague.games.dilemma import views
from cogleague.games.dilemma.state import PairRecord
from dilemma.support import Scripted, game


def _history_reference(rec: PairRecord, side: int) -> list[dict[str, Any]]:
    """The rows as built before they were kept: from the record, every time."""
    rows = []
    for i in range(len(rec.coop[side])):
        me, them = rec.move(side, i), rec.move(1 - side, i)
        row: dict[str, Any] = {"round": i + 1, "you": "C" if me.coop else "D",
                               "them": "C" if them.coop else "D", "your_promise": me.message,
                               "their_promise": them.message}
        if them.timeout:
            row["their_timeout"] = True
        rows.append(row)
    return rows


def _choose(turn: Turn) -> Action:
    view = turn.view
    rows = sum(len(p["history"]) for p in view["pairings"])
    action: Action = {"action": "defect" if (rows + turn.seat) % 3 == 0 else "cooperate"}
    if turn.seat == 1 and view["you_move_first"]:
        action["message"] = f"I will cooperate in round {view['round']}"
    return action


def _vandal(turn: Turn) -> Action:
    action = _choose(turn)  # decided on the view as given, then the view is wrecked
    view = turn.view
    for pairing in view["pairings"]:
        for row in pairing["history"]:
            row["you"], row["them"], row["their_promise"] = "X", "X", "tampered"
            row["their_timeout"] = True
        pairing["history"].append({"round": 99})
    view["standings"].clear()
    view["payoffs"]["reward"] = -1
    return action


def _run(mutate: bool) -> tuple[str, list[list[str]]]:
    g = game(["a", "b", "c", "d"], seed=3, rounds_total=6)
    seats = [Scripted(_vandal if mutate and s == 0 else _choose, record=True) for s in range(4)]
    seen: list[list[str]] = [[] for _ in range(4)]

    def watch(seat: int, inner: Scripted) -> Scripted:
        def fn(turn: Turn) -> Action:
            seen[seat].append(jsonio.dumps(turn.view))  # before the seat touches it
            for rec in g.state.by_seat[seat]:
                side = rec.side_of(seat)
                assert views.history(rec, side) == _history_reference(rec, side)
            return inner.fn(turn)
        return Scripted(fn, record=False)

    outcome = play_headless(g, [watch(s, seat) for s, seat in enumerate(seats)])
    return jsonio.dumps(g.replay_document(outcome.log)), seen


def test_editing_a_view_changes_no_other_view_and_not_the_replay() -> None:
    clean_replay, clean_views = _run(mutate=False)
    replay, seen = _run(mutate=True)
    assert replay == clean_replay
    assert seen == clean_views  # every seat's every view, the vandal's later ones included
    assert any('"history":[{' in v for v in seen[0])  # there were rows to wreck


def test_each_view_gets_rows_of_its_own() -> None:
    g = game(["a", "b", "c", "d"], seed=5, rounds_total=4)
    got: list[dict[str, Any]] = []

    def keep(turn: Turn) -> Action:
        got.append(turn.view)
        return {"action": "cooperate"}

    play_headless(g, [Scripted(keep, record=False) for _ in range(4)])
    rows = [row for v in got for p in v["pairings"] for row in p["history"]]
    assert len(rows) > 50
    assert len({id(row) for row in rows}) == len(rows)  # no row object is shared
    assert len({id(p["history"]) for v in got for p in v["pairings"]}) == 3 * len(got)
