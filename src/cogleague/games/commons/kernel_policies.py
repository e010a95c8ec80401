"""The Commons baselines (rules §10) as array policies over B tables, each equal to its
scripted twin (`baselines/`) on the same observation.

What a baseline reads is the seat's `RoundView` / `SeatView` (`baselines.view`): the quota
(in integers, as the view computes it), the plurality colour, the live patches by stock, the
ledger's totals; `derived` builds those once per state for every seat. A move is a dict of
(B,) arrays (the module's fields plus the sanction digit), encoded into the action index as
`CommonsEncoding.encode` does. `random` draws from its seat's own stream
(``seed * 1000 + slot``) on the host, with the scripted twin's very `choice` calls; the
policy keeps each table's stream, seeded afresh when the table's seed changes or its round
goes back (a new episode). A policy reads the state on the host (numpy), whatever the
kernel's array namespace.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import numpy as np

from cogleague.core import rng as rng_streams
from cogleague.games.commons.baselines import SEAT_STREAM_FACTOR
from cogleague.games.commons.baselines.cleaner import MAX_TAKE
from cogleague.games.commons.baselines.random_policy import (
    ALLELOPATHIC_ACTIONS,
    CLEANUP_ACTIONS,
    MUSHROOM_ACTIONS,
    SANCTION_PROBABILITY,
    UNITS,
)
from cogleague.games.commons.baselines.reciprocator import TOLERANCE
from cogleague.games.commons.baselines.steward import CLEAN_ABOVE_CENTI, MIN_APPLES_TO_HARVEST
from cogleague.games.commons.baselines.view import POLLUTION_LATTICE
from cogleague.games.commons.modules import allelopathic as al
from cogleague.games.commons.modules import harvest as hv
from cogleague.games.commons.modules import mushrooms as mu
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET

if TYPE_CHECKING:
    from cogleague.games.commons.kernel import CommonsKernel, CommonsState

Array = Any
Move = dict[str, Array]
BATCH_BASELINES = ("steward", "free_rider", "cleaner", "punisher", "reciprocator",
                   "deterrable", "random", "fair_share")
SPLIT_OFFSET = (0, 4, 7, 9)
"""`rl.SPLITS`' index of ``(a, 0)``: (a, b) is at ``SPLIT_OFFSET[a] + b``."""
RED, GREEN, BLUE = 0, 1, 2


class Derived:
    """What every baseline seat of one state reads (one `RoundView` per table)."""

    def __init__(self, k: CommonsKernel, state: CommonsState) -> None:
        n, res, mod = k.num_seats, state.res, k.module
        b = state.t.shape[0]
        self.bi = np.arange(b)
        if mod == "cleanup":
            self.centi = np.rint(res["pollution"] * POLLUTION_LATTICE).astype(np.int64)
            num, den = 35 * (POLLUTION_LATTICE - self.centi), 400
        elif mod == "harvest":
            live = ~res["pdead"]
            self.live = live
            num, den = int(hv.MAX_GROWTH) * live.sum(axis=1), 1
            key = np.where(live, -res["stocks"], np.inf)
            ids = np.broadcast_to(np.arange(k.patches)[None, :], key.shape)
            self.order = np.lexsort((ids, key), axis=1)
        elif mod == "allelopathic":
            planted = res["planted"]
            num, den = (planted * planted).sum(axis=1), 2 * al.FIELD_SIZE
            self.plurality = np.argmax(planted, axis=1)
        else:
            num, den = np.full(b, mu.SPAWN_PER_ROUND), 1
        self.num, self.den = np.asarray(num), den
        self.quota = np.clip(self.num // (den * n), 0, EFFORT_BUDGET)


def convert(state: CommonsState, to: Any) -> CommonsState:
    """Every array of the state passed through `to` (`np.asarray`, `jax.numpy.asarray`)."""
    fields = {key: to(getattr(state, key)) for key in state._fields if key != "res"}
    return state._replace(**fields, res={key: to(v) for key, v in state.res.items()})


def on_host(k: CommonsKernel, state: CommonsState) -> CommonsState:
    """The state as numpy arrays (itself under numpy), converted once per state."""
    if isinstance(state.t, np.ndarray):
        return state
    cached = k.host_cache
    if cached is None or cached[0] is not state:
        cached = k.host_cache = (state, convert(state, np.asarray))
    return cached[1]


def derived(k: CommonsKernel, state: CommonsState) -> Derived:
    cached = k.view_cache
    if cached is not None and cached[0] is state:
        return cached[1]  # type: ignore[no-any-return]
    d = Derived(k, state)
    k.view_cache = (state, d)
    return d


def _where(cond: Array, a: Move, b: Move) -> Move:
    return {key: np.where(cond, a[key], b[key]) for key in a}


class CommonsPolicy:
    """One baseline for one seat over B tables."""

    def __init__(self, kernel: CommonsKernel, name: str, seat: int) -> None:
        self.k = kernel
        self.name = name
        self.seat = seat
        self.memo: dict[int, list[Any]] = {}
        """`random`'s per table: [seed, stream, round last asked, its answer]."""

    def act(self, state: CommonsState) -> Array:
        k, s, name = self.k, self.seat, self.name
        state = on_host(k, state)
        if name == "random":
            return self._random(state)
        d = derived(k, state)
        q = d.quota
        if name == "fair_share":
            n = k.num_seats
            base, rem = np.divmod(d.num // d.den, n)
            q = np.clip(base + ((state.rank[:, s] + state.t) % n < rem), 0, EFFORT_BUDGET)
        move = self.steward(state, d, q)
        if name == "free_rider":
            move = self.free_rider(state, d)
        elif name == "cleaner":
            move = self.cleaner(state, d, q, move)
        elif name == "punisher":
            move["sanction"] = self.punish_digit(state, d)
        elif name == "reciprocator":
            others = (state.last_total - state.last_gain[:, s]) / (k.num_seats - 1)
            move = _where((state.t > 0) & (others > q + TOLERANCE),
                          self.free_rider(state, d), move)
        elif name == "deterrable":
            move = _where((state.last_received[:, s] > 0) | (state.deterred[:, s] > 0), move,
                          self.free_rider(state, d))
        elif name == "fair_share" and k.module == "mushrooms":
            move = _where(q < 1, {"take": 0 * q, "color": 0 * q, "sanction": 0 * q}, move)
        return self.encode(state, move)

    # -- the scripted moves ---------------------------------------------------------------
    def _zero(self, state: CommonsState) -> Array:
        return np.zeros(state.t.shape[0], dtype=np.int64)

    def steward(self, state: CommonsState, d: Derived, q: Array) -> Move:
        k, s, res = self.k, self.seat, state.res
        z = self._zero(state)
        if k.module == "cleanup":
            clean = (d.centi > CLEAN_ABOVE_CENTI).astype(np.int64)
            take = np.where(res["apples"] < MIN_APPLES_TO_HARVEST, 0,
                            np.minimum(q, EFFORT_BUDGET - clean))
            return {"take": take, "keep": clean, "sanction": z}
        if k.module == "harvest":
            has, patch, stock = self.target(state, d)
            units = np.maximum(0, np.minimum(q, np.floor(stock - 1).astype(np.int64)))
            return {"take": np.where(has, units, 0), "patch": np.where(has, patch, 0),
                    "sanction": z}
        if k.module == "allelopathic":
            colour = d.plurality
            plant = ((res["fav"][:, s] != colour)
                     & (res["planted"][d.bi, colour] < al.FIELD_SIZE)).astype(np.int64)
            return {"take": self._allelo_eat(state, d, colour, q, plant), "color": colour,
                    "keep": plant, "plant_color": colour, "sanction": z}
        may = state.t >= res["frozen"][:, s]
        colour = np.where(may & (res["counts"][:, GREEN] > 0), GREEN, RED)
        return {"take": may.astype(np.int64), "color": colour, "sanction": z}

    def free_rider(self, state: CommonsState, d: Derived) -> Move:
        k, s, res = self.k, self.seat, state.res
        z = self._zero(state)
        if k.module == "cleanup":
            return {"take": z + EFFORT_BUDGET, "keep": z, "sanction": z}
        if k.module == "harvest":
            has, patch, _ = self.target(state, d)
            return {"take": np.where(has, EFFORT_BUDGET, 0), "patch": np.where(has, patch, 0),
                    "sanction": z}
        if k.module == "allelopathic":
            fav = res["fav"][:, s]
            return {"take": z + EFFORT_BUDGET, "color": fav, "keep": z, "plant_color": fav,
                    "sanction": z}
        may = state.t >= res["frozen"][:, s]
        return {"take": np.where(may, EFFORT_BUDGET, 0), "color": z + RED, "sanction": z}

    def cleaner(self, state: CommonsState, d: Derived, q: Array, steward: Move) -> Move:
        k, res = self.k, state.res
        z = self._zero(state)
        if k.module == "cleanup":
            take = np.where(res["apples"] < MIN_APPLES_TO_HARVEST, 0, np.minimum(q, MAX_TAKE))
            return {"take": take, "keep": z + 1, "sanction": z}
        if k.module == "harvest":
            return {**steward, "take": np.minimum(steward["take"], MAX_TAKE)}
        if k.module == "allelopathic":
            colour = d.plurality
            plant = (res["planted"][d.bi, colour] < al.FIELD_SIZE).astype(np.int64)
            return {"take": self._allelo_eat(state, d, colour, q, plant), "color": colour,
                    "keep": plant, "plant_color": colour, "sanction": z}
        may = state.t >= res["frozen"][:, self.seat]
        blue = {"take": z + 1, "color": z + BLUE, "sanction": z}
        return _where(may & (res["counts"][:, BLUE] > 0), blue, steward)

    def _allelo_eat(self, state: CommonsState, d: Derived, colour: Array, q: Array,
                    plant: Array) -> Array:
        ripe = state.res["ripe"][d.bi, colour]
        by_seat = np.floor(ripe / self.k.num_seats).astype(np.int64)
        return np.maximum(0, np.minimum(np.minimum(q, EFFORT_BUDGET - plant), by_seat))

    def target(self, state: CommonsState, d: Derived) -> tuple[Array, Array, Array]:
        """`common.target_patch`: (has one, patch id, its stock)."""
        k, s = self.k, self.seat
        count = d.live.sum(axis=1)
        if k.config.property_rights == "open":
            has = count > 0
            idx = s % np.maximum(count, 1)
        else:
            ok = state.res["mine"][d.bi[:, None], s, d.order] & d.live[d.bi[:, None], d.order]
            has = ok.any(axis=1)
            idx = np.argmax(ok, axis=1)
        patch = d.order[d.bi, idx]
        return has, patch, state.res["stocks"][d.bi, patch]

    def punish_digit(self, state: CommonsState, d: Derived) -> Array:
        """`punisher.punish_target` as a sanction digit (0 none)."""
        k, s = self.k, self.seat
        cfg = k.config
        z = self._zero(state)
        if not cfg.sanctions_enabled or not cfg.ledger_public:
            return z
        limit = d.quota * np.maximum(1, state.t)
        best = z - 1
        best_total = np.zeros(state.t.shape[0])
        own = state.rank[:, s]
        for j in range(k.num_seats):
            total = state.extracted[d.bi, state.by_rank[:, j]]
            pick = (own != j) & (total > limit) & ((best < 0) | (total > best_total))
            best = np.where(pick, j, best)
            best_total = np.where(pick, total, best_total)
        return np.where(best < 0, 0, best + 1 - (best > own))

    # -- the index ----------------------------------------------------------------------------
    def encode(self, state: CommonsState, m: Move) -> Array:
        k = self.k
        n = k.num_seats
        if k.module == "cleanup":
            digit = np.asarray(SPLIT_OFFSET)[m["take"]] + m["keep"]
        elif k.module == "harvest":
            digit = m["take"] * k.patches + m["patch"]
        elif k.module == "allelopathic":
            split = np.asarray(SPLIT_OFFSET)[m["take"]] + m["keep"]
            digit = (split * 3 + m["color"]) * 3 + m["plant_color"]
        else:
            digit = m["take"] * 3 + m["color"]
        return np.asarray(digit * n + m["sanction"], dtype=np.int64)

    def _random(self, state: CommonsState) -> Array:
        """`RandomPolicy.choose`, table by table, on the seat's own stream."""
        k, s = self.k, self.seat
        cfg, n = k.config, k.num_seats
        out = np.zeros(state.t.shape[0], dtype=np.int64)
        live = state.res.get("pdead")
        for i, (t, seed) in enumerate(zip(state.t.tolist(), state.seeds.tolist(), strict=True)):
            if t >= k.rounds:
                continue
            held = self.memo.get(i)
            if held is None or held[0] != seed or t < held[2]:
                rng = rng_streams.stream(seed * SEAT_STREAM_FACTOR + s)
                held = self.memo[i] = [seed, rng, -1, 0]
            if held[2] == t:  # asked again in the same round: the same answer
                out[i] = held[3]
                continue
            out[i] = held[3] = self._draw(held[1], i, state, live, cfg.sanctions_enabled, n)
            held[2] = t
        return out

    def _draw(self, rng: random.Random, i: int, state: CommonsState, pdead: Array | None,
              sanctions: bool, n: int) -> int:
        k, s = self.k, self.seat
        if k.module == "cleanup":
            h, c = rng.choice(CLEANUP_ACTIONS)
            digit = SPLIT_OFFSET[h] + c
        elif k.module == "harvest":
            assert pdead is not None
            live_ids = [p for p in range(k.patches) if not pdead[i, p]]
            if live_ids:
                p, h = rng.choice([(p, h) for p in live_ids for h in UNITS])
                digit = h * k.patches + p
            else:
                digit = 0
        elif k.module == "allelopathic":
            e, ec, p, pc = rng.choice(ALLELOPATHIC_ACTIONS)
            digit = ((SPLIT_OFFSET[e] + p) * 3 + COLORS.index(ec)) * 3 + COLORS.index(pc)
        else:
            e, ec = rng.choice(MUSHROOM_ACTIONS)
            digit = e * 3 + COLORS.index(ec)
        sanction = 0
        if rng.random() < SANCTION_PROBABILITY and sanctions:
            others = [j for j in range(n) if j != int(state.rank[i, s])]
            j = rng.choice(others)
            sanction = j + 1 - (j > int(state.rank[i, s]))
        return digit * n + sanction
