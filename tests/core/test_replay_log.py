"""An episode log's repr stays short and lazy: `asyncio.run` formats its main task's repr (the
outcome, log included) at the end of every run, which must not render the log's events."""

from __future__ import annotations

import pytest

from cogleague.core.episode import play_headless
from cogleague.core.game import Event
from cogleague.core.replay import EpisodeLog, LogEntry
from cogleague.games.ledger import GAME
from cogleague.seats import ScriptedSeat


def test_repr_of_a_log_counts_its_entries_without_rendering_them() -> None:
    rendered: list[int] = []

    def render() -> list[Event]:
        rendered.append(1)
        return []

    log = EpisodeLog([LogEntry("step", None, render=render), LogEntry("end", [])])
    assert repr(log) == "EpisodeLog(<2 entries>)"
    assert rendered == []
    assert log.events == [] and rendered == [1]


async def _observe(entry: LogEntry, game: object) -> None:
    return None


def test_an_observed_headless_episode_never_reprs_its_entries(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    original = LogEntry.__repr__
    monkeypatch.setattr(LogEntry, "__repr__", lambda self: calls.append(1) or original(self))
    lineup = GAME.default_lineup("standard")
    game = GAME.make("standard", {}, 1, lineup)
    seats = [ScriptedSeat(game.make_baseline(n, i), n) for i, n in enumerate(lineup)]
    outcome = play_headless(game, seats, observer=_observe)  # an observer: asyncio.run is used
    assert outcome.log.entries and calls == []
