"""Every seat's `commons.rl.v1` observation over B tables (`rl.py`'s `features`, as arrays).

Field 0 is 1.0 while a table plays (all zeros once it is done), then the head, the public
ledger by sorted alias (the seat's own row flagged; zeros but the flag when the ledger is
private) and the module's fields, each computed with the rules' float operations in float64
and handed out as float32, as `envs.encoding` does. Pure over the kernel's `xp` (numpy, or
`jax.numpy` under `jax.jit`): the fields are stacked, not written into a buffer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cogleague.core.batch import divide
from cogleague.games.commons.modules import allelopathic as al
from cogleague.games.commons.modules import cleanup as cu
from cogleague.games.commons.modules import harvest as hv
from cogleague.games.commons.modules import mushrooms as mu
from cogleague.games.commons.modules.common import EFFORT_BUDGET
from cogleague.games.commons.rl import GAIN_SCALE

if TYPE_CHECKING:
    from cogleague.games.commons.kernel import CommonsKernel, CommonsState

Array = Any


def _unit(x: Array) -> Array:
    return x.clip(-1.0, 1.0)


def observe(k: CommonsKernel, state: CommonsState) -> Array:
    """(B, n, obs_size) float32."""
    xp, cfg, n, rounds = k.xp, k.config, k.num_seats, k.rounds

    def div(x: Array, d: Any) -> Array:
        return divide(xp, x, d)

    b = state.t.shape[0]
    t = state.t[:, None].astype(xp.float64)
    cols: list[Array] = [
        1.0, div(t, rounds), (state.t == rounds - 1)[:, None],
        _unit(div(state.scores, EFFORT_BUDGET * rounds)), _unit(div(state.last_gain, GAIN_SCALE)),
        _unit(div(state.last_received, n)), _unit(div(state.last_total, GAIN_SCALE * n))[:, None],
        float(cfg.sanctions_enabled)]
    bi = xp.arange(b)[:, None]
    for j in range(n):
        slot = state.by_rank[:, j]
        cols.append(state.rank == j)
        if cfg.ledger_public:
            for x, scale in ((state.extracted, GAIN_SCALE * rounds),
                             (state.effort, EFFORT_BUDGET * rounds), (state.given, rounds),
                             (state.received, rounds)):
                cols.append(_unit(div(x[bi[:, 0], slot], scale))[:, None])
        else:
            cols += [0.0] * 4
    cols += _module(k, state)
    out = xp.stack([xp.broadcast_to(xp.asarray(c, dtype=xp.float64), (b, n)) for c in cols],
                   axis=-1)
    done = state.t >= rounds
    if xp is not np or done.any():  # a finished table shows zeros
        out = xp.where(done[:, None, None], 0.0, out)
    return out.astype(xp.float32)


def _module(k: CommonsKernel, state: CommonsState) -> list[Array]:
    res, n = state.res, k.num_seats

    def div(x: Array, d: Any) -> Array:
        return divide(k.xp, x, d)

    if k.module == "cleanup":
        p = res["pollution"]
        return [div(res["apples"], cu.CAPACITY)[:, None], _unit(p)[:, None],
                _unit(cu.REGROWTH * (1 - p))[:, None], res["dead"][:, None],
                _unit(div(res["cleaned"], EFFORT_BUDGET * n))[:, None]]
    if k.module == "harvest":
        rights = k.config.property_rights
        cols: list[Array] = [float(rights == r) for r in hv.PROPERTY_RIGHTS]
        for p in range(k.patches):
            cols += [_unit(div(res["stocks"][:, p], hv.PATCH_CAPACITY))[:, None],
                     res["pdead"][:, p][:, None], res["mine"][:, :, p]]
        return cols
    if k.module == "allelopathic":
        return ([_unit(div(res["planted"][:, c], al.FIELD_SIZE))[:, None] for c in range(3)]
                + [_unit(div(res["ripe"][:, c], al.FIELD_SIZE))[:, None] for c in range(3)]
                + [res["fav"] == c for c in range(3)] + [res["barren"][:, None]])
    return ([_unit(div(res["counts"][:, c], mu.COLOR_CAP))[:, None] for c in range(3)]
            + [state.t[:, None] >= res["frozen"]])
