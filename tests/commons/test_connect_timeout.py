"""Rules §12 `no_players` on the one runner: the connect timeout the descriptor declares
(`core/connect.py`), on a virtual clock with seats that must connect."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from cogleague.core import jsonio
from cogleague.core.clock import FakeClock
from cogleague.core.connect import ConnectWait, connect_wait
from cogleague.core.episode import EpisodeOutcome, EpisodeRunner
from cogleague.core.game import Turn
from cogleague.core.verify import verify_replay
from cogleague.games.commons.descriptor import GAME
from cogleague.games.commons.game import CommonsGame
from cogleague.seats.scripted import ScriptedSeat

ONE_ONE = {"harvest": 1, "clean": 1}


class Connecting:
    """A remote seat whose program connects `arrives_after` virtual seconds after the start
    (None: never) and then answers h:1 c:1; before that its turns run out."""

    kind = "remote"

    def __init__(self, clock: FakeClock, arrives_after: float | None, name: str) -> None:
        self.clock, self.arrives_after, self.name = clock, arrives_after, name
        self._arrived = asyncio.Event()
        self._arrival: asyncio.Task[None] | None = None

    def arm(self) -> None:
        if self.arrives_after is not None:
            self._arrival = asyncio.ensure_future(self._arrive(self.arrives_after))

    async def _arrive(self, after: float) -> None:
        await self.clock.sleep(after)
        self._arrived.set()

    @property
    def connected(self) -> bool:
        return self._arrived.is_set()

    async def wait_connected(self) -> None:
        await self._arrived.wait()

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        if not self.connected:
            await asyncio.Event().wait()  # nobody is listening: the turn runs out
        return ONE_ONE


def table(overrides: dict[str, Any] | None = None) -> CommonsGame:
    game = GAME.new_game("cleanup", {"rounds": 3, **(overrides or {})}, 11,
                         [f"cog{i}" for i in range(6)], ["remote"] * 6)
    assert isinstance(game, CommonsGame)
    return game


def run(game: CommonsGame, arrivals: list[float | None], *,
        in_process: int | None = None) -> tuple[EpisodeOutcome, float]:
    """Play `game` with the connect timeout its descriptor declares; the outcome and the
    virtual time it took."""
    async def go() -> tuple[EpisodeOutcome, float]:
        clock = FakeClock()
        seats: list[Any] = [Connecting(clock, a, f"cog{i}") for i, a in enumerate(arrivals)]
        if in_process is not None:
            seats[in_process] = ScriptedSeat(game.make_baseline("steward", in_process), "st")
        for seat in seats:
            if isinstance(seat, Connecting):
                seat.arm()
        outcome = await EpisodeRunner(game, seats, clock, connect=connect_wait(GAME, game)).run()
        return outcome, clock.now()

    return asyncio.run(go())


def test_the_descriptor_declares_the_rules_timeout_and_a_table_config_sets_it() -> None:
    assert connect_wait(GAME, table()) == ConnectWait(180.0, "no_players")
    assert connect_wait(GAME, table({"connect_timeout_seconds": 2})) == ConnectWait(
        2.0, "no_players")


def test_nobody_connects_ends_no_players_after_the_timeout_with_a_verified_replay() -> None:
    game = table({"connect_timeout_seconds": 30})
    outcome, took = run(game, [None] * 6)
    r = outcome.results
    assert (r["reason"], r["rounds"], r["scores"]) == ("no_players", 0, [0.0] * 6)
    assert r["disconnected"] == [True] * 6 and r["error"] is None
    assert took == 30.0
    assert [e.op for e in outcome.log.entries] == ["start", "stop"]
    assert outcome.log.entries[1].reason == "no_players"
    doc = game.replay_document(outcome.log)
    assert doc["results"]["reason"] == "no_players" and doc["rounds"] == []
    assert verify_replay(doc, GAME)["reason"] == "no_players"


def test_one_seat_connecting_in_time_plays_and_the_absent_fall_back_from_round_0() -> None:
    game = table({"connect_timeout_seconds": 30})
    outcome, _ = run(game, [None, None, 29.0, None, None, None])
    r = outcome.results
    assert (r["reason"], r["rounds"]) == ("complete", 3)
    # the five absent seats timed out on every turn, each cause recorded; the arrival played
    assert r["fallbacks"] == [3, 3, 0, 3, 3, 3]
    assert outcome.faults[0] == {"timeout": 3} and outcome.faults[2] == {}
    srcs = [d["src"] for d in game.records[0]["decisions"]]
    assert srcs == ["fallback:timeout"] * 2 + ["player"] + ["fallback:timeout"] * 3
    verify_replay(game.replay_document(outcome.log), GAME)


def test_a_seat_connecting_after_the_timeout_is_too_late() -> None:
    outcome, took = run(table({"connect_timeout_seconds": 5}), [6.0] * 6)
    assert outcome.results["reason"] == "no_players" and took == 5.0


def test_an_in_process_seat_is_there_from_the_start_so_nobody_waits() -> None:
    game = table({"connect_timeout_seconds": 30})
    outcome, _ = run(game, [None] * 6, in_process=3)
    assert (outcome.results["reason"], outcome.results["rounds"]) == ("complete", 3)
    assert game.records[0]["decisions"][3]["src"] == "scripted:cog3"


def test_the_cli_takes_a_no_players_replay_and_exits_0(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cogleague.cli import app

    game = table({"connect_timeout_seconds": 3})
    outcome, _ = run(game, [None] * 6)
    path = jsonio.write(tmp_path / "replay.json", game.replay_document(outcome.log))
    verified = CliRunner().invoke(app, ["replay", "verify", str(path)])
    assert verified.exit_code == 0 and "verifies" in verified.output, verified.output
    graded = CliRunner().invoke(app, ["grade", str(path)])
    assert graded.exit_code == 0, graded.output
    assert "rounds_played" in graded.output


def test_a_resume_waits_again_only_when_nothing_was_played() -> None:
    """A table restarted after its start but before round 0 waits for its seats again; one
    restarted mid-episode plays on (its seats' absence is the fallback's business)."""
    from cogleague.core.replay import EpisodeLog, LogEntry

    async def resume(game: CommonsGame, log: EpisodeLog) -> tuple[EpisodeOutcome, float]:
        clock = FakeClock()
        seats = [Connecting(clock, None, f"cog{i}") for i in range(6)]
        runner = EpisodeRunner(game, seats, clock, connect=ConnectWait(7.0, "no_players"))
        runner.log = log
        return await runner.run(), clock.now()

    game = table()
    started = EpisodeLog([LogEntry("start", game.start())])
    outcome, took = asyncio.run(resume(game, started))
    assert (outcome.results["reason"], took) == ("no_players", 7.0)
    assert [e.op for e in outcome.log.entries] == ["start", "stop"]

    game = table()
    played = EpisodeLog([LogEntry("start", game.start()), LogEntry("open", game.open_round())])
    outcome, _ = asyncio.run(resume(game, played))
    assert (outcome.results["reason"], outcome.results["rounds"]) == ("complete", 3)
    assert outcome.results["fallbacks"] == [3] * 6
