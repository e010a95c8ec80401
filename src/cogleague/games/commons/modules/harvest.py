"""Harvest (rules §7.2): fish patches that regrow logistically and die below one fish.

Taking = ``harvest`` from the named ``patch``; maintaining = leaving stock (effort
``3 − harvest``; a pass counts 0). Property rights decide who may take from a patch:
``open`` everyone, ``closed`` its owner only, ``partnership`` its pair, and only in a round in
which both partners name that patch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cogleague.games.commons.modules.common import (
    EFFORT_BUDGET,
    INT,
    PATCH,
    Clamp,
    ModuleEvent,
    Move,
    Outcome,
    pro_rata,
)

if TYPE_CHECKING:
    from cogleague.games.commons.config import CommonsConfig
    from cogleague.games.commons.setup import Setup

NAME = "harvest"
LEGAL_ACTIONS: dict[str, Any] = {"patch": "patch id", "harvest": [0, 3]}
"""What a seat may send in this module (`Turn.legal_actions`)."""
CLAMPS: tuple[Clamp, ...] = (("harvest", INT, None), ("patch", PATCH, None))
"""How a reply becomes this module's fields (rules §5; `common.Clamp`)."""
INITIAL_STOCK = 12.0
PATCH_CAPACITY = 20.0
PATCH_REGROWTH = 0.4
DEATH_THRESHOLD = 1.0
PROPERTY_RIGHTS = ("open", "closed", "partnership")
MAX_GROWTH = PATCH_REGROWTH * PATCH_CAPACITY / 4
"""The most a patch can regrow in one round (at half capacity): 2.0."""


@dataclass(slots=True)
class HarvestState:
    stocks: list[float]
    dead: list[bool]
    owner: list[int]
    """owner[p]: the slot that owns patch p (closed rights)."""
    pairs: list[list[int]]
    """pairs[k]: the two partner slots of pair k; patch p belongs to pair p // 2."""
    property_rights: str = "open"
    collapse_round: int | None = None
    holder_slots: list[list[int]] | None = None
    """holder_slots[p]: `holders(state, p)`, fixed for the episode (filled on first use)."""

    def clone(self) -> HarvestState:
        return HarvestState(list(self.stocks), list(self.dead), self.owner, self.pairs,
                            self.property_rights, self.collapse_round, self.holder_slots)

    def to_json(self) -> dict[str, Any]:
        return {"stocks": list(self.stocks), "dead": list(self.dead), "owner": list(self.owner),
                "pairs": [list(p) for p in self.pairs], "property_rights": self.property_rights,
                "collapse_round": self.collapse_round}


def initial_state(patch_count: int, owner: list[int], pairs: list[list[int]],
                  property_rights: str) -> HarvestState:
    return HarvestState([INITIAL_STOCK] * patch_count, [False] * patch_count, list(owner),
                        [list(p) for p in pairs], property_rights)


def regrow(stock: float) -> float:
    """Logistic regrowth of a live patch: 10 → 12.0; at most +2.0 (at 10), capped at 20."""
    return min(PATCH_CAPACITY, stock + PATCH_REGROWTH * stock * (1 - stock / PATCH_CAPACITY))


def holders(state: HarvestState, patch: int) -> list[int]:
    """Slots allowed to take from `patch` ([] = everyone, open rights), ascending, unique."""
    if state.holder_slots is None:
        state.holder_slots = [_holders(state, p) for p in range(len(state.stocks))]
    return state.holder_slots[patch]


def _holders(state: HarvestState, patch: int) -> list[int]:
    if state.property_rights == "closed":
        return [state.owner[patch]]
    if state.property_rights == "partnership":
        return sorted(set(state.pairs[patch // 2]))
    return []


def held_patches(state: HarvestState, moves: Sequence[Move]) -> set[int]:
    """Partnership: patches whose every partner named them this round (harvest 0 counts)."""
    named: dict[int, set[int]] = {}
    for slot, m in enumerate(moves):
        if m["patch"] is not None:
            named.setdefault(m["patch"], set()).add(slot)
    return {p for p, who in named.items() if set(state.pairs[p // 2]) <= who}


def resolve(state: HarvestState, moves: Sequence[Move], r: int) -> Outcome:
    """Seats ascending: void demands on dead or forbidden patches, then share each patch's
    stock pro rata among its surviving demands, by patch index. Gain = extracted."""
    n = len(moves)
    events: list[ModuleEvent] = []
    rights = state.property_rights
    held = held_patches(state, moves) if rights == "partnership" else set()
    demands: dict[int, list[tuple[int, int]]] = {}
    effort = [0] * n
    for slot, m in enumerate(moves):
        p = m["patch"]
        if p is None:  # a pass names nothing and counts no effort
            continue
        h = m["harvest"]
        effort[slot] = EFFORT_BUDGET - h
        if h <= 0:
            continue
        if state.dead[p]:
            events.append(("void", {"slot": slot, "cause": "dead", "patch": p, "amount": h}))
            continue
        if rights == "closed" and state.owner[p] != slot:
            events.append(("trespass", {"slot": slot, "patch": p, "amount": h}))
            continue
        if rights == "partnership":
            if slot not in state.pairs[p // 2]:
                events.append(("trespass", {"slot": slot, "patch": p, "amount": h}))
                continue
            if p not in held:
                events.append(("unheld", {"slot": slot, "patch": p, "amount": h}))
                continue
        demands.setdefault(p, []).append((slot, h))
    gains = [0.0] * n
    for p in sorted(demands):
        who = demands[p]
        got, state.stocks[p] = pro_rata([h for _, h in who], state.stocks[p])
        for (slot, _), g in zip(who, got, strict=True):
            gains[slot] += g
    return Outcome(gains=gains, extracted=list(gains), effort=effort, events=events)


def dynamics(state: HarvestState, moves: Sequence[Move], r: int) -> list[ModuleEvent]:
    """Each live patch dies below one fish (stock → 0.0, for good) or regrows; when the last
    patch dies, one `collapse` event."""
    events: list[ModuleEvent] = []
    died = False
    for p, s in enumerate(state.stocks):
        if state.dead[p]:
            continue
        if s < DEATH_THRESHOLD:
            state.stocks[p] = 0.0
            state.dead[p] = True
            died = True
            events.append(("patch_dead", {"patch": p}))
        else:
            state.stocks[p] = regrow(s)
    if died and all(state.dead):
        state.collapse_round = r
        events.append(("collapse", {}))
    return events


def residual(state: HarvestState) -> float:
    return sum(state.stocks)


def collapse_round(state: HarvestState) -> int | None:
    return state.collapse_round


def dead_patches(state: HarvestState) -> list[int]:
    return [p for p, d in enumerate(state.dead) if d]


def observe(state: HarvestState, slot: int, r: int, aliases: Sequence[str]) -> dict[str, Any]:
    """`module_state` for one seat: holders as aliases, the seat's own patches."""
    return {**observe_public(state, aliases), **observe_own(state, slot, r)}


def observe_own(state: HarvestState, slot: int, r: int) -> dict[str, Any]:
    """The seat-specific part of `module_state`: the patches it may take from."""
    return {"your_patches": own_patches(state, slot)}


def observe_public(state: HarvestState, aliases: Sequence[str]) -> dict[str, Any]:
    """The part of `module_state` every seat shares."""
    patches = [{"id": p, "stock": s, "dead": state.dead[p],
                "holders": sorted(aliases[h] for h in holders(state, p))}
               for p, s in enumerate(state.stocks)]
    return {"property_rights": state.property_rights, "patch_capacity": PATCH_CAPACITY,
            "patch_regrowth": PATCH_REGROWTH, "patches": patches,
            "dead_patches": dead_patches(state)}


def own_patches(state: HarvestState, slot: int) -> list[int]:
    """The patches `slot` may take from ([] under open rights: everyone may take anywhere)."""
    if state.property_rights == "open":
        return []
    return [p for p in range(len(state.stocks)) if slot in holders(state, p)]


def compact(move: Move) -> str:
    """Ledger shorthand, e.g. ``p3 h:2``."""
    return f"p{move['patch']} h:{move['harvest']}"


# -- the hooks the engine calls (every module has them; see `modules/__init__.py`) ------------
def initial(config: CommonsConfig, setup: Setup) -> HarvestState:
    """The state at the start of an episode, from the config and the seeded deal."""
    return initial_state(config.patch_count, setup.owner, setup.pairs, config.property_rights)


def round_view(state: HarvestState) -> dict[str, Any]:
    """The module's fields of the baselines' `RoundView`."""
    return {"rights": state.property_rights,
            "patches": [(p, s, d) for p, (s, d) in enumerate(zip(state.stocks, state.dead,
                                                                 strict=True))]}


def favorites(state: HarvestState, n: int) -> list[str]:
    """Every seat's favourite colour (none in this module: red stands in)."""
    return ["red"] * n


def frozen(state: HarvestState, r: int, n: int) -> list[bool]:
    """Nobody is ever voided in this module."""
    return [False] * n
