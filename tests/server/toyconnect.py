"""A paid toy game that declares a connect timeout (`ConnectTimeout`): what a plugin game does
to get the ``no_players`` ending, with no host naming it (`Settings.extra_games`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogleague.core.config import check_int, check_number, reject_unknown
from cogleague.core.descriptor import ConnectTimeout, GameDescriptor, PaidTables
from cogleague.core.options import Option, option_model
from server.toyinfo import ServedToy


class PaidToy(ServedToy):
    def __init__(self, seats: int, seed: int, policy_names: Sequence[str], stake: int,
                 connect_s: float | None) -> None:
        super().__init__(seats, 2, 0.5, seed, policy_names)
        self.stake, self.connect_s = stake, connect_s

    def public_config(self) -> dict[str, Any]:
        return {**super().public_config(), "stake": self.stake, "rake_bps": 0,
                "connect_s": self.connect_s}


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str], seat_kinds: Sequence[str] | None = None) -> PaidToy:
    reject_unknown("toyconnect config", overrides, ("seats", "stake", "connect_s"))
    seats = check_int("seats", overrides.get("seats", len(policy_names)), 1, 8)
    stake = check_int("stake", overrides.get("stake", 0), 0, 10**9)
    connect = overrides.get("connect_s")
    connect_s = None if connect is None else check_number("connect_s", connect, 0.1, 60.0)
    return PaidToy(seats, seed or 0, policy_names, stake, connect_s)


Options = option_model("ToyConnectOptions", {
    "seats": Option(int, "seats at the table", 1, 8),
    "connect_s": Option(float, "seconds to wait for the first seat", 0.1, 60.0),
})

GAME = GameDescriptor(
    name="toyconnect", version="toyconnect-1", title="Toy (paid, connect timeout)",
    options=Options, make=make, variants=["standard"], default_variant=None, seat_range=(1, 8),
    baselines=[f"const{i}" for i in range(10)], fallback_baseline="const0",
    default_lineup=lambda v: ["const1", "const2"],
    replay_format="toy.replay.v1", replay_document=lambda game, log: game.replay_document(log),
    seats_for=lambda v, o: int(o.get("seats", 2)), paid_tables=PaidTables(),
    connect_timeout=ConnectTimeout(option="connect_s"))
