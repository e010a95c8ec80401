"""The toy game of `helpers.toygame`, registered for server tests (`Settings.extra_games`).

Each seat's number is a private event (audience = that seat), so hidden-information checks have
something to catch; `secret` is a restricted field only its seat may see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogleague.core.config import check_int, check_number, reject_unknown
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.game import Event, StepDecisions, Timing
from cogleague.core.options import Option, option_model
from helpers.toygame import ToyGame


class ServedToy(ToyGame):
    def __init__(self, seats: int, rounds: int, timeout_s: float, seed: int,
                 policy_names: Sequence[str]) -> None:
        super().__init__(seats=seats, rounds=rounds,
                         timing=Timing(decision_timeout_s=timeout_s, retries=0))
        self.seed = seed
        self.policy_names = list(policy_names)
        self.aliases = [f"Toy-{chr(65 + (i + seed) % 26)}{i}" for i in range(seats)]

    def apply_step(self, decisions: StepDecisions) -> list[Event]:
        events = super().apply_step(decisions)
        tagged = []
        for e in events:
            if e.kind == "move":
                seat = e.data["seat"]
                tagged.append(Event("move", {**e.data, "secret": f"note-of-{seat}"},
                                    audience=e.audience))
                tagged.append(Event("tally", {"seat": seat, "memo": f"memo-of-{seat}"},
                                    restricted={"memo": (seat,)}))
            else:
                tagged.append(e)
        return tagged

    def public_config(self) -> dict[str, Any]:
        return {"seats": self.num_seats, "rounds": self.rounds}

    def spectator_state(self) -> dict[str, Any]:
        return {**super().spectator_state(), "policies": list(self.policy_names)}

    def replay_document(self, log: Any) -> dict[str, Any]:
        return {"format": "toy.replay.v1", "seed": self.seed, "policies": self.policy_names,
                "events": [e.to_json() for e in log.events], "results": self.results()}


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str], seat_kinds: Sequence[str] | None = None) -> ServedToy:
    reject_unknown("toy config", overrides, ("seats", "rounds", "timeout_s"))
    seats = check_int("seats", overrides.get("seats", len(policy_names)), 1, 8)
    rounds = check_int("rounds", overrides.get("rounds", 3), 1, 1000)
    timeout = check_number("timeout_s", overrides.get("timeout_s", 5.0), 0.05, 60.0)
    return ServedToy(seats, rounds, timeout, seed or 0, policy_names)


ToyOptions = option_model("ToyOptions", {
    "seats": Option(int, "seats at the table", 1, 8),
    "rounds": Option(int, "rounds", 1, 1000),
    "timeout_s": Option(float, "seconds per decision", 0.05, 60.0),
})

GAME = GameDescriptor(
    name="toy", version="toy-1", title="Toy", options=ToyOptions, make=make,
    variants=["standard"], default_variant=None, seat_range=(1, 8),
    baselines=[f"const{i}" for i in range(10)], fallback_baseline="const0",
    default_lineup=lambda v: ["const1", "const2", "const3"],
    replay_format="toy.replay.v1", replay_document=lambda game, log: game.replay_document(log),
    seats_for=lambda v, o: int(o.get("seats", 3)))
