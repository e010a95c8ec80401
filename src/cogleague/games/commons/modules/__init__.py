"""The four resource physics of Commons Family (rules §7), one small module each.

Every module exposes the same functions, so the engine (and the planner) can drive any of them:

- named rule constants (e.g. ``cleanup.SILT_RATE``) and a state dataclass with ``clone()`` and
  ``to_json()``;
- ``resolve(state, moves, r) -> Outcome``: step 5 of a round — pays gains ≥ 0, reports what was
  physically extracted and each seat's effort units, mutating `state`;
- ``dynamics(state, moves, r) -> list[ModuleEvent]``: step 7 — regrow / silt / ripen / spawn
  and latch permanent deaths, mutating `state`;
- ``residual(state)`` (what the resource still holds), ``collapse_round(state)``,
  ``observe(state, slot, r, aliases)`` (the seat's ``module_state`` — the merge of
  ``observe_public(state, aliases)``, shared by every seat, and ``observe_own(state, slot, r)``,
  that seat's private part) and ``compact(move)`` (ledger shorthand);
- the hooks the engine calls instead of asking which module it runs: ``LEGAL_ACTIONS``,
  ``initial(config, setup)``, ``round_view(state)`` (the baselines' `RoundView` fields),
  ``favorites(state, n)``, ``own_patches(state, slot)``, ``dead_patches(state)`` and
  ``frozen(state, r, n)`` (the seats voided this round). The baselines' yardstick
  (rules §10, sustainable take) is computed from the observation (`baselines.view`).

`moves` is one clamped decision per slot (`actions.clamp`).
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

from cogleague.games.commons.modules import allelopathic, cleanup, harvest, mushrooms

if TYPE_CHECKING:
    from cogleague.games.commons.config import CommonsConfig
    from cogleague.games.commons.setup import Setup

MODULES: dict[str, ModuleType] = {
    "cleanup": cleanup,
    "harvest": harvest,
    "allelopathic": allelopathic,
    "mushrooms": mushrooms,
}
"""Module name → physics module, in the order the rules list them."""


def new_state(config: CommonsConfig, setup: Setup) -> Any:
    """The module's state at the start of an episode (rules §7), from the config and the
    seeded deal (favourites, patch owners and pairs)."""
    return MODULES[config.module].initial(config, setup)
