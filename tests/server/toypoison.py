"""A paid toy game with a parser bug a seat can exploit: it turns the escape text ``\\ud800``
of a move's `note` into the character itself, a lone surrogate no database stores. It stands
for any way a seat's text could slip past the server's boundary check (`textguard`): the log
row of that step cannot be written, and the table must end without hurting its neighbours and
without the offending seat voiding the pot (`server/forfeit.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogleague.core.config import check_int, reject_unknown
from cogleague.core.descriptor import GameDescriptor, PaidTables
from cogleague.core.game import Parsed, Turn
from cogleague.core.options import Option, option_model
from server.toyinfo import ServedToy


class PoisonToy(ServedToy):
    def __init__(self, seats: int, rounds: int, seed: int, policy_names: Sequence[str],
                 stake: int) -> None:
        super().__init__(seats, rounds, 10.0, seed, policy_names)
        self.stake = stake

    def parse(self, turn: Turn, raw: Any) -> Parsed:
        parsed = super().parse(turn, raw)
        note = raw.get("note") if isinstance(raw, dict) else None
        if isinstance(note, str):  # the bug: escapes in the text become characters
            note = note.encode("latin-1", "backslashreplace").decode("unicode_escape")
            return Parsed({**parsed.action, "note": note}, clamped=parsed.clamped)
        return parsed

    def public_config(self) -> dict[str, Any]:
        return {**super().public_config(), "stake": self.stake, "rake_bps": 0}


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str], seat_kinds: Sequence[str] | None = None) -> PoisonToy:
    reject_unknown("toypoison config", overrides, ("seats", "rounds", "stake"))
    seats = check_int("seats", overrides.get("seats", len(policy_names)), 2, 8)
    rounds = check_int("rounds", overrides.get("rounds", 3), 1, 1000)
    stake = check_int("stake", overrides.get("stake", 0), 0, 10**9)
    return PoisonToy(seats, rounds, seed or 0, policy_names, stake)


Options = option_model("ToyPoisonOptions", {
    "seats": Option(int, "seats at the table", 2, 8),
    "rounds": Option(int, "rounds", 1, 1000),
})

GAME = GameDescriptor(
    name="toypoison", version="toypoison-1", title="Toy (paid, a parser a seat can poison)",
    options=Options, make=make, variants=["standard"], default_variant=None, seat_range=(2, 8),
    baselines=[f"const{i}" for i in range(10)], fallback_baseline="const0",
    default_lineup=lambda v: ["const1", "const2"],
    replay_format="toy.replay.v1", replay_document=lambda game, log: game.replay_document(log),
    seats_for=lambda v, o: int(o.get("seats", 2)), paid_tables=PaidTables())
