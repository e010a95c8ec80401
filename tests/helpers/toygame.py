"""A tiny game for exercising the runner: each round every seat names a number 0..9.

Score = sum of numbers named. Fallback names 0. Two steps per round when `two_steps` is set
(even seats first, then odd seats), to exercise multi-step rounds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cogleague.core.errors import ConfigError, GameStateError, IllegalAction, SeatInputRejected
from cogleague.core.game import (
    Action,
    Decision,
    Event,
    Game,
    Parsed,
    Step,
    StepDecisions,
    Timing,
    Turn,
)


class Constant:
    def __init__(self, value: int) -> None:
        self.value = value

    def act(self, turn: Turn) -> Action:
        return {"n": self.value}


class ToyGame(Game):
    name = "toy"
    rules_version = "toy-1"

    def __init__(self, seats: int = 3, rounds: int = 3, timing: Timing | None = None,
                 two_steps: bool = False, reject_seat: int | None = None) -> None:
        self.num_seats = seats
        self.policy_names = [f"p{i}" for i in range(seats)]
        self.rounds = rounds
        self._timing = timing or Timing(decision_timeout_s=5.0, retries=1)
        self.two_steps = two_steps
        self.reject_seat = reject_seat
        self.scores = [0] * seats
        self.played = 0
        self.phase = "new"
        self.stage = 0
        self.reason: str | None = None
        self.decisions_seen: list[dict[str, Decision]] = []

    def start(self) -> list[Event]:
        self.phase = "between"
        return [Event("start", {})]

    @property
    def between_rounds(self) -> bool:
        return self.phase == "between"

    @property
    def rounds_played(self) -> int:
        return self.played

    def open_round(self) -> list[Event]:
        if self.phase != "between":
            raise GameStateError("no round to open")
        self.phase = "deal"
        self.stage = 0
        return [Event("round", {"round": self.played})]

    def _step_seats(self) -> list[int]:
        if not self.two_steps:
            return list(range(self.num_seats))
        return [s for s in range(self.num_seats) if s % 2 == self.stage]

    prompt_fn: Callable[[dict[str, Any]], str] | None = None

    def step(self) -> Step:
        if self.phase != "deal":
            raise GameStateError("no open round")
        return Step.of([Turn(f"r{self.played}s{self.stage}p{s}", s, {"min": 0, "max": 9},
                             lambda s=s: {"seat": s, "round": self.played}, self.prompt_fn,
                             round=self.played)
                        for s in self._step_seats()], self.played)

    def parse(self, turn: Turn, raw: Any) -> Parsed:
        if not isinstance(raw, dict) or not isinstance(raw.get("n"), int):
            raise IllegalAction("n must be an integer 0..9", hint='reply {"n": 0..9}')
        n = raw["n"]
        return Parsed({"n": min(9, max(0, n))}, clamped=not 0 <= n <= 9)

    def apply_step(self, decisions: StepDecisions) -> list[Event]:
        turns = self.step().turns()
        for t in turns:
            d = decisions.get(t.turn_id)
            if t.seat == self.reject_seat and d is not None and d.source != "fallback":
                raise SeatInputRejected(t.turn_id, "seat refused")
        self.decisions_seen.append(dict(decisions))
        events = []
        for t in turns:
            d = decisions.get(t.turn_id)
            n = d.action["n"] if d is not None else 0
            self.scores[t.seat] += n
            events.append(Event("move", {"seat": t.seat, "n": n}, audience=(t.seat,)))
        if self.two_steps and self.stage == 0:
            self.stage = 1
            return events
        self.played += 1
        if self.played >= self.rounds:
            self.phase = "done"
            self.reason = "complete"
            events.append(Event("end", {"reason": "complete"}))
        else:
            self.phase = "between"
        return events

    def fallback(self, turn: Turn) -> Action:
        return {"n": 0}

    def stop(self, reason: str, detail: str | None = None) -> list[Event]:
        if self.phase == "done":
            return []
        self.phase = "done"
        self.reason = reason
        return [Event("end", {"reason": reason})]

    @property
    def done(self) -> bool:
        return self.phase == "done"

    def results(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "rounds": self.played, "reason": self.reason}

    def timing(self) -> Timing:
        return self._timing

    def make_baseline(self, name: str, seat: int) -> Constant:
        if not name.startswith("const"):
            raise ConfigError("seats", f"seats: unknown baseline {name!r}")
        return Constant(int(name[5:] or 1))
