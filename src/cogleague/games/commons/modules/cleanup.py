"""Cleanup (rules §7.1): an orchard whose regrowth falls as pollution rises.

Taking = ``harvest`` apples; maintaining = ``clean`` (each unit removes 0.05 pollution).
Silt adds 0.12 pollution every round, dead or not. Below 10 apples the orchard dies for good:
no more regrowth, but leftovers can still be picked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cogleague.games.commons.modules.common import (
    INT,
    Clamp,
    ModuleEvent,
    Move,
    Outcome,
    clamp01,
    pro_rata,
)

if TYPE_CHECKING:
    from cogleague.games.commons.config import CommonsConfig
    from cogleague.games.commons.setup import Setup

NAME = "cleanup"
LEGAL_ACTIONS: dict[str, Any] = {"harvest": [0, 3], "clean": [0, 3], "budget": 3}
"""What a seat may send in this module (`Turn.legal_actions`)."""
CLAMPS: tuple[Clamp, ...] = (("harvest", INT, None), ("clean", INT, "harvest"))
"""How a reply becomes this module's fields (rules §5; `common.Clamp`)."""
INITIAL_APPLES = 60.0
CAPACITY = 100.0
INITIAL_POLLUTION = 0.30
SILT_RATE = 0.12
CLEAN_POWER = 0.05
REGROWTH = 0.35
COLLAPSE_THRESHOLD = 10.0


@dataclass(slots=True)
class CleanupState:
    apples: float = INITIAL_APPLES
    pollution: float = INITIAL_POLLUTION
    dead: bool = False
    collapse_round: int | None = None
    cleaned_last_round: int = 0

    def clone(self) -> CleanupState:
        return CleanupState(self.apples, self.pollution, self.dead, self.collapse_round,
                            self.cleaned_last_round)

    def to_json(self) -> dict[str, Any]:
        return {"apples": self.apples, "pollution": self.pollution, "dead": self.dead,
                "collapse_round": self.collapse_round,
                "cleaned_last_round": self.cleaned_last_round}


def initial_state() -> CleanupState:
    return CleanupState()


def effective_regrowth(pollution: float) -> float:
    """The logistic rate at this pollution: 0.35 at 0, 0.245 at 0.3, 0 at 1."""
    return REGROWTH * (1 - pollution)


def next_pollution(pollution: float, cleaned: int) -> float:
    """One round of silt minus cleaning, kept in 0..1."""
    return clamp01(pollution + SILT_RATE - CLEAN_POWER * cleaned)


def regrow(apples: float, pollution: float) -> float:
    """Logistic regrowth of a live orchard at the (new) pollution, capped at 100."""
    return min(CAPACITY, apples + REGROWTH * (1 - pollution) * apples * (1 - apples / CAPACITY))


def resolve(state: CleanupState, moves: Sequence[Move], r: int) -> Outcome:
    """Harvest demands share the apples pro rata; gain = extracted; effort = clean."""
    got, state.apples = pro_rata([m["harvest"] for m in moves], state.apples)
    return Outcome(gains=got, extracted=list(got), effort=[m["clean"] for m in moves])


def dynamics(state: CleanupState, moves: Sequence[Move], r: int) -> list[ModuleEvent]:
    """Silt and cleaning, then the death latch, then regrowth with the new pollution."""
    cleaned = sum(m["clean"] for m in moves)
    state.cleaned_last_round = cleaned
    state.pollution = next_pollution(state.pollution, cleaned)
    events: list[ModuleEvent] = []
    if not state.dead and state.apples < COLLAPSE_THRESHOLD:
        state.dead = True
        state.collapse_round = r
        events.append(("collapse", {"apples": state.apples}))
    if not state.dead:
        state.apples = regrow(state.apples, state.pollution)
    return events


def residual(state: CleanupState) -> float:
    return state.apples


def collapse_round(state: CleanupState) -> int | None:
    return state.collapse_round


def observe(state: CleanupState, slot: int, r: int, aliases: Sequence[str]) -> dict[str, Any]:
    """`module_state` for one seat (the same for everyone)."""
    return {**observe_public(state, aliases), **observe_own(state, slot, r)}


def observe_own(state: CleanupState, slot: int, r: int) -> dict[str, Any]:
    """The seat-specific part of `module_state` (none in cleanup)."""
    return {}


def observe_public(state: CleanupState, aliases: Sequence[str]) -> dict[str, Any]:
    """The part of `module_state` every seat shares."""
    return {"apples": state.apples, "capacity": CAPACITY, "pollution": state.pollution,
            "effective_regrowth": effective_regrowth(state.pollution),
            "collapse_threshold": COLLAPSE_THRESHOLD, "silt_rate": SILT_RATE,
            "clean_power": CLEAN_POWER, "dead": state.dead,
            "cleaned_last_round": state.cleaned_last_round}


def compact(move: Move) -> str:
    """Ledger shorthand, e.g. ``h:1 c:0``."""
    return f"h:{move['harvest']} c:{move['clean']}"


# -- the hooks the engine calls (every module has them; see `modules/__init__.py`) ------------
def initial(config: CommonsConfig, setup: Setup) -> CleanupState:
    """The state at the start of an episode, from the config and the seeded deal."""
    return initial_state()


def round_view(state: CleanupState) -> dict[str, Any]:
    """The module's fields of the baselines' `RoundView`."""
    return {"apples": state.apples, "pollution": state.pollution}


def favorites(state: CleanupState, n: int) -> list[str]:
    """Every seat's favourite colour (none in this module: red stands in)."""
    return ["red"] * n


def own_patches(state: CleanupState, slot: int) -> list[int]:
    """No patches in this module."""
    return []


def dead_patches(state: CleanupState) -> list[int]:
    """No patches in this module."""
    return []


def frozen(state: CleanupState, r: int, n: int) -> list[bool]:
    """Nobody is ever voided in this module."""
    return [False] * n
