"""Allelopathic (rules §7.3): a 60-slot berry field whose colours crowd each other out.

Taking = ``eat`` ripe berries of one colour (2.0 each in your favourite colour, else 1.0);
maintaining = ``plant``: each unit converts one slot of the most-planted *other* colour into
the planted colour. Ripening grows with the square of a colour's share, so a field converging
on one colour feeds everyone best — but whose colour?
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cogleague.games.commons.modules.common import (
    COLOR,
    COLOR_INDEX,
    COLORS,
    INT,
    Clamp,
    ModuleEvent,
    Move,
    Outcome,
    pro_rata,
)

if TYPE_CHECKING:
    from cogleague.games.commons.config import CommonsConfig
    from cogleague.games.commons.setup import Setup

NAME = "allelopathic"
LEGAL_ACTIONS: dict[str, Any] = {"eat": [0, 3], "eat_color": ["red", "green", "blue"],
                                 "plant": [0, 3], "plant_color": ["red", "green", "blue"],
                                 "budget": 3}
"""What a seat may send in this module (`Turn.legal_actions`)."""
CLAMPS: tuple[Clamp, ...] = (("eat", INT, None), ("eat_color", COLOR, None), ("plant", INT, "eat"),
                                ("plant_color", COLOR, "eat_color"))
"""How a reply becomes this module's fields (rules §5; `common.Clamp`)."""
FIELD_SIZE = 60
INITIAL_PLANTED = 20
INITIAL_RIPE = 6.0
RIPEN_BASE = 0.5
FAVORITE_BONUS = 2.0
"""Payoff of one berry of the eater's favourite colour (any other colour pays 1.0)."""
OTHER_PAYOFF = 1.0


@dataclass(slots=True)
class AllelopathicState:
    planted: list[int]
    ripe: list[float]
    favorites: list[str]
    """favorites[slot]: that seat's favourite colour (private to it)."""
    barren: bool = False

    def clone(self) -> AllelopathicState:
        return AllelopathicState(list(self.planted), list(self.ripe), self.favorites,
                                 self.barren)

    def to_json(self) -> dict[str, Any]:
        return {"planted": list(self.planted), "ripe": list(self.ripe), "barren": self.barren}


def initial_state(favorites: Sequence[str]) -> AllelopathicState:
    return AllelopathicState([INITIAL_PLANTED] * 3, [INITIAL_RIPE] * 3, list(favorites))


def ripen_amount(planted: int) -> float:
    """Berries a colour with `planted` slots ripens per round (before the cap at `planted`)."""
    return RIPEN_BASE * planted * planted / FIELD_SIZE


OTHER_COLORS = ((1, 2), (0, 2), (0, 1))
"""OTHER_COLORS[c]: the two other colour indices, canonical order."""


def plant_source(planted: Sequence[int], target: int) -> int:
    """The colour a unit planted as `target` converts: the larger of the two others by
    `planted`, ties canonical."""
    a, b = OTHER_COLORS[target]
    return b if planted[b] > planted[a] else a


def plurality(planted: Sequence[int]) -> int:
    """The most-planted colour index (ties canonical)."""
    best = 0
    for c in (1, 2):
        if planted[c] > planted[best]:
            best = c
    return best


def resolve(state: AllelopathicState, moves: Sequence[Move], r: int) -> Outcome:
    """Eating per colour (canonical) pro rata over the ripe berries; then planting, seats
    ascending, one unit at a time. Planting pays nothing; void units still count as effort."""
    n = len(moves)
    gains = [0.0] * n
    extracted = [0.0] * n
    events: list[ModuleEvent] = []
    for c, colour in enumerate(COLORS):
        who = [s for s, m in enumerate(moves) if m["eat"] > 0 and m["eat_color"] == colour]
        if not who:
            continue
        got, state.ripe[c] = pro_rata([moves[s]["eat"] for s in who], state.ripe[c])
        for s, g in zip(who, got, strict=True):
            extracted[s] += g
            gains[s] += g * (FAVORITE_BONUS if state.favorites[s] == colour else OTHER_PAYOFF)
    planted, ripe = state.planted, state.ripe
    for s, m in enumerate(moves):
        units = m["plant"]
        if units <= 0:
            continue
        target = COLOR_INDEX[m["plant_color"]]
        void = 0
        for _ in range(units):
            src = plant_source(planted, target)
            if planted[src] == 0:
                void += 1
                continue
            planted[src] -= 1
            planted[target] += 1
            ripe[src] = min(ripe[src], planted[src])
        if void:
            events.append(("void", {"slot": s, "cause": "no_source", "units": void,
                                    "color": m["plant_color"]}))
    return Outcome(gains=gains, extracted=extracted, effort=[m["plant"] for m in moves],
                   events=events)


def dynamics(state: AllelopathicState, moves: Sequence[Move], r: int) -> list[ModuleEvent]:
    """Note a barren field (not permanent), then every colour ripens, capped at its slots."""
    events: list[ModuleEvent] = []
    state.barren = sum(state.ripe) == 0
    if state.barren:
        events.append(("barren", {}))
    for c in range(3):
        p = state.planted[c]
        state.ripe[c] = min(p, state.ripe[c] + ripen_amount(p))
    return events


def residual(state: AllelopathicState) -> float:
    return sum(state.ripe)


def collapse_round(state: AllelopathicState) -> int | None:
    return None


def observe(state: AllelopathicState, slot: int, r: int,
            aliases: Sequence[str]) -> dict[str, Any]:
    """`module_state` for one seat: only its own favourite colour."""
    return {**observe_public(state, aliases), **observe_own(state, slot, r)}


def observe_own(state: AllelopathicState, slot: int, r: int) -> dict[str, Any]:
    """The seat-specific part of `module_state`: its own favourite colour only."""
    return {"your_favorite": state.favorites[slot]}


def observe_public(state: AllelopathicState, aliases: Sequence[str]) -> dict[str, Any]:
    """The part of `module_state` every seat shares."""
    return {"planted": dict(zip(COLORS, state.planted, strict=True)),
            "ripe": dict(zip(COLORS, state.ripe, strict=True)), "field_size": FIELD_SIZE,
            "ripen_base": RIPEN_BASE, "favorite_bonus": FAVORITE_BONUS, "barren": state.barren}


def compact(move: Move) -> str:
    """Ledger shorthand, e.g. ``e:g2 p:r1``."""
    return f"e:{move['eat_color'][0]}{move['eat']} p:{move['plant_color'][0]}{move['plant']}"


# -- the hooks the engine calls (every module has them; see `modules/__init__.py`) ------------
def initial(config: CommonsConfig, setup: Setup) -> AllelopathicState:
    """The state at the start of an episode, from the config and the seeded deal."""
    return initial_state(setup.favorites)


def round_view(state: AllelopathicState) -> dict[str, Any]:
    """The module's fields of the baselines' `RoundView`."""
    return {"planted": state.planted, "ripe": state.ripe}


def favorites(state: AllelopathicState, n: int) -> list[str]:
    """Every seat's favourite colour (private to it)."""
    return list(state.favorites)


def own_patches(state: AllelopathicState, slot: int) -> list[int]:
    """No patches in this module."""
    return []


def dead_patches(state: AllelopathicState) -> list[int]:
    """No patches in this module."""
    return []


def frozen(state: AllelopathicState, r: int, n: int) -> list[bool]:
    """Nobody is ever voided in this module."""
    return [False] * n
