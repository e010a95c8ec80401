"""The SDK bots the season tests run as remote agents: one class per table, by game."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cogleague.client import Bot, TurnInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from commons_bot import Steward
from dilemma_bot import PromiseKeeper
from ledger_bot import FairDealer


class Either(Bot):
    """Plays the example bot of whichever game its table is (an agent may play several)."""

    name = "either"

    def __init__(self) -> None:
        self.bots: dict[str, Bot] = {"dilemma": PromiseKeeper(), "commons": Steward(),
                                     "ledger": FairDealer()}

    def on_turn(self, turn: TurnInfo) -> Any:
        return self.bots[turn.game].on_turn(turn)
