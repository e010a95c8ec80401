"""The four Commons modules' resolve and dynamics (rules §7) over B tables as arrays.

Each function is the array twin of its module's `resolve` + `dynamics` (`modules/`): the
module's own constants, and the same float operations in the same order (pro-rata shares
``d * amount / total``, gains raised colour by colour and eater by eater, logistic regrowth
``x + rate * x * (1 - x / cap)``), so every value is the rules engine's to the last bit.
Arrays are (B,) per table, (B, n) per seat, (B, P) per patch, (B, 3) per colour; `r` is
the round being settled. Each returns (gains, extracted, effort) and the updated fields.

Every function is pure over the array namespace `xp` (numpy, or `jax.numpy` under
`jax.jit`): no array is written in place; a per-column or per-cell update is a `where` over a
one-hot, so the float operations, and their order, are the same in both. A division by a
constant goes through `core.batch.divide` (XLA would multiply by a reciprocal).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cogleague.core.batch import divide
from cogleague.games.commons.modules import allelopathic as al
from cogleague.games.commons.modules import cleanup as cu
from cogleague.games.commons.modules import harvest as hv
from cogleague.games.commons.modules import mushrooms as mu
from cogleague.games.commons.modules.common import EFFORT_BUDGET

Array = Any


def pro_rata(demands: Array, amount: Array, xp: Any = np) -> tuple[Array, Array]:
    """`common.pro_rata` for every table: int demands (B, k) over float amounts (B,)."""
    total = demands.sum(axis=1)
    fits = total <= amount
    safe = xp.where(total > 0, total, 1)
    shares = xp.where(fits[:, None], demands.astype(xp.float64),
                      divide(xp, demands * amount[:, None], safe[:, None]))
    return shares, xp.where(fits, amount - total, 0.0)


def cleanup(f: dict[str, Array], take: Array, clean: Array, r: Array, xp: Any = np
            ) -> tuple[Array, Array, Array]:
    """Pro-rata apples; then silt and cleaning, the death latch and regrowth."""
    got, apples = pro_rata(take, f["apples"], xp)
    cleaned = clean.sum(axis=1)
    pollution = f["pollution"] + cu.SILT_RATE - cu.CLEAN_POWER * cleaned
    pollution = xp.where(pollution < 0.0, 0.0, xp.where(pollution > 1.0, 1.0, pollution))
    dies = ~f["dead"] & (apples < cu.COLLAPSE_THRESHOLD)
    dead = f["dead"] | dies
    grown = apples + cu.REGROWTH * (1 - pollution) * apples * (
        1 - divide(xp, apples, cu.CAPACITY))
    f.update(apples=xp.where(dead, apples, xp.minimum(cu.CAPACITY, grown)),
             pollution=pollution, dead=dead, cleaned=cleaned,
             collapse=xp.where(dies, r, f["collapse"]))
    return got, got, clean


def harvest(f: dict[str, Array], take: Array, patch: Array, rights: str,
            r: Array, xp: Any = np) -> tuple[Array, Array, Array]:
    """Demands voided on dead or forbidden patches, each patch shared pro rata (by patch
    index); then each live patch dies below one fish or regrows."""
    b, n = take.shape
    stocks, pdead = f["stocks"], f["pdead"]
    bi = xp.arange(b)[:, None]
    seat = xp.arange(n)[None, :]
    valid = (take > 0) & ~pdead[bi, patch]
    if rights == "closed":
        valid &= f["owner"][bi, patch] == seat
    elif rights == "partnership":
        one, two = f["pair_a"][bi, patch], f["pair_b"][bi, patch]
        member = (one == seat) | (two == seat)
        held = (patch[bi, one] == patch) & (patch[bi, two] == patch)
        valid &= member & held
    gains = xp.zeros((b, n))
    left = []
    for p in range(stocks.shape[1]):
        demand = xp.where(valid & (patch == p), take, 0)
        got, rest = pro_rata(demand, stocks[:, p], xp)
        left.append(rest)
        gains = gains + got
    new_stocks = xp.stack(left, axis=1)
    dies = ~pdead & (new_stocks < hv.DEATH_THRESHOLD)
    grown = xp.minimum(hv.PATCH_CAPACITY, new_stocks + hv.PATCH_REGROWTH * new_stocks * (
        1 - divide(xp, new_stocks, hv.PATCH_CAPACITY)))
    dead = pdead | dies
    collapsed = dies.any(axis=1) & dead.all(axis=1)
    f.update(stocks=xp.where(dies, 0.0, xp.where(pdead, new_stocks, grown)), pdead=dead,
             collapse=xp.where(collapsed, r, f["collapse"]))
    return gains, gains, EFFORT_BUDGET - take


OTHER_A = np.array([a for a, _ in al.OTHER_COLORS])
OTHER_B = np.array([o for _, o in al.OTHER_COLORS])


def allelopathic(f: dict[str, Array], eat: Array, eat_c: Array, plant: Array, plant_c: Array,
                 xp: Any = np) -> tuple[Array, Array, Array]:
    """Eating colour by colour pro rata; planting seat by seat, unit by unit; then ripening."""
    b, n = eat.shape
    bi = xp.arange(b)
    colour = xp.arange(3)[None, :]
    gains = xp.zeros((b, n))
    extracted = xp.zeros((b, n))
    left = []
    for c in range(3):
        demand = xp.where((eat > 0) & (eat_c == c), eat, 0)
        got, rest = pro_rata(demand, f["ripe"][:, c], xp)
        left.append(rest)
        extracted = extracted + got
        bonus = xp.where(f["fav"] == c, al.FAVORITE_BONUS, al.OTHER_PAYOFF)
        gains = gains + got * bonus
    ripe = xp.stack(left, axis=1)
    planted = f["planted"]
    other_a, other_b = xp.asarray(OTHER_A), xp.asarray(OTHER_B)
    for s in range(n):
        target = plant_c[:, s]
        a, o = other_a[target], other_b[target]
        to = colour == target[:, None]
        for unit in range(EFFORT_BUDGET):
            src = xp.where(planted[bi, o] > planted[bi, a], o, a)
            ok = (plant[:, s] > unit) & (planted[bi, src] > 0)
            step = xp.where(ok, 1, 0)[:, None]
            at = colour == src[:, None]
            planted = planted - xp.where(at, step, 0) + xp.where(to, step, 0)
            ripe = xp.where(at & ok[:, None], xp.minimum(ripe, planted), ripe)
    barren = (ripe == 0).all(axis=1)
    ripe = xp.minimum(planted, ripe + divide(xp, al.RIPEN_BASE * planted * planted,
                                              al.FIELD_SIZE))
    f.update(ripe=ripe, planted=planted, barren=barren)
    return gains, extracted, plant


def mushrooms(f: dict[str, Array], eat: Array, eat_c: Array, r: Array, xp: Any = np
              ) -> tuple[Array, Array, Array]:
    """Digesting seats voided; each colour pro rata; payoffs flow colour by colour, eater by
    eater; eaters digest ceil(k) rounds; then spawn, the colour cap and the field cap."""
    b, n = eat.shape
    awake = r[:, None] >= f["frozen"]
    eats = awake & (eat > 0)
    effort = xp.where(eats & (eat_c != 0), eat, 0)
    counts, eaten = [], []
    gains = xp.zeros((b, n))
    extracted = xp.zeros((b, n))
    others = xp.asarray(~np.eye(n, dtype=bool))
    for c in range(3):
        demand = xp.where(eats & (eat_c == c), eat, 0)
        before = f["counts"][:, c]
        got, after = pro_rata(demand, before, xp)
        counts.append(after)
        eaten.append(f["eaten"][:, c] + (before - after))
        extracted = extracted + got
        if c == 0:
            gains = gains + mu.RED_PAYOFF * got
            continue
        for s in range(n):
            k = got[:, s]
            if c == 1:
                gains = gains + divide(xp, mu.GREEN_PAYOFF * k, n)[:, None]
            else:
                share = divide(xp, mu.BLUE_PAYOFF * k, n - 1)
                gains = gains + xp.where(others[s][None, :], share[:, None], 0.0)
    frozen = xp.where(extracted > 0, r[:, None] + xp.ceil(extracted).astype(xp.int64),
                      f["frozen"])
    total_eaten = xp.stack(eaten, axis=1)
    f.update(counts=_spawn(xp.stack(counts, axis=1), total_eaten, xp), eaten=total_eaten,
             frozen=frozen)
    return gains, extracted, effort


def _spawn(counts: Array, eaten: Array, xp: Any = np) -> Array:
    """`mushrooms.dynamics`: three spawns split by weights ``1 + eaten`` (floors, then the
    largest remainders, ties canonical), each colour capped at 15, the field at 30 (cut
    from the fullest colours first, ties canonical)."""
    b = counts.shape[0]
    bi = xp.arange(b)
    colour = xp.arange(3)[None, :]
    w = 1 + eaten.astype(xp.int64)
    denom = w.sum(axis=1, keepdims=True)
    q, rem = xp.divmod(mu.SPAWN_PER_ROUND * w, denom)
    left = mu.SPAWN_PER_ROUND - q.sum(axis=1)
    add = q + xp.where(_ranks(rem, xp) < left[:, None], 1, 0)
    if xp is np:  # never in play (eaten totals stay whole): the rules' Fraction path
        for i in np.flatnonzero(~(eaten == np.floor(eaten)).all(axis=1)):
            add[i] = mu.spawn([float(x) for x in eaten[i]])
    counts = counts + add
    counts = xp.where(counts > mu.COLOR_CAP, mu.COLOR_CAP, counts)
    excess = counts[:, 0] + counts[:, 1] + counts[:, 2] - mu.CAPACITY
    order = xp.argsort(_ranks(counts, xp), axis=1)
    for k in range(3):
        c = order[:, k]
        live = excess > 0
        cut = xp.minimum(excess, counts[bi, c])
        counts = xp.where((colour == c[:, None]) & live[:, None], counts - cut[:, None], counts)
        excess = xp.where(live, excess - cut, excess)
    return counts


def _ranks(x: Array, xp: Any = np) -> Array:
    """Each colour's place when sorted descending, ties canonical (a stable sort reversed)."""
    c = xp.arange(3)
    higher = (x[:, None, :] > x[:, :, None]) | ((x[:, None, :] == x[:, :, None])
                                                & (c[None, None, :] < c[None, :, None]))
    return higher.sum(axis=2)
