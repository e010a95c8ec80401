"""The replay document: byte-identical for the same seed, and verified by re-derivation."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from cogleague.core import jsonio
from cogleague.core.clock import FakeClock
from cogleague.core.episode import run_episode
from cogleague.core.errors import ReplayError
from cogleague.core.game import Turn
from cogleague.core.verify import verify_replay
from cogleague.games.dilemma.descriptor import GAME
from cogleague.games.dilemma.replay import FORMAT
from dilemma.support import Scripted, game, play
from dilemma.test_timeouts import Sleeper


def verify(doc: Any) -> Any:
    """The one verifier (core/verify.py) with this game's descriptor."""
    return verify_replay(doc, GAME)

NAMES = ["random", "generous_tit_for_tat", "promise_keeper", "silver_tongue", "pavlov"]


def _doc(seed: int = 7, **overrides: object) -> dict:
    g, outcome = play(NAMES, seed=seed, rounds_total=12, **overrides)
    return g.replay_document(outcome.log)


def test_same_seed_same_bytes_and_a_different_seed_differs() -> None:
    a, b = jsonio.dumps(_doc(7)), jsonio.dumps(_doc(7))
    assert a == b
    assert jsonio.dumps(_doc(8)) != a


def test_the_replay_holds_everything_and_verifies() -> None:
    doc = _doc(stake=20)
    assert doc["format"] == FORMAT and doc["game"] == "dilemma"
    assert doc["config"]["seed"] == 7 and doc["policies"] == NAMES
    assert doc["results"]["reason"] == "complete"
    kinds = {e["event"]["kind"] for e in doc["events"]}
    assert kinds == {"tournament_start", "round_start", "message_private", "action_private",
                     "choices_revealed", "tournament_standings", "tournament_end"}
    private = next(e for e in doc["events"] if e["event"]["kind"] == "message_private")
    assert len(private["audience"]) == 2  # promises are in the replay, with their audience
    verify(doc)
    verify(jsonio.dumps(doc) and __import__("json").loads(jsonio.dumps(doc)))


@pytest.mark.parametrize("tamper", ["decision", "event", "result", "alias", "config"])
def test_a_tampered_replay_fails_with_where_it_diverged(tamper: str) -> None:
    doc = copy.deepcopy(_doc())
    if tamper == "decision":  # a scripted choice the baseline would not make
        step = next(e for e in doc["log"] if e["op"] == "apply")
        turn_id = next(iter(step["decisions"]))
        current = step["decisions"][turn_id]["action"]["action"]
        step["decisions"][turn_id]["action"] = {
            "action": "defect" if current == "cooperate" else "cooperate"}
        match = "baseline .* plays"
    elif tamper == "event":
        e = next(e for e in doc["events"] if e["event"]["kind"] == "choices_revealed")
        e["event"]["points"] = [9, 9]
        match = r"first difference at \$\.events\[[0-9]+\]\.event\.points"
    elif tamper == "result":
        doc["results"]["scores"][0] += 1
        match = r"first difference at \$\.results\.scores\[0\]"
    elif tamper == "alias":
        doc["aliases"][0] = "Mallory"
        match = "aliases"
    else:
        doc["config"]["rounds_total"] = 0
        match = "config: rounds_total"
    with pytest.raises(ReplayError, match=match):
        verify(doc)


def test_wrong_format_is_refused() -> None:
    with pytest.raises(ReplayError, match="format must be"):
        verify({"format": "ledger.replay.v1"})
    with pytest.raises(ReplayError, match="a replay must be a JSON object"):
        verify([])


class Talker:
    """A remote program: promises, then defects."""

    kind = "remote"
    name = "talker"

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return {"action": "defect", "message": "C?"}


async def test_replays_with_timeouts_and_remote_seats_verify() -> None:
    clock = FakeClock()
    g = game(["always_defect", "tit_for_tat", "always_cooperate"], rounds_total=3,
             turn_deadline_ms=500)
    seats = [Sleeper(clock, 2.0), Talker(), Scripted(lambda t: {"action": "cooperate"})]
    outcome = await run_episode(g, seats, clock=clock)
    doc = g.replay_document(outcome.log)
    assert any(e["event"]["kind"] == "timeout_private" for e in doc["events"])
    verify(doc)  # seat 1 is named tit_for_tat but answered as a program: not re-derived
    step = next(e for e in doc["log"] if e["op"] == "apply")
    assert {d["source"] for d in step["decisions"].values()} == {"fallback", "seat"}


def test_a_stopped_table_replays() -> None:
    from cogleague.core.replay import replay_entries

    g = game(["pavlov"] * 3, rounds_total=5)
    g.start()
    g.open_round()
    g.stop("aborted")
    log_entries = [{"op": "start"}, {"op": "open"}, {"op": "stop", "reason": "aborted"}]
    rebuilt = game(["pavlov"] * 3, rounds_total=5)
    replay_entries(rebuilt, log_entries)
    assert rebuilt.results() == g.results()


def test_rows_written_from_the_moves_equal_the_events_replay_form() -> None:
    """Messages, promises and the end included: the rows `StepEvents.replay_rows` writes for
    a headless replay are, row for row, `event_json` of the events the log renders."""
    from cogleague.games.dilemma.replay import event_json

    _, outcome = play(NAMES, seed=3, rounds_total=6)
    direct = outcome.log.rows(event_json, "replay_rows")
    rendered = [event_json(e) for e in outcome.log.events]  # renders every entry
    assert direct == rendered
    assert {row["event"]["kind"] for row in direct} >= {
        "message_private", "action_private", "choices_revealed", "tournament_end"}
    assert outcome.log.rows(event_json, "replay_rows") == rendered  # read again, rendered
