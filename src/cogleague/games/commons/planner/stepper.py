"""One round of the real physics for the planner: clamp, resolve, dynamics — nothing else.

The planner never re-states a rule. It drives the engine's own pieces: `actions.Validator`
turns a raw decision into the move the engine would see, and the module's `resolve` and
`dynamics` (rules §4 steps 5 and 7) settle it. Plans carry no sanctions and no chat, so steps
4, 6 and 8 add nothing to welfare; `simulate` replays the final plan through the whole engine
to confirm the figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogleague.games.commons.actions import Validator
from cogleague.games.commons.config import CommonsConfig
from cogleague.games.commons.modules import MODULES, new_state
from cogleague.games.commons.setup import Setup, deal

Raw = dict[str, Any]
"""One seat's raw decision, as a plan holds it."""


class Stepper:
    """The physics of one config: its initial state and a pure `step` on clones."""

    def __init__(self, config: CommonsConfig) -> None:
        self.config = config
        self.n = config.num_players
        self.rounds = config.rounds
        self.setup: Setup = deal(config.seed, config.num_players, config.patch_count)
        self.module = MODULES[config.module]
        self._validator = Validator(config, self.setup.aliases)
        self._moves: dict[tuple[int, tuple[tuple[str, Any], ...]], dict[str, Any]] = {}

    def initial(self) -> Any:
        return new_state(self.config, self.setup)

    def move(self, slot: int, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The clamped move the engine would make of `raw` (memoised; never mutated)."""
        key = (slot, tuple(sorted(raw.items())))
        m = self._moves.get(key)
        if m is None:
            m, _ = self._validator.clamp(raw, self.setup.aliases[slot])
            self._moves[key] = m
        return m

    def step(self, state: Any, joint: Sequence[Mapping[str, Any]], r: int) -> tuple[Any, float]:
        """Settle round `r` from `state` (left untouched): the next state and Σ gains."""
        moves = [self.move(s, raw) for s, raw in enumerate(joint)]
        nxt = state.clone()
        out = self.module.resolve(nxt, moves, r)
        self.module.dynamics(nxt, moves, r)
        return nxt, sum(out.gains)

    def residual(self, state: Any) -> float:
        return float(self.module.residual(state))
