"""A ``disabled``, ``rate_budget`` or ``transport`` fallback says why in the results' faults and
the one-line summary, as ``parse`` and ``illegal`` do: the results said only "14 disabled",
while the model accounting (``models.errors``) had the words. The words go into the outcome
only — never into the replay's decisions — so a replay re-derives the same bytes whatever a
connection said."""

from __future__ import annotations

from typing import Any

from cogleague.core.episode import run_episode
from cogleague.core.errors import SeatUnavailable
from cogleague.core.game import Turn
from cogleague.seats.faults import faults_section, summary_line
from helpers.toygame import ToyGame


class Unavailable:
    kind = "model"
    name = "down"

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        raise self.exc


async def test_platform_fallbacks_carry_their_reason_in_the_outcome_not_the_replay() -> None:
    game = ToyGame(seats=3, rounds=2)
    seats = [Unavailable(SeatUnavailable("disabled", "no model provider configured")),
             Unavailable(SeatUnavailable("rate_budget", "no request slot before the deadline")),
             Unavailable(ConnectionResetError("peer closed the connection"))]
    outcome = await run_episode(game, seats)
    assert outcome.reasons == [{"disabled": "no model provider configured"},
                               {"rate_budget": "no request slot before the deadline"},
                               {"transport": "ConnectionResetError: peer closed the connection"}]
    section = faults_section(outcome.faults, seats, outcome.reasons)
    assert section["seats"][0]["reasons"] == {"disabled": "no model provider configured"}
    line = summary_line(section)
    assert line is not None and "2 disabled (no model provider configured)" in line, line
    assert "2 transport (ConnectionResetError: peer closed the connection)" in line, line
    decisions = [d for step in outcome.log.decisions for d in step.values()]
    assert decisions and all(d.source == "fallback" and d.reason is None for d in decisions)


async def test_an_exception_with_no_words_is_named_by_its_type() -> None:
    outcome = await run_episode(ToyGame(seats=1, rounds=1), [Unavailable(TimeoutError())])
    assert outcome.reasons == [{"transport": "TimeoutError"}]
