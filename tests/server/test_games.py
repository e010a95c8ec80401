"""All three games over the real server: SDK bots give the same results as a headless run with
the same seed and strategies, and no raw frame leaks what its seat may not see."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cogleague.client import TurnInfo
from server.support import Played, ServerProcess, play_headless, play_table

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from commons_bot import Steward
from dilemma_bot import PromiseKeeper
from ledger_bot import FairDealer


class MarkedKeeper(PromiseKeeper):
    """Every promise names its sender and receiver, so a leak is visible in the raw frames."""

    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        reply = super().on_turn(turn)
        opponent = turn.visible_state["opponent"]
        return {**reply, "message": f"promise-from-{turn.seat}-to-{opponent} cooperate"}


class MarkedDealer(FairDealer):
    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        return {**super().on_turn(turn), "memo": f"memo-secret-{turn.seat}"}


class MarkedSteward(Steward):
    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        return {**super().on_turn(turn), "note": f"note-secret-{turn.seat}"}


def names(n: int) -> list[str]:
    return [f"policy-secret-{i}" for i in range(n)]


def common_leak_checks(played: Played) -> None:
    """No seat sees another seat's token or any policy name (its own included)."""
    assert played.tokens and any(rec.frames for rec in played.recorders)  # checks below run
    for seat, rec in enumerate(played.recorders):
        if not rec.frames:
            continue
        text = rec.text()
        leaks = [f for f in rec.frames if "policy-secret-" in json.dumps(f)]
        assert not leaks, f"seat {seat} saw a policy name: {leaks[:1]}"
        for token in played.tokens:
            assert token not in text
        assert rec.frames[-1]["type"] == "end"


async def test_dilemma_served_equals_headless_and_keeps_secrets(
        shared_server: ServerProcess) -> None:
    lineup: list[Any] = [MarkedKeeper(), "always_defect", MarkedKeeper(), "tit_for_tat",
                         MarkedKeeper()]
    config = {"rounds_total": 6, "seats": 5}
    played = await play_table(shared_server, "dilemma", lineup, seed=11, config=config,
                              names=names(5))
    headless = await play_headless("dilemma", [MarkedKeeper(), "always_defect", MarkedKeeper(),
                                               "tit_for_tat", MarkedKeeper()],
                                   seed=11, config=config, names=names(5))
    assert played.results == headless
    assert played.results["reason"] == "complete" and played.results["rounds_played"] == 6
    common_leak_checks(played)
    for seat, rec in enumerate(played.recorders):
        if not rec.frames:
            continue
        text = rec.text()
        for a in range(5):
            for b in range(5):
                if f"promise-from-{a}-to-{b}" in text:
                    assert seat in (a, b), f"seat {seat} saw the promise {a}->{b}"
        assert f"promise-from-{seat}-to-" in text  # its own promises come back to it
        revealed: set[tuple[int, tuple[int, ...]]] = set()
        histories = 0
        for frame in rec.frames:
            if frame["type"] == "event":
                p = frame["payload"]
                if frame["event"] == "choices_revealed":
                    revealed.add((p["round"], tuple(p["seats"])))
                if frame["event"] in ("action_private", "timeout_private"):
                    assert p["seat"] == seat
            if frame["type"] == "your_turn":
                for pairing in frame["visible_state"]["pairings"]:
                    pair = tuple(sorted((seat, pairing["opponent"])))
                    for row in pairing["history"]:
                        histories += 1
                        assert (row["round"], pair) in revealed, "a choice before its reveal"
        assert histories > 0  # later turns carry history, and each row was checked


async def test_ledger_served_equals_headless_and_keeps_memos(
        shared_server: ServerProcess) -> None:
    lineup: list[Any] = [MarkedDealer(), "shark", MarkedDealer(), "mirror", MarkedDealer(),
                         "grim", "saint", "opportunist"]
    played = await play_table(shared_server, "ledger", lineup, seed=7, variant="quickfire",
                              names=names(8))
    headless = await play_headless("ledger", [MarkedDealer(), "shark", MarkedDealer(), "mirror",
                                              MarkedDealer(), "grim", "saint", "opportunist"],
                                   seed=7, variant="quickfire", names=names(8))
    assert played.results == headless
    common_leak_checks(played)
    checked = 0
    for seat, rec in enumerate(played.recorders):
        if not rec.frames:
            continue
        text = rec.text()
        checked += 1
        assert f"memo-secret-{seat}" in text  # its own memo comes back to it
        for other in set(range(8)) - {seat}:
            assert f"memo-secret-{other}" not in text
    assert checked == 3  # the three remote dealers


async def test_commons_served_equals_headless_and_keeps_notes(
        shared_server: ServerProcess) -> None:
    lineup: list[Any] = [MarkedSteward(), "free_rider", MarkedSteward(), "punisher",
                         "reciprocator", MarkedSteward()]
    config = {"rounds": 6}
    played = await play_table(shared_server, "commons", lineup, seed=3, variant="cleanup",
                              config=config, names=names(6))
    headless = await play_headless("commons", [MarkedSteward(), "free_rider", MarkedSteward(),
                                               "punisher", "reciprocator", MarkedSteward()],
                                   seed=3, variant="cleanup", config=config, names=names(6))
    strip = ("generated_at",)
    assert {k: v for k, v in played.results.items() if k not in strip} == \
        {k: v for k, v in headless.items() if k not in strip}
    remote = [(seat, rec) for seat, rec in enumerate(played.recorders) if rec.frames]
    assert len(remote) == 3  # the three remote stewards
    for seat, rec in remote:
        text = rec.text()
        for other in set(range(6)) - {seat}:
            assert f"note-secret-{other}" not in text
    common_leak_checks(played)
