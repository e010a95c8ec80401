"""What a turn carries for in-process readers (scripted baselines, the fallback): the live
table (read-only by convention) and the seat's slot this round. Building it costs nothing, so
scripted seats never pay for the observation, which is built on first use only."""

from __future__ import annotations

import random
from typing import Any

from cogleague.core import rng
from cogleague.games.ledger.observation import build_observation
from cogleague.games.ledger.prompt import render_prompt
from cogleague.games.ledger.schedule import Slot
from cogleague.games.ledger.table import Table


class TurnContext:
    __slots__ = ("_observation", "round", "rounds", "seat", "seed", "slot", "table")

    def __init__(self, table: Table, seat: int, round_index: int, slot: Slot, seed: int) -> None:
        self.table = table
        self.seat = seat
        self.round = round_index
        self.rounds = table.max_rounds
        self.slot = slot
        self.seed = seed
        self._observation: dict[str, Any] | None = None

    def seat_stream(self) -> random.Random:
        """A fresh `ledger:{seed}:seat:{s}:round:{r}` stream for this scripted decision (§4)."""
        return rng.stream(f"ledger:{self.seed}:seat:{self.seat}:round:{self.round}")

    def observation(self) -> dict[str, Any]:
        """The §12 observation (built once; the turn's `view`)."""
        if self._observation is None:
            self._observation = build_observation(self)
        return self._observation

    def prompt(self, observation: dict[str, Any] | None = None) -> str:
        """The §12 text rendering of the same observation (the turn's `prompt_text`)."""
        return render_prompt(observation if observation is not None else self.observation())
