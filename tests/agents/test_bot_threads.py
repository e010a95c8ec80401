"""A synchronous bot's turns run on daemon threads kept between turns: a league plays millions
of decisions, and a thread started for each cost more than many bots' decisions (and each
start was a moment Ctrl-C could land in). A thread still running a late call is never given
another turn, and a forked process starts with none of its parent's threads."""

from __future__ import annotations

import multiprocessing
import threading
from typing import Any

import cogleague
from cogleague.client.bot import Bot, TurnInfo
from cogleague.seats import inprocess


class Recorder(Bot):
    """Cooperates, noting the thread each turn ran on."""

    def __init__(self) -> None:
        self.threads: set[threading.Thread] = set()  # held: no identity is reused

    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        self.threads.add(threading.current_thread())
        return {"action": "cooperate"}


def bot_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "cogleague-bot"]


def test_a_bots_turns_share_a_few_kept_threads() -> None:
    bot = Recorder()
    for seed in range(3):
        result = cogleague.play("dilemma", [bot, "tit_for_tat", "pavlov"], seed=seed,
                                rounds_total=20)
        assert result.results["reason"] == "complete"
    assert len(bot.threads) == 1  # 60 turns, one after another: one thread
    assert len(bot_threads()) <= inprocess.IDLE_THREADS_KEPT


def test_a_thread_still_running_a_late_call_gets_no_other_turn() -> None:
    release = threading.Event()
    stuck: list[threading.Thread] = []

    class StuckOnce(Recorder):
        def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
            if not stuck:
                stuck.append(threading.current_thread())
                release.wait(60)  # far past the deadline: this turn falls back
            return super().on_turn(turn)

    bot = StuckOnce()
    try:
        result = cogleague.play("dilemma", [bot, "tit_for_tat", "pavlov"], seed=1, rounds_total=4,
                                turn_deadline_ms=300)
        assert result.results["reason"] == "complete"
        assert stuck and stuck[0] not in bot.threads  # the later turns ran elsewhere
        assert bot.threads  # and they did run
    finally:
        release.set()


def _child(conn: Any) -> None:
    bot = Recorder()
    result = cogleague.play("dilemma", [bot, "tit_for_tat", "pavlov"], seed=2, rounds_total=3)
    conn.send((result.results["reason"], len(bot.threads)))


def test_a_forked_process_plays_bots_on_threads_of_its_own() -> None:
    cogleague.play("dilemma", [Recorder(), "tit_for_tat", "pavlov"], seed=0, rounds_total=3)
    assert inprocess._THREADS.idle  # kept threads the child does not have
    context = multiprocessing.get_context("fork")
    read, write = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(write,))
    child.start()
    try:
        assert read.poll(60), "the forked child's bot never answered"
        assert read.recv() == ("complete", 1)
    finally:
        child.join(10)
        if child.is_alive():
            child.kill()
