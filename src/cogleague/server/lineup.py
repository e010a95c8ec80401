"""Building a table's game from its seats, the way each game wants its line-up named.

`GameInfo.make` takes policy names. Names of remote accounts are free text, and Ledger checks
its line-up (a name must be a baseline, ``llm…`` or a bot reference) unless the seats come as
``overrides["seats"] = [{policy_name, driver}, …]`` — its documented form for servers
(ledger.md, `games/ledger/config.build_config`). This module is the one place that knows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cogleague.core.game import Game
from cogleague.games.registry import GameInfo

SEAT_SPEC_GAMES = ("ledger",)
"""Games whose config takes the line-up as ``seats: [{policy_name, driver}]``."""

_DRIVERS = {"remote": "remote", "llm": "model"}


@dataclass(frozen=True)
class SeatPlan:
    policy_name: str
    kind: str  # remote | llm | scripted
    baseline: str | None = None

    def driver(self) -> str:
        return f"scripted:{self.baseline}" if self.kind == "scripted" else _DRIVERS[self.kind]


def build_game(info: GameInfo, variant: str | None, config: Mapping[str, Any], seed: int,
               seats: Sequence[SeatPlan] | None) -> Game:
    """The table's game. `seats` None: a probe with the game's default line-up (at creation,
    before anyone joined), used for validation, aliases and the public config."""
    if seats is None:
        n = info.seats_for(variant, config)
        names = list(info.default_lineup(variant))
        if len(names) != n:
            names = [info.fallback_baseline] * n
        return info.make(variant, config, seed, names)
    names = [s.policy_name for s in seats]
    if info.name in SEAT_SPEC_GAMES:
        specs = [{"policy_name": s.policy_name, "driver": s.driver()} for s in seats]
        return info.make(variant, {**config, "seats": specs}, seed, names)
    return info.make(variant, config, seed, names)


def plans(seat_rows: Sequence[Mapping[str, Any]]) -> list[SeatPlan]:
    """Seat rows of the store, in seat order, as plans."""
    return [SeatPlan(r["policy_name"], r["kind"], r.get("baseline"))
            for r in sorted(seat_rows, key=lambda r: r["seat"])]
