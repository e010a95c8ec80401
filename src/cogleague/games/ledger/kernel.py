"""Ledger's batch kernel (`core/batch.py`): B tables of eight seats, one round per step.

The schedule is the rules engine's (`batch_schedule.seat_schedule`, from the same
``schedule`` stream); a step takes every seat's move (an action index = the move, legal in its
meeting's range), pays the four meetings from `subgames.PAYOFF_TABLE`, folds conduct
(`conduct.KIND_BY_MOVE`) and the caches the baselines read, exactly as `Table.meeting` does.
Notes and memos are text and not part of a batch step. Scores are the medians of each seat's
payoffs (§9); ring flags (§10) are counted from the same record (`ring_pairs`).

`step`, `observe` and `mask` are pure over `xp` (numpy, or `jax.numpy` under `jax.jit`);
`mirror`'s rare forgiveness draw reads its per-decision stream on the host, for the tables
that need it only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from cogleague.core.batch import Array, check_actions, per_table
from cogleague.core.errors import ConfigError
from cogleague.core.rng import first_draws
from cogleague.games.ledger.aliases import SEATS, draw_aliases
from cogleague.games.ledger.baselines import Grim, Mirror, Opportunist, Saint, Shark
from cogleague.games.ledger.batch_medians import medians
from cogleague.games.ledger.batch_schedule import seat_schedule
from cogleague.games.ledger.conduct import halo, is_kind
from cogleague.games.ledger.config import build_config
from cogleague.games.ledger.rings import (
    MIN_DELTA,
    MIN_IN_MEAN,
    MIN_MUTUAL_MEETINGS,
    detect_rings,
)
from cogleague.games.ledger.rl import FIELDS, HISTORY, MAX_MEETINGS, MAX_MOVE, TOTAL_SCALE
from cogleague.games.ledger.scoring import STAT_DECIMALS
from cogleague.games.ledger.subgames import (
    DILEMMA,
    LEGAL,
    MAX_PAY,
    PAYOFF_TABLE,
    SUBGAMES,
    TRUST,
    ULTIMATUM,
)

NG = len(SUBGAMES)
DILEMMA_I = 0
WIDTH = MAX_MOVE + 1

# PAY[g, move_a, move_b, side], KIND[g, side, move], HI[g, side]: the rules' tables as arrays
PAY = np.zeros((NG, WIDTH, WIDTH, 2), dtype=np.int64)
KIND = np.zeros((NG, 2, WIDTH), dtype=bool)
HI = np.zeros((NG, 2), dtype=np.int64)
for _g, _name in enumerate(SUBGAMES):
    for _side in (0, 1):
        HI[_g, _side] = LEGAL[_name][_side][1]
        for _m in range(HI[_g, _side] + 1):
            KIND[_g, _side, _m] = is_kind(_name, _side, _m)
    for _ma, _row in enumerate(PAYOFF_TABLE[_name]):
        for _mb, (_pa, _pb) in enumerate(_row):
            PAY[_g, _ma, _mb] = (_pa, _pb)
PAY_OWN = np.zeros((NG, 2, WIDTH, WIDTH), dtype=np.int16)
"""PAY_OWN[g, side, own move, partner's move]: a seat's payoff seen from its own side (small
ints: the counts it is added to are int16, the record int8)."""
PAY_OWN[:, 0] = PAY[..., 0]
PAY_OWN[:, 1] = PAY[..., 1].transpose(0, 2, 1)
PAY_OWN_FLAT = PAY_OWN.ravel()
KIND_FLAT = KIND.ravel()
PAY_KIND_FLAT = (PAY_OWN * 2 + KIND[..., None]).ravel()
"""`PAY_OWN` · 2 + kind?, by [g, side, own move, partner's move]: one lookup for both."""
BIT = np.array([1 << s for s in range(SEATS)], dtype=np.uint8)
_ONE = np.uint8(1)
"""A seat's bit in the per-seat sets (`LedgerState.harsh_to`, `dil_met`, `dil_defect`)."""
HALO = np.array([[round(halo(k, h), STAT_DECIMALS) for h in range(MAX_MEETINGS + 1)]
                 for k in range(MAX_MEETINGS + 1)])
"""`round(halo(kind, harsh), 4)` as Python rounds it, looked up (numpy's round differs)."""


class LedgerState(NamedTuple):
    t: Array  # (B,) rounds played
    partner: Array  # (B, R, 8) int8 schedule: each seat's partner, subgame, side (0 = a) per round
    subgame: Array
    side: Array
    moves: Array  # (B, 8, R) int8 each seat's move per round (moves <= 100, payoffs <= 14)
    pays: Array  # (B, 8, R)
    total: Array  # (B, 8) int16 (at most 28 rounds of payoffs <= 14)
    kind: Array  # (B, 8) int16
    harsh: Array  # (B, 8) int16
    harsh_to: Array  # (B, 8) uint8 bit t of [s]: s was harsh meeting t
    dil_met: Array  # (B, 8) uint8 bit t of [s]: s met t in DILEMMA
    dil_defect: Array  # (B, 8) uint8 bit t of [s]: t's latest DILEMMA move against s was DEFECT
    last: Array  # (B, 8) int8 a seat's latest DILEMMA move, -1 none
    defections: Array  # (B, 8) int8
    seeds: Array  # (B,)


class RoundView(NamedTuple):
    """A round's meetings for numpy tables in lockstep, widened once and read by the step and
    by every baseline: (B, 8) each."""

    role: Array  # int64 subgame * 2 + side: a seat's row in the move and payoff tables
    dil: Array  # bool: the meeting is DILEMMA
    fp: Array  # int64 the partner's flat index in a (B, 8)
    own: Array  # int64 role * WIDTH: the row of a seat's own move in `KIND_FLAT`
    bit: Array  # uint8 the partner's bit
    dil_bit: Array  # uint8 the partner's bit in DILEMMA, else 0
    keep: Array  # uint8 ~dil_bit
    not_dil: Array  # int8 1 outside DILEMMA


class LedgerKernel:
    """Ledger for one round count over B tables."""

    def __init__(self, rounds: int, xp: Any = np) -> None:
        self.xp = xp
        self.rounds = rounds
        self.num_seats = SEATS
        self.num_actions = WIDTH
        self.obs_size = 1 + len(FIELDS)
        self.steps_per_episode = rounds
        self._view: tuple[tuple[Array, Array, Array, int], RoundView] | None = None
        self._lockstep: tuple[Array, int | None] | None = None

    def reset(self, seeds: Sequence[int], lineup: Any = None) -> LedgerState:
        """B new tables (the baselines draw nothing up front: `lineup` is not needed)."""
        xp, n, b, r = self.xp, SEATS, len(seeds), self.rounds
        # small ints (steps widen them), round-major underneath: a round's slice is contiguous
        partner, subgame, side = seat_schedule(seeds, r)
        if xp is np:  # round-major underneath: a step writes one contiguous block
            moves, pays = (np.zeros((r, b, n), dtype=np.int8).transpose(1, 2, 0)
                           for _ in range(2))
        else:
            moves, pays = (xp.zeros((b, n, r), dtype=xp.int8) for _ in range(2))
        zi = xp.zeros((b, n), dtype=xp.int16)
        zb = xp.zeros((b, n), dtype=xp.uint8)
        return LedgerState(
            t=xp.zeros(b, dtype=xp.int64), partner=xp.asarray(partner),
            subgame=xp.asarray(subgame), side=xp.asarray(side),
            moves=moves, pays=pays,
            total=zi, kind=zi, harsh=zi, harsh_to=zb, dil_met=zb, dil_defect=zb,
            last=xp.full((b, n), -1, dtype=xp.int8), defections=xp.zeros((b, n), dtype=xp.int8),
            seeds=xp.asarray(np.asarray(seeds, dtype=np.int64)))

    def lockstep(self, state: LedgerState) -> int | None:
        """The round every table is at, when they all are at the same one under numpy (the
        league's and the benchmarks' case): the fast path then slices instead of gathering."""
        if self.xp is not np:
            return None
        t = state.t
        memo = self._lockstep
        if memo is not None and memo[0] is t:  # the same round's array: asked 9 times a step
            return memo[1]
        t0 = int(t[0]) if t.size else 0
        at: int | None = t0 if bool((t == t0).all()) else None
        self._lockstep = (t, at)
        return at

    def slot(self, state: LedgerState) -> tuple[Array, Array, Array]:
        """(partner, subgame, side) of every seat this round, (B, 8) each."""
        xp = self.xp
        t0 = self.lockstep(state)
        if t0 is not None:
            r0 = min(t0, self.rounds - 1)
            return state.partner[:, r0], state.subgame[:, r0], state.side[:, r0]
        r = xp.minimum(state.t, self.rounds - 1)
        bi = xp.arange(r.shape[0])
        return state.partner[bi, r], state.subgame[bi, r], state.side[bi, r]

    def round_view(self, state: LedgerState, t0: int) -> RoundView:
        """Round `t0`'s `RoundView` of numpy tables in lockstep, kept for the state's schedule
        until another round or schedule is asked for (the schedule is never written)."""
        key = (state.partner, state.subgame, state.side, t0)
        memo = self._view
        if memo is not None and all(a is b for a, b in zip(memo[0], key, strict=True)):
            return memo[1]
        p = state.partner[:, t0]
        g = state.subgame[:, t0]
        role = g * 2
        role += state.side[:, t0]
        role64 = role.astype(np.int64)
        dil = g == DILEMMA_I
        bit = np.left_shift(_ONE, p.view(np.uint8))  # shifts, no gather
        dil_bit = bit * dil
        view = RoundView(role=role64, dil=dil, fp=_flat_rows(p.shape[0]) + p,  # int64
                         own=role64 * WIDTH, bit=bit, dil_bit=dil_bit, keep=~dil_bit,
                         not_dil=(~dil).view(np.int8))
        self._view = (key, view)
        return view

    def seat_round(self, state: LedgerState, seat: int) -> tuple[Array, Array, Array, Array]:
        """One seat's (role, DILEMMA?, the partner's flat index in a (B, 8), the partner's
        bit) this round at every table, (B,) each: what a baseline reads of the schedule."""
        t0 = self.lockstep(state)
        if t0 is not None:
            view = self.round_view(state, min(t0, self.rounds - 1))
            return view.role[:, seat], view.dil[:, seat], view.fp[:, seat], view.bit[:, seat]
        p_all, g_all, side_all = (np.asarray(x) for x in self.slot(state))
        p, g = p_all[:, seat].astype(np.int64), g_all[:, seat]
        role = g.astype(np.int64) * 2 + side_all[:, seat]
        return role, g == DILEMMA_I, _flat_rows(p.shape[0])[:, 0] + p, BIT.take(p)

    def mask(self, state: LedgerState) -> Array:
        """(B, 8, 101) int8: moves 0..hi of each seat's meeting (all once a table is done)."""
        xp = self.xp
        _, g, side = self.slot(state)
        hi = xp.asarray(HI)[g, side]
        legal = (xp.arange(WIDTH)[None, None, :] <= hi[..., None]) | (
            state.t >= self.rounds)[:, None, None]  # a finished table: every index, as the envs
        return legal.astype(xp.int8)

    def check(self, actions: Array, state: LedgerState) -> None:
        """Refuse a move outside its meeting's range (`IllegalAction` naming it), on the host:
        `step` checks under numpy; under `jax.jit` it cannot raise, so call this first."""
        _, g, side = (np.asarray(x) for x in self.slot(state))
        done = np.asarray(state.t)[:, None] >= self.rounds  # a finished table: every index
        check_actions(actions, g.shape, np.where(done, WIDTH - 1, HI[g, side]))

    def step(self, state: LedgerState, actions: Array) -> tuple[LedgerState, Array, Array]:
        """One round: every seat's move (B, 8), legal for its meeting.

        The per-round history (`moves`, `pays`) is append-only: under numpy, tables in
        lockstep write this round's column in place, which the state passed in never reads
        (it shows rounds before its own `t` only)."""
        if self.xp is np:
            self.check(actions, state)
        t0 = self.lockstep(state)
        if t0 is not None:
            return self._step_lockstep(state, actions, t0)
        xp = self.xp
        p, g, side = (x.astype(xp.int64) for x in self.slot(state))
        mine = xp.asarray(actions).astype(xp.int64)
        theirs = xp.take_along_axis(mine, p, axis=1)
        own = (g * 2 + side) * WIDTH + mine
        pay = xp.take(xp.asarray(PAY_OWN_FLAT), own * WIDTH + theirs)
        kind = xp.take(xp.asarray(KIND_FLAT), own)
        dil = g == DILEMMA_I
        at = (xp.arange(self.rounds)[None, None, :] == state.t[:, None, None])
        moves = xp.where(at, mine[:, :, None].astype(xp.int8), state.moves)
        pays = xp.where(at, pay[:, :, None].astype(xp.int8), state.pays)
        bit = xp.take(xp.asarray(BIT), p)
        dil_bit = bit * dil
        defect = dil & (mine == 1)
        new = state._replace(
            t=state.t + 1, moves=moves, pays=pays, total=state.total + pay,
            kind=state.kind + kind, harsh=state.harsh + ~kind,
            harsh_to=state.harsh_to | (bit * ~kind), dil_met=state.dil_met | dil_bit,
            dil_defect=(state.dil_defect & ~dil_bit) | (dil_bit * (theirs == 1)),
            last=xp.where(dil, mine, state.last).astype(xp.int8),
            defections=state.defections + defect)
        return new, pay.astype(xp.float64), new.t >= self.rounds

    def _step_lockstep(self, state: LedgerState, actions: Array, t0: int
                       ) -> tuple[LedgerState, Array, Array]:
        """`step` for numpy tables all at round `t0`: flat gathers on this round's slices, and
        this round's column of the append-only history written in place."""
        view = self.round_view(state, t0)  # this round's slices, widened once
        mine = np.asarray(actions, dtype=np.int64)
        theirs: Array = mine.ravel().take(view.fp)
        own = view.own + mine  # [subgame, side, own move, partner's move]
        own *= WIDTH
        own += theirs
        pay_kind = PAY_KIND_FLAT.take(own)
        pay = pay_kind >> 1
        kind = pay_kind & 1
        harsh = kind == 0
        state.moves[:, :, t0] = mine
        state.pays[:, :, t0] = pay
        defect = mine == 1
        defect &= view.dil
        dil_bit = view.dil_bit
        # no `where` on a mask that changes seat by seat (numpy's select branches): bits and
        # small-int arithmetic only
        new = state._replace(
            t=state.t + 1, total=state.total + pay, kind=state.kind + kind,
            harsh=state.harsh + harsh, harsh_to=state.harsh_to | (view.bit * harsh),
            dil_met=state.dil_met | dil_bit,
            dil_defect=(state.dil_defect & view.keep) | (dil_bit * (theirs == 1)),
            last=state.last * view.not_dil + defect,  # DILEMMA: the move is DEFECT or not
            defections=state.defections + defect)
        return new, pay.astype(np.float64), new.t >= self.rounds

    # -- what a seat observes --------------------------------------------------------------
    def _medians(self, state: LedgerState) -> Array:
        """(B, 8) the median of each seat's payoffs so far."""
        return medians(np.asarray(state.pays), np.asarray(state.t))

    def observe(self, state: LedgerState) -> Array:
        """(B, 8, 1 + len(FIELDS)) float32 in the `ledger.rl.v1` encoding (zeros once a table
        is done). Host-side numpy: the medians sort each seat's record."""
        p, g, side = (np.asarray(x) for x in self.slot(state))
        b = p.shape[0]
        out = np.zeros((b, SEATS, self.obs_size))
        t = np.asarray(state.t)[:, None]
        heads = [1.0, t / self.rounds, t == self.rounds - 1, g == 0, g == 1, g == 2,
                 np.where(g == DILEMMA_I, 0, side), HI[g, side] / MAX_MOVE]
        for c, value in enumerate(heads):
            out[:, :, c] = value
        c = len(heads)
        med = self._medians(state)
        kind, harsh, total = (np.asarray(x) for x in (state.kind, state.harsh, state.total))
        base = np.arange(b)[:, None] * SEATS
        seat = np.broadcast_to(np.arange(SEATS)[None, :], (b, SEATS))
        for who in (None, base + p):
            k_w, h_w = _gather(kind, who), _gather(harsh, who)
            for value in (_gather(med, who) / MAX_PAY, t / MAX_MEETINGS,
                          k_w / MAX_MEETINGS, h_w / MAX_MEETINGS,
                          _gather(total, who) / TOTAL_SCALE, HALO[k_w, h_w]):
                out[:, :, c] = value
                c += 1
        c = self._entries(state, None, p, out, c)
        self._entries(state, base + p, seat, out, c)
        # a finished table's seats wait, as the rules engine's environments show them
        out[np.asarray(state.t) >= self.rounds] = 0.0
        return out.astype(np.float32)

    def _entries(self, state: LedgerState, who: Array | None, other: Array, out: Array,
                 c: int) -> int:
        """The last HISTORY meetings of each seat's `who` (flat indices into (B, 8); None:
        the seat itself), newest first, each flagged when it was with `other`, written into
        `out` from column `c`; returns the next column."""
        partner, subgame, side = (np.asarray(x) for x in (state.partner, state.subgame,
                                                          state.side))
        moves, pays = np.asarray(state.moves), np.asarray(state.pays)
        t0 = self.lockstep(state)
        t = np.asarray(state.t)
        b = other.shape[0]
        bi = np.arange(b)
        base = bi[:, None] * SEATS
        width = 1 + NG + 6
        for k in range(1, HISTORY + 1):
            if t0 is not None:
                if t0 - k < 0:
                    c += width  # not revealed anywhere: zeros
                    continue
                ok: Any = True
                rows: Any = (slice(None), t0 - k)
                cols_at: Any = (slice(None), slice(None), t0 - k)
            else:
                ok = (t - k >= 0)[:, None]
                rc = np.maximum(t - k, 0)
                rows = (bi, rc)
                cols_at = (bi, slice(None), rc)
            q = _gather(partner[rows], who)
            g = _gather(subgame[rows], who)
            es = np.where(g == DILEMMA_I, 0, _gather(side[rows], who))
            mv_r, py_r = moves[cols_at], pays[cols_at]
            q_flat = base + q
            entry = (1.0, g == 0, g == 1, g == 2, es, _gather(mv_r, who) / HI[g, es],
                     _gather(py_r, who) / MAX_PAY, _gather(mv_r, q_flat) / HI[g, 1 - es],
                     _gather(py_r, q_flat) / MAX_PAY, q == other)
            for value in entry:
                out[:, :, c] = value if ok is True else np.where(ok, value, 0.0)
                c += 1
        return c

    # -- the end ----------------------------------------------------------------------------
    def scores(self, state: LedgerState) -> Array:
        return self._medians(state)

    def reasons(self, state: LedgerState) -> list[str]:
        return ["complete"] * int(state.t.shape[0])

    def ring_pairs(self, state: LedgerState) -> Array:
        """(B,) how many pairs §10 flags, decided exactly in integers as `rings.py` does."""
        partner, pays = np.asarray(state.partner), np.asarray(state.pays)
        b, _, n = partner.shape
        met = np.zeros((b, n, n), dtype=np.int64)
        inside = np.zeros((b, n, n), dtype=np.int64)
        bi = np.arange(b)
        t = np.asarray(state.t)
        for rr in range(int(np.max(t, initial=0))):
            played = (rr < t).astype(np.int64)  # a table's rounds so far only
            for s in range(n):
                q = partner[:, rr, s]
                met[bi, s, q] += played
                inside[bi, s, q] += played * (pays[:, s, rr] + pays[bi, q, rr])
        count = met.sum(axis=2)
        sums = np.where(np.arange(pays.shape[2])[None, None, :] < t[:, None, None], pays,
                        0).sum(axis=2)
        # each meeting was counted from both seats: met[s, q] is the pair's meetings
        out_count = count[:, :, None] + count[:, None, :] - 2 * met
        out_sum = sums[:, :, None] + sums[:, None, :] - inside
        scale = np.where(out_count > 0, out_count, 1)
        flagged = ((met >= MIN_MUTUAL_MEETINGS) & (inside >= MIN_IN_MEAN * 2 * met)
                   & (inside * scale - 2 * met * out_sum >= MIN_DELTA * 2 * met * scale))
        upper = np.triu(np.ones((n, n), dtype=bool), 1)[None]
        return np.asarray((flagged & upper).sum(axis=(1, 2)))

    def record(self, state: LedgerState) -> None:
        """Nothing to keep per step: the state holds every round's payoffs."""
        return None

    def documents(self, state: LedgerState, records: Sequence[Any], seeds: Sequence[int],
                  policy_names: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Each finished table's §9 results document (`Table.results`' keys and order) and
        the descriptor's per-round series (one meeting a seat a round: its payoff)."""
        partner, pays = np.asarray(state.partner), np.asarray(state.pays)
        kind, harsh, total = (np.asarray(x) for x in (state.kind, state.harsh, state.total))
        scores = self._medians(state)
        r = self.rounds
        names_by_table = per_table(policy_names, len(seeds), SEATS)
        out = []
        for i, seed in enumerate(seeds):
            meetings = [(s, int(partner[i, rr, s]), int(pays[i, s, rr]),
                         int(pays[i, partner[i, rr, s], rr]))
                        for rr in range(r) for s in range(SEATS) if s < partner[i, rr, s]]
            rings = detect_rings(meetings).to_json()
            results = {
                "policyNames": list(names_by_table[i]), "aliases": draw_aliases(int(seed)),
                "scores": [float(x) for x in scores[i]],
                "mean": [round(int(pays[i, s].sum()) / r, STAT_DECIMALS) for s in range(SEATS)],
                "total": [int(x) for x in total[i]], "meetings": [r] * SEATS,
                "kind": [int(x) for x in kind[i]], "harsh": [int(x) for x in harsh[i]],
                "halo": [float(HALO[kind[i, s], harsh[i, s]]) for s in range(SEATS)],
                "rounds": r, "maxRounds": r, "ringPairs": len(rings["pairs"]), "rings": rings,
                "reason": "complete", "fallbacks": [0] * SEATS, "timeouts": [0] * SEATS}
            series = {"label": "payoff per meeting",
                      "seats": [[float(pays[i, s, rr]) for rr in range(r)]
                                for s in range(SEATS)]}
            out.append((results, series))
        return out

    def result_fields(self, state: LedgerState) -> dict[str, Array]:
        """Results fields the kernel counts too, by the results document's keys."""
        return {"ringPairs": self.ring_pairs(state)}

    def policy(self, name: str, seat: int) -> LedgerBaseline:
        key = name.strip().lower()
        if key not in BATCH_BASELINES:
            raise ConfigError("seats", f"seats: {name!r} has no batch twin (batch baselines: "
                                       f"{', '.join(BATCH_BASELINES)})")
        return LedgerBaseline(self, key, seat)


@lru_cache(maxsize=8)
def _flat_rows(b: int) -> Array:
    """(B, 1): the flat index of each table's seat 0 in a (B, 8) array (read-only)."""
    out = np.arange(b, dtype=np.int64)[:, None] * SEATS
    out.flags.writeable = False
    return out


def _gather(x: Array, flat: Array | None) -> Array:
    """``x[b, flat[b, s] - 8·b]`` for a (B, 8) array: each seat's entry of another seat of the
    same table, by flat index (None: each seat's own)."""
    return x if flat is None else np.ravel(x)[flat]


def _table(moves: Mapping[str, tuple[int, int]]) -> Array:
    """A baseline's fixed moves by role, ``subgame * 2 + side``."""
    return np.array([moves[name] for name in SUBGAMES], dtype=np.int64).ravel()


def _opportunist() -> Array:
    """Opportunist's move by [role, weak, grab], flat (`baselines.Opportunist`)."""
    o, out = Opportunist, np.zeros((NG, 2, 2, 2), dtype=np.int64)
    for weak in (0, 1):
        for grab in (0, 1):
            out[DILEMMA_I, :, weak, grab] = grab
            out[1, 0, weak, grab] = o.INVEST[0] if weak else o.INVEST[1]
            out[1, 1, weak, grab] = o.RETURN_PERCENT[0] if grab else o.RETURN_PERCENT[1]
            out[2, 0, weak, grab] = o.OFFER[0] if grab else o.OFFER[1]
            out[2, 1, weak, grab] = o.FLOOR
    return out.ravel()


class LedgerBaseline:
    """One of the five baselines over B tables, for one seat (`baselines.py`'s rules)."""

    def __init__(self, kernel: LedgerKernel, name: str, seat: int) -> None:
        self.kernel = kernel
        self.name = name
        self.seat = seat

    def act(self, state: LedgerState) -> Array:
        """This seat's move at every table: lookups by role (``subgame * 2 + side``) and flat
        gathers of the partner's counts."""
        k, s = self.kernel, self.seat
        role, dil, fp, bit = k.seat_round(state, s)
        name = self.name
        if name in ("shark", "saint"):
            return FIXED[name].take(role)
        if name == "grim":  # has the partner been harsh to this seat?
            betrayed = np.asarray(state.harsh_to).ravel().take(fp) >> s
            betrayed &= 1
            return GRIM.take(role * 2 + betrayed)
        # a halo of at least 0.5: kind >= harsh, where kind + harsh = t (a meeting a round)
        t0 = k.lockstep(state)
        t: Any = t0 if t0 is not None else np.asarray(state.t)
        kind2 = np.asarray(state.kind).ravel().take(fp) * 2
        if name == "opportunist":
            weak = kind2 < t
            grab = weak | (t == k.rounds - 1)
            return OPPORTUNIST.take(role * 4 + weak * 2 + grab)
        # mirror: outside DILEMMA by the partner's halo; in DILEMMA its partner's latest
        # DILEMMA move against it, else its latest at all (none: COOPERATE), DEFECT or not
        move = MIRROR.take(role * 2 + (kind2 >= t))  # DILEMMA: 0
        own_defect = np.asarray(state.dil_defect)[:, s] & bit
        met = np.asarray(state.dil_met)[:, s] & bit
        ref_defect = (own_defect != 0) | ((met == 0) & (
            np.asarray(state.last).ravel().take(fp) == 1))
        ref_defect &= dil
        move += ref_defect
        ask = ref_defect & (np.asarray(state.defections).ravel().take(fp) == 1)
        if ask.any():
            rows = np.flatnonzero(ask)
            seeds = np.asarray(state.seeds)[rows].tolist()
            played = np.asarray(state.t)[rows].tolist()
            draws = np.array(first_draws([f"ledger:{x}:seat:{s}:round:{r}"
                                          for x, r in zip(seeds, played, strict=True)]))
            move[rows[draws < Mirror.FORGIVENESS]] = 0
        return move


FIXED: dict[str, Array] = {"shark": _table(Shark.MOVES), "saint": _table(Saint.MOVES)}
GRIM = np.stack([_table(Grim.FAIR), _table(Grim.BETRAYED)], axis=1).ravel()
"""Grim's move by [role, betrayed], flat."""
OPPORTUNIST = _opportunist()
MIRROR = np.stack([_table({DILEMMA: (0, 0), TRUST: Mirror.WARY, ULTIMATUM: Mirror.ULTIMATUM}),
                   _table({DILEMMA: (0, 0), TRUST: Mirror.TRUSTED,
                           ULTIMATUM: Mirror.ULTIMATUM})], axis=1).ravel()
"""Mirror's move by [role, trusted] outside DILEMMA (0 in DILEMMA, where its reference
move is added), flat."""
BATCH_BASELINES = ("mirror", "shark", "grim", "saint", "opportunist")


class LedgerBatch:
    """Ledger's ``extras["batch"]``."""

    baselines = BATCH_BASELINES

    def kernel(self, variant: str | None, options: Mapping[str, Any],
               num_seats: int | None, xp: Any = np) -> LedgerKernel:
        if num_seats is not None and num_seats != SEATS:
            raise ConfigError("seats", f"seats must be {SEATS} (got {num_seats})")
        cfg = build_config(variant, dict(options), 0 if variant != "certification" else None,
                           [])
        return LedgerKernel(cfg.rounds, xp)


BATCH = LedgerBatch()
