"""A tiny game for the web tests, registered through the descriptor like any plugin and with
no viewer module (`viewer=None`), so the Theater draws it with the generic renderer.

Tally: each round every seat says a number in 0..3 and scores it. Three seats, a few rounds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, ClassVar

from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError, GameStateError, IllegalAction
from cogleague.core.game import (
    Action,
    Event,
    Game,
    Parsed,
    Step,
    StepDecisions,
    Timing,
    Turn,
)
from cogleague.core.options import Option, option_model

SEATS = 3
MAX_VALUE = 3
ALIASES = ["Ash", "Birch", "Cedar"]
BASELINES = {"zeros": 0, "twos": 2, "threes": 3}
OPTIONS = option_model("tally", {"rounds": Option(int, "rounds to play", lo=1, hi=20)})


class _Constant:
    def __init__(self, value: int) -> None:
        self.value = value

    def act(self, turn: Turn) -> Action:
        return {"value": self.value}


class TallyGame(Game):
    name: ClassVar[str] = "tally"
    rules_version: ClassVar[str] = "tally-0.1"

    def __init__(self, rounds: int, seed: int, policy_names: Sequence[str]) -> None:
        self.rounds, self._seed = rounds, seed
        self.num_seats = SEATS
        self.policy_names = list(policy_names)
        self.aliases = list(ALIASES)
        self.scores = [0] * SEATS
        self.round = 0
        self.phase = "new"
        self.reason: str | None = None

    def start(self) -> list[Event]:
        self.phase = "between"
        return [Event("episode_start", {"aliases": self.aliases, "rounds": self.rounds})]

    @property
    def between_rounds(self) -> bool:
        return self.phase == "between"

    @property
    def rounds_played(self) -> int:
        return self.round

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def max_rounds(self) -> int:
        return self.rounds

    @property
    def done(self) -> bool:
        return self.phase == "done"

    def open_round(self) -> list[Event]:
        self.phase = "open"
        return [Event("round_start", {"round": self.round})]

    def step(self) -> Step:
        if self.phase != "open":
            raise GameStateError("no round is open")
        r = self.round
        return Step.of([Turn(f"r{r}s{s}", s, {"value": [0, MAX_VALUE]}, partial(self._view, s),
                             round=r) for s in range(SEATS)], r)

    def _view(self, seat: int) -> dict[str, Any]:
        return {"round": self.round, "alias": self.aliases[seat], "scores": list(self.scores)}

    def parse(self, turn: Turn, raw: Any) -> Parsed:
        value = raw.get("value") if isinstance(raw, Mapping) else None
        if not isinstance(value, int) or not 0 <= value <= MAX_VALUE:
            raise IllegalAction(f"value must be an integer in 0..{MAX_VALUE}", code="illegal")
        return Parsed({"value": value})

    def apply_step(self, decisions: StepDecisions) -> list[Event]:
        r = self.round
        events = []
        for s in range(SEATS):
            d = decisions.get(f"r{r}s{s}")
            value = int(d.action["value"]) if d is not None else 0
            self.scores[s] += value
            events.append(Event("say", {"round": r, "seat": s, "value": value}))
        self.round += 1
        events.append(Event("round_end", {"round": r, "scores": list(self.scores)}))
        if self.round >= self.rounds:
            self.phase, self.reason = "done", "complete"
            events.append(Event("episode_end", {"reason": "complete"}))
        else:
            self.phase = "between"
        return events

    def fallback(self, turn: Turn) -> Action:
        return {"value": 0}

    def stop(self, reason: str, detail: str | None = None) -> list[Event]:
        self.phase, self.reason = "done", reason
        return [Event("episode_end", {"reason": reason})]

    def results(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "reason": self.reason, "rounds_played": self.round}

    def timing(self) -> Timing:
        return Timing(decision_timeout_s=20.0)

    def make_baseline(self, name: str, seat: int) -> _Constant:
        if name not in BASELINES:
            raise ConfigError("baseline", f"must be one of {', '.join(BASELINES)} (got {name!r})")
        return _Constant(BASELINES[name])

    def spectator_state(self) -> dict[str, Any]:
        return {"game": self.name, "done": self.done, "rounds_played": self.round,
                "aliases": self.aliases, "scores": list(self.scores)}

    def public_config(self) -> dict[str, Any]:
        return {"rounds": self.rounds}

    def replay_document(self, log: Any) -> dict[str, Any]:
        return replay_document(self, log)


def replay_document(game: Game, log: Any) -> dict[str, Any]:
    assert isinstance(game, TallyGame)
    return {"format": "tally.replay.v1", "seed": game.seed, "rounds": game.rounds,
            "aliases": game.aliases, "policies": game.policy_names,
            "events": [e.to_json() for e in log.events], "results": game.results()}


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str], seat_kinds: Sequence[str] | None) -> TallyGame:
    if variant is not None:
        raise ConfigError("variant", f"tally has no variants (got {variant!r})")
    if len(policy_names) != SEATS:
        raise ConfigError("seats", f"tally seats {SEATS} (got {len(policy_names)})")
    rounds = int(overrides.get("rounds", 3))
    return TallyGame(rounds, seed or 0, policy_names)


TALLY = GameDescriptor(
    name="tally", version="tally-0.1", title="Tally", options=OPTIONS, make=make, variants=(),
    default_variant=None, seat_range=(SEATS, SEATS), baselines=tuple(BASELINES),
    fallback_baseline="zeros", default_lineup=lambda v: ["twos", "threes", "twos"],
    replay_format="tally.replay.v1", replay_document=replay_document, viewer=None,
    rule_numbers={"max_value": MAX_VALUE})
