"""The four Commons modules' resolve and dynamics (rules §7) over B tables as numpy arrays.

Each function is the array twin of its module's `resolve` + `dynamics` (`modules/`): the
module's own constants, and the same float operations in the same order (pro-rata shares
``d * amount / total``, gains raised colour by colour and eater by eater, logistic regrowth
``x + rate * x * (1 - x / cap)``), so every value is the rules engine's to the last bit.
Arrays are (B,) per table, (B, n) per seat, (B, P) per patch, (B, 3) per colour; `r` is
the round being settled. Each returns (gains, extracted, effort) and the updated fields.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cogleague.games.commons.modules import allelopathic as al
from cogleague.games.commons.modules import cleanup as cu
from cogleague.games.commons.modules import harvest as hv
from cogleague.games.commons.modules import mushrooms as mu
from cogleague.games.commons.modules.common import EFFORT_BUDGET

Array = Any


def pro_rata(demands: Array, amount: Array) -> tuple[Array, Array]:
    """`common.pro_rata` for every table: int demands (B, k) over float amounts (B,)."""
    total = demands.sum(axis=1)
    fits = total <= amount
    safe = np.where(total > 0, total, 1)
    shares = np.where(fits[:, None], demands.astype(np.float64),
                      demands * amount[:, None] / safe[:, None])
    return shares, np.where(fits, amount - total, 0.0)


def cleanup(f: dict[str, Array], take: Array, clean: Array, r: Array) -> tuple[Array, Array,
                                                                              Array]:
    """Pro-rata apples; then silt and cleaning, the death latch and regrowth."""
    got, apples = pro_rata(take, f["apples"])
    cleaned = clean.sum(axis=1)
    pollution = f["pollution"] + cu.SILT_RATE - cu.CLEAN_POWER * cleaned
    pollution = np.where(pollution < 0.0, 0.0, np.where(pollution > 1.0, 1.0, pollution))
    dies = ~f["dead"] & (apples < cu.COLLAPSE_THRESHOLD)
    dead = f["dead"] | dies
    grown = apples + cu.REGROWTH * (1 - pollution) * apples * (1 - apples / cu.CAPACITY)
    f.update(apples=np.where(dead, apples, np.minimum(cu.CAPACITY, grown)),
             pollution=pollution, dead=dead, cleaned=cleaned,
             collapse=np.where(dies, r, f["collapse"]))
    return got, got, clean


def harvest(f: dict[str, Array], take: Array, patch: Array, rights: str,
            r: Array) -> tuple[Array, Array, Array]:
    """Demands voided on dead or forbidden patches, each patch shared pro rata (by patch
    index); then each live patch dies below one fish or regrows."""
    b, n = take.shape
    stocks, pdead = f["stocks"], f["pdead"]
    bi = np.arange(b)[:, None]
    valid = (take > 0) & ~pdead[bi, patch]
    if rights == "closed":
        valid &= f["owner"][bi, patch] == np.arange(n)[None, :]
    elif rights == "partnership":
        one, two = f["pair_a"][bi, patch], f["pair_b"][bi, patch]
        member = (one == np.arange(n)[None, :]) | (two == np.arange(n)[None, :])
        held = (patch[bi, one] == patch) & (patch[bi, two] == patch)
        valid &= member & held
    gains = np.zeros((b, n))
    new_stocks = stocks.copy()
    for p in range(stocks.shape[1]):
        demand = np.where(valid & (patch == p), take, 0)
        got, new_stocks[:, p] = pro_rata(demand, stocks[:, p])
        gains = gains + got
    dies = ~pdead & (new_stocks < hv.DEATH_THRESHOLD)
    grown = np.minimum(hv.PATCH_CAPACITY, new_stocks + hv.PATCH_REGROWTH * new_stocks * (
        1 - new_stocks / hv.PATCH_CAPACITY))
    dead = pdead | dies
    collapsed = dies.any(axis=1) & dead.all(axis=1)
    f.update(stocks=np.where(dies, 0.0, np.where(pdead, new_stocks, grown)), pdead=dead,
             collapse=np.where(collapsed, r, f["collapse"]))
    return gains, gains, EFFORT_BUDGET - take


def allelopathic(f: dict[str, Array], eat: Array, eat_c: Array, plant: Array, plant_c: Array
                 ) -> tuple[Array, Array, Array]:
    """Eating colour by colour pro rata; planting seat by seat, unit by unit; then ripening."""
    b, n = eat.shape
    bi = np.arange(b)
    ripe = f["ripe"].copy()
    planted = f["planted"].copy()
    gains = np.zeros((b, n))
    extracted = np.zeros((b, n))
    for c in range(3):
        demand = np.where((eat > 0) & (eat_c == c), eat, 0)
        got, ripe[:, c] = pro_rata(demand, ripe[:, c])
        extracted = extracted + got
        bonus = np.where(f["fav"] == c, al.FAVORITE_BONUS, al.OTHER_PAYOFF)
        gains = gains + got * bonus
    other_a = np.array([a for a, _ in al.OTHER_COLORS])
    other_b = np.array([o for _, o in al.OTHER_COLORS])
    for s in range(n):
        target = plant_c[:, s]
        a, o = other_a[target], other_b[target]
        for unit in range(EFFORT_BUDGET):
            src = np.where(planted[bi, o] > planted[bi, a], o, a)
            ok = (plant[:, s] > unit) & (planted[bi, src] > 0)
            step = ok.astype(np.int64)
            planted[bi, src] -= step
            planted[bi, target] += step
            ripe[bi, src] = np.where(ok, np.minimum(ripe[bi, src], planted[bi, src]),
                                     ripe[bi, src])
    barren = (ripe == 0).all(axis=1)
    ripe = np.minimum(planted, ripe + al.RIPEN_BASE * planted * planted / al.FIELD_SIZE)
    f.update(ripe=ripe, planted=planted, barren=barren)
    return gains, extracted, plant


def mushrooms(f: dict[str, Array], eat: Array, eat_c: Array, r: Array
              ) -> tuple[Array, Array, Array]:
    """Digesting seats voided; each colour pro rata; payoffs flow colour by colour, eater by
    eater; eaters digest ceil(k) rounds; then spawn, the colour cap and the field cap."""
    b, n = eat.shape
    awake = r[:, None] >= f["frozen"]
    eats = awake & (eat > 0)
    effort = np.where(eats & (eat_c != 0), eat, 0)
    counts = f["counts"].copy()
    eaten = f["eaten"].copy()
    gains = np.zeros((b, n))
    extracted = np.zeros((b, n))
    others = ~np.eye(n, dtype=bool)
    for c in range(3):
        demand = np.where(eats & (eat_c == c), eat, 0)
        before = counts[:, c].copy()
        got, counts[:, c] = pro_rata(demand, before)
        eaten[:, c] = eaten[:, c] + (before - counts[:, c])
        extracted = extracted + got
        if c == 0:
            gains = gains + mu.RED_PAYOFF * got
            continue
        for s in range(n):
            k = got[:, s]
            if c == 1:
                gains = gains + (mu.GREEN_PAYOFF * k / n)[:, None]
            else:
                share = mu.BLUE_PAYOFF * k / (n - 1)
                gains = gains + np.where(others[s][None, :], share[:, None], 0.0)
    frozen = np.where(extracted > 0, r[:, None] + np.ceil(extracted).astype(np.int64),
                      f["frozen"])
    counts = _spawn(counts, eaten)
    f.update(counts=counts, eaten=eaten, frozen=frozen)
    return gains, extracted, effort


def _spawn(counts: Array, eaten: Array) -> Array:
    """`mushrooms.dynamics`: three spawns split by weights ``1 + eaten`` (floors, then the
    largest remainders, ties canonical), each colour capped at 15, the field at 30 (cut
    from the fullest colours first, ties canonical)."""
    b = counts.shape[0]
    bi = np.arange(b)
    whole = (eaten == np.floor(eaten)).all(axis=1)
    w = 1 + eaten.astype(np.int64)
    denom = w.sum(axis=1, keepdims=True)
    q, rem = np.divmod(mu.SPAWN_PER_ROUND * w, denom)
    left = mu.SPAWN_PER_ROUND - q.sum(axis=1)
    add = q + (_ranks(rem) < left[:, None])
    for i in np.flatnonzero(~whole):  # never in play: eaten totals are whole numbers
        add[i] = mu.spawn([float(x) for x in eaten[i]])
    counts = counts + add
    counts = np.where(counts > mu.COLOR_CAP, mu.COLOR_CAP, counts)
    excess = counts[:, 0] + counts[:, 1] + counts[:, 2] - mu.CAPACITY
    order = np.argsort(_ranks(counts), axis=1)
    for k in range(3):
        c = order[:, k]
        live = excess > 0
        cut = np.minimum(excess, counts[bi, c])
        counts[bi, c] = np.where(live, counts[bi, c] - cut, counts[bi, c])
        excess = np.where(live, excess - cut, excess)
    return counts


def _ranks(x: Array) -> Array:
    """Each colour's place when sorted descending, ties canonical (a stable sort reversed)."""
    c = np.arange(3)
    higher = (x[:, None, :] > x[:, :, None]) | ((x[:, None, :] == x[:, :, None])
                                                & (c[None, None, :] < c[None, :, None]))
    return higher.sum(axis=2)
