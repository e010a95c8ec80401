"""Building a table's game from its seats.

Names of remote accounts are free text, so the server hands a game each seat's kind beside
its policy name (`GameDescriptor.make`'s ``seat_kinds``): ``scripted:<baseline>``, ``model``
or ``remote``. The game decides what it records of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cogleague.core.descriptor import GameDescriptor
from cogleague.core.game import Game

_KINDS = {"remote": "remote", "human": "remote", "llm": "model", "policy": "policy"}
"""A person plays over the same socket as a program: to the game both are remote seats."""


@dataclass(frozen=True)
class SeatPlan:
    policy_name: str
    kind: str  # remote | human | llm | scripted | policy
    baseline: str | None = None

    def seat_kind(self) -> str:
        return f"scripted:{self.baseline}" if self.kind == "scripted" else _KINDS[self.kind]


def build_game(info: GameDescriptor, variant: str | None, config: Mapping[str, Any], seed: int,
               seats: Sequence[SeatPlan] | None) -> Game:
    """The table's game. `seats` None: a probe with the game's default line-up (at creation,
    before anyone joined), used for validation, aliases and the public config."""
    if seats is None:
        n = info.seats_of(variant, config)
        names = list(info.default_lineup(variant))
        if len(names) != n:
            names = [info.fallback_baseline] * n
        return info.make(variant, config, seed, names, None)
    return info.make(variant, config, seed, [s.policy_name for s in seats],
                     [s.seat_kind() for s in seats])


def plans(seat_rows: Sequence[Mapping[str, Any]]) -> list[SeatPlan]:
    """Seat rows of the store, in seat order, as plans."""
    return [SeatPlan(r["policy_name"], r["kind"], r.get("baseline"))
            for r in sorted(seat_rows, key=lambda r: r["seat"])]
