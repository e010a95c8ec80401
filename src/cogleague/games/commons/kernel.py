"""Commons Family's batch kernel (`core/batch.py`): B tables of one config, one round a step.

A step is a round: every cog's action index (the `commons.rl.v1` encoding's mixed radix,
`rl.py`) is decoded, the module resolves (`kernel_physics`, the rules' arithmetic in the rules'
order), sanctions are paid by ascending payer slot under the receiving cap, the module's
dynamics run, and the books (scores, ledger totals, last round) move on. The deal (aliases,
favourites, patch owners and pairs) is the rules' `setup.deal` on the ``config.seed`` stream
(`batch_deal`, every seed at once), and a `random` seat draws from its ``seed * 1000 + slot``
stream, so a batch table with seed s is the rules engine's episode with seed s. Chat and
notes are text: not part of a batch step.

`step`, `observe`, `mask` and `welfare` are pure over `xp` (numpy, or `jax.numpy` under
`jax.jit` with ``jax_enable_x64``): the seat loops (sanctions, planting, the mushroom flow) are
unrolled over the config's seat count and update by `where` over one-hots. The deal and the
`random` seat's stream are host-side: `reset` deals with numpy and hands the arrays over, and
a baseline reads the state on the host (`kernel_policies.on_host`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from cogleague.core.batch import Array, check_actions
from cogleague.core.errors import ConfigError
from cogleague.games.commons import kernel_physics as phys
from cogleague.games.commons.batch_deal import batch_deal
from cogleague.games.commons.config import CommonsConfig, make_config
from cogleague.games.commons.descriptor import DEFAULT_VARIANT
from cogleague.games.commons.kernel_observe import observe
from cogleague.games.commons.kernel_policies import (
    BATCH_BASELINES,
    CommonsPolicy,
    convert,
    on_host,
)
from cogleague.games.commons.modules import allelopathic as al
from cogleague.games.commons.modules import cleanup as cu
from cogleague.games.commons.modules import harvest as hv
from cogleague.games.commons.modules import mushrooms as mu
from cogleague.games.commons.rl import HEAD, LEDGER, SPLITS, _module_fields

DETERRED = 5
SPLIT_TAKE = np.array([a for a, _ in SPLITS])
SPLIT_KEEP = np.array([b for _, b in SPLITS])


class CommonsState(NamedTuple):
    t: Array  # (B,) rounds played
    scores: Array  # (B, n) float64, the books as the rules keep them
    extracted: Array
    effort: Array
    given: Array
    received: Array
    last_gain: Array  # (B, n) last round's gains (before sanctions)
    last_received: Array  # (B, n) sanctions received last round
    last_total: Array  # (B,) last round's total extracted
    deterred: Array  # (B, n) a deterrable seat's counter as it stood after its last decision
    rank: Array  # (B, n) each slot's place among the aliases sorted
    by_rank: Array  # (B, n) the slot at each sorted place
    res: dict[str, Array]  # the module's fields (`kernel_physics`)
    seeds: Array  # (B,)


class CommonsKernel:
    """One Commons config (module, seats, rounds, institutions) over B tables."""

    def __init__(self, config: CommonsConfig, xp: Any = np) -> None:
        if xp is not np and xp.asarray(np.zeros(1)).dtype != np.float64:
            raise ConfigError("xp", "the Commons kernel needs float64 and int64 arrays "
                                    "(jax: jax.config.update('jax_enable_x64', True))")
        self.config = config
        self.xp = xp
        self.module = config.module
        n = self.num_seats = config.num_players
        self.rounds = self.steps_per_episode = config.rounds
        self.patches = config.patch_count
        radix = {"cleanup": len(SPLITS), "harvest": 4 * self.patches,
                 "allelopathic": len(SPLITS) * 9, "mushrooms": 12}[self.module]
        self.num_actions = radix * n
        self.obs_size = 1 + len(HEAD) + len(LEDGER) * n + len(
            _module_fields(self.module, self.patches))
        self.view_cache: tuple[Any, Any] | None = None
        self.host_cache: tuple[Any, Any] | None = None

    # -- tables ---------------------------------------------------------------------------------
    def reset(self, seeds: Sequence[int], lineup: Any = None) -> CommonsState:
        cfg, n, b, p = self.config, self.num_seats, len(seeds), self.patches
        rank, fav, owner, pair_a, pair_b = batch_deal(seeds, n, p)
        by_rank = np.argsort(rank, axis=1)
        zi = np.zeros((b, n), dtype=np.int64)
        zf = np.zeros((b, n))
        res: dict[str, Array] = {"collapse": np.full(b, -1, dtype=np.int64)}
        if self.module == "cleanup":
            res.update(apples=np.full(b, cu.INITIAL_APPLES),
                       pollution=np.full(b, cu.INITIAL_POLLUTION),
                       dead=np.zeros(b, dtype=bool), cleaned=np.zeros(b, dtype=np.int64))
        elif self.module == "harvest":
            seat = np.arange(n)[None, :, None]
            if cfg.property_rights == "closed":
                mine = owner[:, None, :] == seat
            elif cfg.property_rights == "partnership":
                mine = (pair_a[:, None, :] == seat) | (pair_b[:, None, :] == seat)
            else:
                mine = np.zeros((b, n, p), dtype=bool)
            res.update(stocks=np.full((b, p), hv.INITIAL_STOCK),
                       pdead=np.zeros((b, p), dtype=bool), owner=owner, pair_a=pair_a,
                       pair_b=pair_b, mine=mine)
        elif self.module == "allelopathic":
            res.update(planted=np.full((b, 3), al.INITIAL_PLANTED, dtype=np.int64),
                       ripe=np.full((b, 3), al.INITIAL_RIPE), barren=np.zeros(b, dtype=bool),
                       fav=fav)
        else:
            res.update(counts=np.full((b, 3), mu.INITIAL_COUNT), eaten=np.zeros((b, 3)),
                       frozen=zi.copy())
        state = CommonsState(
            t=np.zeros(b, dtype=np.int64), scores=zf, extracted=zf, effort=zi, given=zi,
            received=zi, last_gain=zf, last_received=zi, last_total=np.zeros(b),
            deterred=zi, rank=rank, by_rank=by_rank, res=res,
            seeds=np.asarray([int(s) for s in seeds], dtype=np.int64))
        return state if self.xp is np else convert(state, self.xp.asarray)

    def mask(self, state: CommonsState) -> Array:
        """Every index, but a sanction only where sanctions are on (the same every round)."""
        xp, b, n = self.xp, state.t.shape[0], self.num_seats
        legal = xp.ones(self.num_actions, dtype=bool)
        if not self.config.sanctions_enabled:
            legal = xp.arange(self.num_actions) % n == 0
        return xp.tile(legal.astype(xp.int8), (b, n, 1))

    def observe(self, state: CommonsState) -> Array:
        return observe(self, state)

    # -- a round ------------------------------------------------------------------------------
    def check(self, actions: Array, state: CommonsState | None = None) -> None:
        """Refuse an action that is not an index inside the mask (`IllegalAction` naming it),
        on the host: `step` checks under numpy; under `jax.jit` it cannot raise, so call this
        first. The mask is the same every round: `state` is not needed."""
        a = np.asarray(actions)
        off = (a.astype(np.int64) % self.num_seats > 0 if not self.config.sanctions_enabled
               and a.dtype.kind in "iu" else None)  # no sanctions: only the split indices
        check_actions(a, (a.shape[0] if a.ndim else 0, self.num_seats), self.num_actions - 1,
                      off)

    def decode(self, state: CommonsState, actions: Array) -> tuple[dict[str, Array], Array]:
        """The moves of (B, n) action indices, and each seat's sanction target (-1 none)."""
        xp, n = self.xp, self.num_seats
        a = xp.asarray(actions).astype(xp.int64)
        sanc, rest = a % n, a // n
        pos = sanc - 1 + (sanc - 1 >= state.rank)
        bi = xp.arange(a.shape[0])[:, None]
        target = xp.where(sanc > 0, state.by_rank[bi, xp.clip(pos, 0, n - 1)], -1)
        take, keep = xp.asarray(SPLIT_TAKE), xp.asarray(SPLIT_KEEP)
        mod = self.module
        if mod == "cleanup":
            moves = {"take": take[rest], "keep": keep[rest]}
        elif mod == "harvest":
            moves = {"patch": rest % self.patches, "take": rest // self.patches}
        elif mod == "allelopathic":
            moves = {"plant_c": rest % 3, "eat_c": rest // 3 % 3,
                     "take": take[rest // 9], "keep": keep[rest // 9]}
        else:
            moves = {"eat_c": rest % 3, "take": rest // 3}
        return moves, target

    def step(self, state: CommonsState, actions: Array) -> tuple[CommonsState, Array, Array]:
        """One round of every table still playing (a finished table stays as it is)."""
        xp = self.xp
        if xp is np:
            self.check(actions)
        moves, target = self.decode(state, actions)
        cfg, mod, n = self.config, self.module, self.num_seats
        res = {k: v for k, v in state.res.items()}
        r = state.t
        if mod == "cleanup":
            gains, extracted, effort = phys.cleanup(res, moves["take"], moves["keep"], r, xp)
        elif mod == "harvest":
            gains, extracted, effort = phys.harvest(res, moves["take"], moves["patch"],
                                                    cfg.property_rights, r, xp)
        elif mod == "allelopathic":
            gains, extracted, effort = phys.allelopathic(res, moves["take"], moves["eat_c"],
                                                         moves["keep"], moves["plant_c"], xp)
        else:
            gains, extracted, effort = phys.mushrooms(res, moves["take"], moves["eat_c"], r,
                                                      xp)
        scores, given, received = self.sanction(state.scores + gains, target)
        total = extracted[:, 0]
        for s in range(1, n):
            total = total + extracted[:, s]
        deterred = xp.where(state.last_received > 0, DETERRED - 1,
                            xp.maximum(state.deterred - 1, 0))
        new = CommonsState(
            t=r + 1, scores=scores, extracted=state.extracted + extracted,
            effort=state.effort + effort, given=state.given + given,
            received=state.received + received, last_gain=gains, last_received=received,
            last_total=total, deterred=deterred, rank=state.rank, by_rank=state.by_rank,
            res=res, seeds=state.seeds)
        live = state.t < self.rounds
        if xp is not np or not live.all():
            new = _keep(new, state, live, xp)
        return new, new.scores - state.scores, new.t >= self.rounds

    def sanction(self, scores: Array, target: Array) -> tuple[Array, Array, Array]:
        """(scores, given, received) after the sanctions, paid by ascending payer slot under
        the receiving cap: each costs its payer `sanction_cost` and its target
        `sanction_burn`."""
        xp, cfg, n = self.xp, self.config, self.num_seats
        b = scores.shape[0]
        given = xp.zeros((b, n), dtype=xp.int64)
        received = xp.zeros((b, n), dtype=xp.int64)
        if not cfg.sanctions_enabled or (xp is np and not (target >= 0).any()):
            return scores, given, received
        bi = xp.arange(b)
        seat = xp.arange(n)[None, :]
        for s in range(n):
            tgt = target[:, s]
            tt = xp.maximum(tgt, 0)
            ok = ((tgt >= 0) & (received[bi, tt] < cfg.max_sanctions_received))[:, None]
            payer, hit = ok & (seat == s), ok & (seat == tt[:, None])
            given = given + xp.where(payer, 1, 0)
            received = received + xp.where(hit, 1, 0)
            scores = xp.where(payer, scores - cfg.sanction_cost, scores)
            scores = xp.where(hit, scores - cfg.sanction_burn, scores)
        return scores, given, received

    # -- the end ------------------------------------------------------------------------------
    def residual(self, state: CommonsState) -> Array:
        """(B,) what the resource still holds (`module.residual`, summed as Python sums)."""
        res = state.res
        if self.module == "cleanup":
            return res["apples"]
        parts = {"harvest": "stocks", "allelopathic": "ripe", "mushrooms": "counts"}
        x = res[parts[self.module]].astype(self.xp.float64)
        out = x[:, 0]
        for k in range(1, x.shape[1]):
            out = out + x[:, k]
        return out

    def welfare(self, state: CommonsState) -> Array:
        """(B,) Σ scores + residual (rules §8), at full precision."""
        total = state.scores[:, 0]
        for s in range(1, self.num_seats):
            total = total + state.scores[:, s]
        return total + self.residual(state)

    def scores(self, state: CommonsState) -> Array:
        """The results document's scores (3 decimals, as Python rounds)."""
        return _round3(state.scores)

    def reasons(self, state: CommonsState) -> list[str]:
        return ["complete"] * int(state.t.shape[0])

    def result_fields(self, state: CommonsState) -> dict[str, Array]:
        """Results fields the kernel counts too, by the results document's keys."""
        return {"welfare": _round3(self.welfare(state)),
                "residual_value": _round3(self.residual(state)),
                "total_extracted": _round3(state.extracted), "public_effort": state.effort,
                "sanctions_given": state.given, "sanctions_received": state.received,
                "rounds": state.t}

    def collapse_round(self, state: CommonsState) -> list[int | None]:
        return [None if c < 0 else int(c) for c in np.asarray(state.res["collapse"]).tolist()]

    def dead_patches(self, state: CommonsState) -> list[list[int]]:
        if self.module != "harvest":
            return [[] for _ in range(state.t.shape[0])]
        return [np.flatnonzero(row).tolist() for row in np.asarray(state.res["pdead"])]

    def record(self, state: CommonsState) -> Array:
        """The residual after a round (the descriptor's per-round series)."""
        return self.residual(state)

    def documents(self, state: CommonsState, records: Sequence[Any], seeds: Sequence[int],
                  policy_names: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Each finished table's results document (`records.results`' keys and order) and
        the descriptor's series (the residual after each round)."""
        cfg, n, state = self.config, self.num_seats, on_host(self, state)
        fields = {k: np.asarray(v).tolist() for k, v in self.result_fields(state).items()}
        scores = self.scores(state).tolist()
        collapse, dead = self.collapse_round(state), self.dead_patches(state)
        series = np.stack([np.asarray(x) for x in records], axis=1).tolist() if records else []
        out = []
        for i in range(len(seeds)):
            results = {
                "reason": "complete", "rounds": fields["rounds"][i], "scores": scores[i],
                "total_extracted": fields["total_extracted"][i],
                "public_effort": fields["public_effort"][i],
                "sanctions_given": fields["sanctions_given"][i],
                "sanctions_received": fields["sanctions_received"][i],
                "welfare": fields["welfare"][i], "residual_value": fields["residual_value"][i],
                "collapse_round": collapse[i], "dead_patches": dead[i],
                "fallbacks": [0] * n, "llm_requests": [0] * n, "names": list(cfg.names),
                "aliases": ["Cog-" + chr(65 + x) for x in state.rank[i].tolist()],
                "disconnected": [False] * n, "error": None}
            out.append((results, {"label": "resource value",
                                  "group": series[i] if records else []}))
        return out

    def policy(self, name: str, seat: int) -> CommonsPolicy:
        key = name.strip().lower()
        if key not in BATCH_BASELINES:
            raise ConfigError("seats", f"seats: {name!r} has no batch twin (batch baselines: "
                                       f"{', '.join(BATCH_BASELINES)})")
        return CommonsPolicy(self, key, seat)


def _round3(x: Array) -> Array:
    """``round(v, 3)`` for every element, as Python rounds (numpy's round differs)."""
    a = np.asarray(x, dtype=np.float64)
    return np.array([round(v, 3) for v in a.ravel().tolist()]).reshape(a.shape)


def _keep(new: CommonsState, old: CommonsState, live: Array, xp: Any) -> CommonsState:
    """`new` for the live tables, `old` for the finished ones."""
    def pick(a: Array, b: Array) -> Array:
        return xp.where(live.reshape((-1,) + (1,) * (a.ndim - 1)), a, b)

    fields = {k: pick(getattr(new, k), getattr(old, k)) for k in CommonsState._fields
              if k != "res"}
    res = {k: pick(v, old.res[k]) for k, v in new.res.items()}
    return CommonsState(**fields, res=res)


class CommonsBatch:
    """Commons Family's ``extras["batch"]``."""

    baselines = BATCH_BASELINES

    def kernel(self, variant: str | None, options: Mapping[str, Any],
               num_seats: int | None, xp: Any = np) -> CommonsKernel:
        given = dict(options)
        if num_seats is not None and "num_players" not in given:
            given["num_players"] = num_seats
        module_given = variant is not None or "module" in given
        config = make_config(variant if module_given else DEFAULT_VARIANT, given, 0)
        if num_seats is not None and num_seats != config.num_players:
            raise ConfigError("seats", f"seats must be {config.num_players} (got {num_seats})")
        return CommonsKernel(config, xp)


BATCH = CommonsBatch()
