"""Mushrooms (rules §7.4): three colours that pay in different directions.

Red pays the eater alone; green shares ``2k/N`` with every cog; blue gives ``3k/(N−1)`` to every
*other* cog and nothing to the eater. Eating ``k`` units makes the eater digest for ``ceil(k)``
rounds. Maintenance = eating green or blue (pro-social), so effort = ``eat`` for those colours.
Three mushrooms spawn per round, weighted towards the colours eaten most.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from cogleague.games.commons.modules.common import (
    COLOR,
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

NAME = "mushrooms"
LEGAL_ACTIONS: dict[str, Any] = {"eat": [0, 3], "eat_color": ["red", "green", "blue"]}
"""What a seat may send in this module (`Turn.legal_actions`)."""
CLAMPS: tuple[Clamp, ...] = (("eat", INT, None), ("eat_color", COLOR, None))
"""How a reply becomes this module's fields (rules §5; `common.Clamp`)."""
INITIAL_COUNT = 8.0
COLOR_CAP = 15.0
CAPACITY = 30.0
SPAWN_PER_ROUND = 3
RED_PAYOFF = 1.0
"""Per unit, to the eater."""
GREEN_PAYOFF = 2.0
"""Per unit, shared equally by all N cogs (eater included)."""
BLUE_PAYOFF = 3.0
"""Per unit, shared equally by the N − 1 other cogs (eater gets nothing)."""
PAYOFF_TEXT = ("red: k to the eater; green: 2k/N to every cog (eater included); "
               "blue: 3k/(N-1) to every other cog, 0 to the eater; eating k digests ceil(k) "
               "rounds")


@dataclass(slots=True)
class MushroomsState:
    counts: list[float]
    eaten_total: list[float]
    frozen_until: list[int]
    """frozen_until[slot]: the seat digests (is voided) in rounds r < frozen_until."""

    def clone(self) -> MushroomsState:
        return MushroomsState(list(self.counts), list(self.eaten_total), list(self.frozen_until))

    def to_json(self) -> dict[str, Any]:
        return {"counts": list(self.counts), "eaten_total": list(self.eaten_total),
                "frozen_until": list(self.frozen_until)}


def initial_state(num_players: int) -> MushroomsState:
    return MushroomsState([INITIAL_COUNT] * 3, [0.0] * 3, [0] * num_players)


def digesting(state: MushroomsState, slot: int, r: int) -> bool:
    return r < state.frozen_until[slot]


def resolve(state: MushroomsState, moves: Sequence[Move], r: int) -> Outcome:
    """Digesting seats are voided; each colour (canonical) is shared pro rata over its count;
    payoffs flow per colour; eaters start digesting; `eaten_total` grows.

    One pass sorts the eaters by colour (in slot order); each gain is then raised in place by
    the same float additions, in the same order, as building the list anew would make."""
    n = len(moves)
    gains = [0.0] * n
    extracted = [0.0] * n
    effort = [0] * n
    events: list[ModuleEvent] = []
    flow: list[dict[str, Any]] = []
    frozen = state.frozen_until
    by_colour: dict[str, list[int]] = {"red": [], "green": [], "blue": []}
    for s, m in enumerate(moves):
        eat = m["eat"]
        if r < frozen[s]:
            if eat > 0:
                events.append(("digesting", {"slot": s, "until": frozen[s]}))
            continue
        if eat > 0:
            colour = m["eat_color"]
            by_colour[colour].append(s)
            if colour != "red":
                effort[s] = eat
    counts, eaten_total = state.counts, state.eaten_total
    seats = range(n)
    for c, colour in enumerate(COLORS):
        who = by_colour[colour]
        if not who:
            continue
        before = counts[c]
        got, counts[c] = pro_rata([moves[s]["eat"] for s in who], before)
        # the colour's eaten total at once (the demands, or the whole count): counts stay
        # whole numbers, so this is exact where summing pro-rata shares one by one is not
        eaten_total[c] += before - counts[c]
        for s, k in zip(who, got, strict=True):
            extracted[s] += k
            if c == 0:
                amount = RED_PAYOFF * k
                gains[s] += amount
                flow.append({"from": s, "to": s, "amount": amount, "kind": colour})
            elif c == 1:
                share = GREEN_PAYOFF * k / n
                for t in seats:
                    gains[t] += share
                flow += [{"from": s, "to": t, "amount": share, "kind": colour} for t in seats]
            else:
                share = BLUE_PAYOFF * k / (n - 1)
                for t in seats:
                    if t != s:
                        gains[t] += share
                flow += [{"from": s, "to": t, "amount": share, "kind": colour} for t in seats
                         if t != s]
    for colour in COLORS:
        for s in by_colour[colour]:
            if extracted[s] > 0:
                frozen[s] = r + math.ceil(extracted[s])
    return Outcome(gains=gains, extracted=extracted, effort=effort, events=events, flow=flow)


def spawn(eaten_total: Sequence[float]) -> list[int]:
    """Three spawns split by weights ``1 + eaten_total``: floors first, then the leftover to
    the largest fractional parts (ties canonical). Quotas and their fractional parts are
    exact fractions, so equal weights always tie (floats could split them by an ulp).

    Eaten totals are whole numbers in play (each colour's total is booked at once), and then
    the quota ``3w / W`` is split exactly in integers: floor ``3w // W``, fractional part
    ``(3w mod W) / W``, compared by its numerator. Any other total takes the `Fraction` path;
    both are the same exact arithmetic."""
    e0, e1, e2 = eaten_total
    if not (float(e0).is_integer() and float(e1).is_integer() and float(e2).is_integer()):
        return spawn_fractions(eaten_total)
    w0, w1, w2 = 1 + int(e0), 1 + int(e1), 1 + int(e2)
    denom = w0 + w1 + w2
    q0, p0 = divmod(SPAWN_PER_ROUND * w0, denom)
    q1, p1 = divmod(SPAWN_PER_ROUND * w1, denom)
    q2, p2 = divmod(SPAWN_PER_ROUND * w2, denom)
    out = [q0, q1, q2]
    left = SPAWN_PER_ROUND - (q0 + q1 + q2)
    if left:  # by remainder descending, ties canonical (a stable sort, reversed, keeps them)
        for c in sorted(range(3), key=(p0, p1, p2).__getitem__, reverse=True)[:left]:
            out[c] += 1
    return out


def spawn_fractions(eaten_total: Sequence[float]) -> list[int]:
    """`spawn` on `Fraction`s (any eaten totals)."""
    w = [1 + Fraction(e) for e in eaten_total]
    total = sum(w)
    q = [SPAWN_PER_ROUND * x / total for x in w]
    out = [math.floor(x) for x in q]
    left = SPAWN_PER_ROUND - sum(out)
    for c in sorted(range(3), key=lambda c: (-(q[c] - out[c]), c))[:left]:
        out[c] += 1
    return out


def dynamics(state: MushroomsState, moves: Sequence[Move], r: int) -> list[ModuleEvent]:
    """Spawn, cap each colour at 15, then cut any total above 30 from the fullest colours."""
    a0, a1, a2 = spawn(state.eaten_total)
    counts = state.counts
    c0, c1, c2 = counts[0] + a0, counts[1] + a1, counts[2] + a2
    # min(COLOR_CAP, …) without the call (on a tie both are 15.0)
    counts[0] = COLOR_CAP if c0 > COLOR_CAP else c0
    counts[1] = COLOR_CAP if c1 > COLOR_CAP else c1
    counts[2] = COLOR_CAP if c2 > COLOR_CAP else c2
    excess = sum(counts) - CAPACITY
    if excess > 0:
        # fullest first, ties canonical (a stable sort, reversed, keeps them in order)
        for c in sorted(range(3), key=counts.__getitem__, reverse=True):
            cut = min(excess, counts[c])
            counts[c] -= cut
            excess -= cut
            if excess <= 0:
                break
    return []


def residual(state: MushroomsState) -> float:
    return sum(state.counts)


def collapse_round(state: MushroomsState) -> int | None:
    return None


def observe(state: MushroomsState, slot: int, r: int, aliases: Sequence[str]) -> dict[str, Any]:
    """`module_state` for one seat: only its own digestion."""
    return {**observe_public(state, aliases), **observe_own(state, slot, r)}


def observe_own(state: MushroomsState, slot: int, r: int) -> dict[str, Any]:
    """The seat-specific part of `module_state`: its own digestion."""
    return {"frozen_until": state.frozen_until[slot], "you_may_eat": r >= state.frozen_until[slot]}


def observe_public(state: MushroomsState, aliases: Sequence[str]) -> dict[str, Any]:
    """The part of `module_state` every seat shares."""
    return {"counts": dict(zip(COLORS, state.counts, strict=True)),
            "eaten_total": dict(zip(COLORS, state.eaten_total, strict=True)),
            "capacity": CAPACITY, "color_cap": COLOR_CAP, "spawn_per_round": SPAWN_PER_ROUND,
            "payoff": PAYOFF_TEXT}


def compact(move: Move) -> str:
    """Ledger shorthand, e.g. ``e:b1``."""
    return f"e:{move['eat_color'][0]}{move['eat']}"


# -- the hooks the engine calls (every module has them; see `modules/__init__.py`) ------------
def initial(config: CommonsConfig, setup: Setup) -> MushroomsState:
    """The state at the start of an episode, from the config and the seeded deal."""
    return initial_state(config.num_players)


def round_view(state: MushroomsState) -> dict[str, Any]:
    """The module's fields of the baselines' `RoundView`."""
    return {"counts": state.counts}


def favorites(state: MushroomsState, n: int) -> list[str]:
    """Every seat's favourite colour (none in this module: red stands in)."""
    return ["red"] * n


def own_patches(state: MushroomsState, slot: int) -> list[int]:
    """No patches in this module."""
    return []


def dead_patches(state: MushroomsState) -> list[int]:
    """No patches in this module."""
    return []


def frozen(state: MushroomsState, r: int, n: int) -> list[bool]:
    """Which seats digest (are voided) in round r."""
    return [r < f for f in state.frozen_until]
