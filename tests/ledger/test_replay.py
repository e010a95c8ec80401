"""The replay (§15): frames, re-derivation, tampering, round trips, log re-application."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from cogleague.core import jsonio
from cogleague.core.clock import FakeClock
from cogleague.core.episode import run_episode
from cogleague.core.errors import ReplayError
from cogleague.core.game import Turn
from cogleague.core.replay import replay_entries
from cogleague.core.verify import verify_replay
from cogleague.games.ledger.descriptor import GAME
from cogleague.games.ledger.game import LedgerGame
from cogleague.games.ledger.replay import build_frames

from .support import ScriptSeat, make_game, play, seats_with


def verify(doc: Any) -> Any:
    """The one verifier (core/verify.py) with this game's descriptor."""
    return verify_replay(doc, GAME)

Doc = dict[str, Any]


def _chatty(turn: Turn, hint: str | None) -> dict[str, Any]:
    return {"move": turn.legal_actions["move"]["max"], "note": f"review {turn.round}",
            "memo": f"memo {turn.round}"}


async def _rich_episode() -> tuple[LedgerGame, Any]:
    """Gossip, memos, a clamped seat and a failing seat: every event kind and flag appears."""
    game = make_game(seed=11)
    seats = seats_with(game, {1: ScriptSeat(_chatty), 4: ScriptSeat(_chatty),
                              5: ScriptSeat(lambda t, h: {"move": 99}),
                              6: ScriptSeat(lambda t, h: "no idea")})
    outcome = await run_episode(game, seats, clock=FakeClock())
    return game, outcome


@pytest.fixture(scope="module")
def rich() -> tuple[LedgerGame, Any, Doc]:
    import asyncio

    game, outcome = asyncio.run(_rich_episode())
    return game, outcome, json.loads(jsonio.dumps(game.replay_document(outcome.log,
                                                                       frames=True)))


def test_document_shape(rich: tuple[LedgerGame, Any, Doc]) -> None:
    _game, outcome, doc = rich
    assert list(doc) == ["format", "aliases", "policyNames", "config", "log", "events",
                         "results", "frames"]
    assert doc["format"] == "ledger.replay.v1"
    assert list(doc["config"]) == ["variant", "seed", "rounds", "episode_timeout_s",
                                   "play_budget_fraction", "decision_timeout_s", "schedule"]
    assert len(doc["config"]["schedule"]) == 14 and len(doc["config"]["schedule"][0]) == 4
    assert doc["config"]["schedule"][0][0] == doc["events"][1]["pairs"][0]
    assert {e["kind"] for e in doc["events"]} == {"start", "round", "meeting", "gossip", "end"}
    assert doc["results"] == outcome.results
    assert list(doc["results"]) == [
        "policyNames", "aliases", "scores", "mean", "total", "meetings", "kind", "harsh", "halo",
        "rounds", "maxRounds", "ringPairs", "rings", "reason", "fallbacks", "timeouts"]
    assert doc["results"]["fallbacks"] == [0, 0, 0, 0, 0, 0, 14, 0]
    assert any(e.get("clampedA") or e.get("clampedB") for e in doc["events"])


def test_frames_number_events_plus_one_and_end_at_the_live_state(
        rich: tuple[LedgerGame, Any, Doc]) -> None:
    game, _, doc = rich
    frames = doc["frames"]
    assert len(frames) == len(doc["events"]) + 1
    assert frames[0]["phase"] == "between" and frames[0]["pairs"] == []
    assert frames[-1] == json.loads(jsonio.dumps(game.spectator_state()))
    assert frames[-1]["done"] is True and frames[-1]["reason"] == "complete"
    assert list(frames[1]) == ["phase", "round", "roundsPlayed", "seats", "pairs", "board",
                               "rings", "done", "reason"]
    assert frames[2]["phase"] == "deal" and frames[2]["pairs"][0]["moveA"] is None
    assert frames[3]["pairs"][0]["moveA"] is not None
    assert frames[-1]["seats"][1]["memo"] == "memo 13"
    assert frames == build_frames(doc)


def test_the_replay_verifies_and_results_re_derive(rich: tuple[LedgerGame, Any, Doc]) -> None:
    _, outcome, doc = rich
    assert verify(doc) == outcome.results
    without_frames = {k: v for k, v in doc.items() if k != "frames"}
    assert verify(without_frames) == outcome.results


def test_the_log_re_applies_to_the_same_events_and_results(
        rich: tuple[LedgerGame, Any, Doc]) -> None:
    game, outcome, _ = rich
    fresh = make_game(seed=11)
    log = replay_entries(fresh, json.loads(jsonio.dumps(outcome.log.to_json())))
    assert [e.to_json() for e in log.events] == [e.to_json() for e in outcome.log.events]
    assert fresh.results() == game.results()


def _event(doc: Doc, kind: str, nth: int = 0) -> dict[str, Any]:
    return [e for e in doc["events"] if e["kind"] == kind][nth]


TAMPERS: dict[str, Callable[[Doc], None]] = {
    "pay": lambda d: _event(d, "meeting", 3).update(payA=_event(d, "meeting", 3)["payA"] + 1),
    "move and pay": lambda d: _event(d, "meeting", 0).update(moveA=5),
    "alias": lambda d: d["aliases"].reverse(),
    "seed": lambda d: d["config"].update(seed=d["config"]["seed"] + 1),
    "schedule": lambda d: d["config"]["schedule"][2].reverse(),
    "round pairs": lambda d: _event(d, "round", 1)["pairs"].reverse(),
    "round order": lambda d: d["events"].insert(1, d["events"].pop(8)),
    "gossip subject": lambda d: _event(d, "gossip").update(
        subject=(_event(d, "gossip")["subject"] + 1) % 8),
    "gossip order": lambda d: d["events"].__setitem__(
        slice(d["events"].index(_event(d, "gossip")), d["events"].index(_event(d, "gossip")) + 2),
        list(reversed(d["events"][d["events"].index(_event(d, "gossip")):
                                  d["events"].index(_event(d, "gossip")) + 2]))),
    "gossip text": lambda d: _event(d, "gossip").update(text="line\nbreak"),
    "end reason": lambda d: d["events"][-1].update(reason="deadline"),
    "end round": lambda d: d["events"][-1].update(round=13),
    "dropped end": lambda d: d["events"].pop(),
    "after end": lambda d: d["events"].append({"kind": "start"}),
    "dropped meeting": lambda d: d["events"].remove(_event(d, "meeting", 5)),
    "extra key": lambda d: _event(d, "meeting").update(bonus=1),
    "fallback flag": lambda d: _event(d, "meeting").update(fallbackA=True, scriptedA=True),
    "memo on fallback": lambda d: next(e for e in d["events"] if e.get("fallbackA")).update(
        memoA="sneaky"),
    "string move": lambda d: _event(d, "meeting").update(moveA="0"),
    "score": lambda d: d["results"]["scores"].__setitem__(0, 14.0),
    "counter": lambda d: d["results"]["fallbacks"].__setitem__(6, 13),
    "float total": lambda d: d["results"]["total"].__setitem__(0, float(d["results"]["total"][0])),
    "frame": lambda d: d["frames"][5]["seats"][0].update(total=999),
    "frame count": lambda d: d["frames"].pop(),
    "policy names": lambda d: d["policyNames"].pop(),
    "format": lambda d: d.update(format="ledger.replay.v0"),
    "config range": lambda d: d["config"].update(rounds=3),
    "no events": lambda d: d.update(events=None),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_tampering_raises_replay_error(rich: tuple[LedgerGame, Any, Doc], name: str) -> None:
    doc = copy.deepcopy(rich[2])
    TAMPERS[name](doc)
    with pytest.raises(ReplayError):
        verify(doc)


def test_a_non_document_raises_replay_error() -> None:
    for junk in (None, [], "ledger", {"format": "ledger.replay.v1"}):
        with pytest.raises(ReplayError):
            verify(junk)


def test_all_scripted_replays_are_byte_identical_across_runs() -> None:
    docs = []
    for _ in range(2):
        game = make_game(seed=5)
        outcome = play(game)
        docs.append(jsonio.dumps(game.replay_document(outcome.log, frames=True)))
    assert docs[0] == docs[1]
    assert '"kind":"meeting"' in docs[0]
