"""Spec §2.5: a missed turn is a cooperate, always — the seat is told, the opponent sees it."""

from __future__ import annotations

from typing import Any

from cogleague.core.clock import FakeClock
from cogleague.core.episode import run_episode
from cogleague.core.game import Turn
from dilemma.support import Scripted, game, seen_by


class Sleeper:
    """A remote seat that answers `defect` after `delay` seconds (fake clock)."""

    kind = "remote"
    name = "sleeper"

    def __init__(self, clock: FakeClock, delay: float) -> None:
        self.clock, self.delay = clock, delay
        self.calls = 0

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        self.calls += 1
        await self.clock.sleep(self.delay)
        return {"action": "defect"}


class Garbage:
    kind = "remote"
    name = "garbage"

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return {"action": "betray"}


def test_timing_is_the_turn_deadline_without_retries() -> None:
    g = game(["pavlov"] * 3, turn_deadline_ms=2500)
    assert g.timing().decision_timeout_s == 2.5 and g.timing().retries == 0
    g.start()
    g.open_round()
    assert g.fallback(g.pending()[0]) == {"action": "cooperate"}


async def test_a_seat_past_its_deadline_is_recorded_as_cooperate_and_everyone_is_told() -> None:
    clock = FakeClock()
    g = game(["always_defect"] * 3, rounds_total=2, turn_deadline_ms=1000)
    sleeper = Sleeper(clock, 5.0)
    watcher = Scripted(lambda t: {"action": "defect"})
    seats = [sleeper, watcher, Scripted(lambda t: {"action": "defect"})]
    outcome = await run_episode(g, seats, clock=clock)
    # two rounds × two pairings, each deadline 1 s, asked one after another (one seat's turns
    # in order): 4 seconds of fake time, no real sleeping
    assert clock.now() == 4.0 and sleeper.calls == 4
    for step in outcome.log.decisions:
        for turn_id, d in step.items():
            if turn_id.endswith(":0"):
                assert (d.source, d.cause, d.action) == ("fallback", "timeout",
                                                         {"action": "cooperate"})
    results = outcome.results
    assert [s["timeouts"] for s in results["seats"]] == [4, 0, 0]
    assert results["seats"][0]["cooperation_rate"] == 1.0
    assert results["scores"] == [0, 12, 12]  # seat 0 is the sucker everywhere
    mine = seen_by(outcome.log.events, 0)
    timeouts = [e for e in mine if e["kind"] == "timeout_private"]
    assert len(timeouts) == 4 and all(e["action"] == "cooperate" and e["cause"] == "timeout"
                                      for e in timeouts)
    assert not any(e["kind"] == "timeout_private" for e in seen_by(outcome.log.events, 1))
    revealed = [e for e in seen_by(outcome.log.events, 1) if e["kind"] == "choices_revealed"
                and e["seats"] == [0, 1]]
    assert [e["timeouts"] for e in revealed] == [[True, False]] * 2
    assert [e["choices"] for e in revealed] == [["cooperate", "defect"]] * 2
    # the opponent's history row carries their_timeout: true (seen in round 2's view)
    row = next(p for p in watcher.views[-1]["pairings"] if p["opponent"] == 0)["history"][0]
    assert row["their_timeout"] is True and row["them"] == "C"
    mine_row = next(p for p in watcher.views[-1]["pairings"] if p["opponent"] == 2)["history"][0]
    assert "their_timeout" not in mine_row


async def test_an_illegal_reply_falls_back_to_cooperate_as_a_timeout() -> None:
    g = game(["always_cooperate"] * 3, rounds_total=1)
    outcome = await run_episode(g, [Garbage(), Scripted(lambda t: {"action": "defect"}),
                                    Scripted(lambda t: {"action": "cooperate"})],
                                clock=FakeClock())
    causes = [d.cause for step in outcome.log.decisions for k, d in step.items()
              if k.endswith(":0")]
    assert causes == ["illegal", "illegal"]
    assert outcome.results["seats"][0]["timeouts"] == 2
    assert outcome.results["scores"] == [0 + 3, 5 + 5, 3 + 0]


def test_a_missing_decision_is_a_timeout_too() -> None:
    g = game(["always_cooperate"] * 3, rounds_total=1)
    g.start()
    g.open_round()
    events = g.apply({})
    kinds = [e.kind for e in events]
    assert kinds.count("timeout_private") == 3
    assert {e.data["cause"] for e in events if e.kind == "timeout_private"} == {"no_submission"}
