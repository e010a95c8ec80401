"""The dilemma's batch kernel (`core/batch.py`): B round robins stepped as arrays.

A round asks every seat once per opponent; the kernel takes those turns in the rules engine's
order for each seat (its first-mover pairings by ascending opponent, then its second-mover
ones), one turn of every seat per step, so a round is ``seats - 1`` steps and the last one
reveals and pays every pairing. Promises are text and not part of a batch step (the encoding's
message fields read 0). Choices are action indices: 0 cooperate, 1 defect.

Randomized baselines draw from the rules engine's streams (``dilemma:{seed}:seat{s}:{name}``):
`reset` reads each such seat's stream once, as booleans "this draw is below the baseline's
threshold", and a pointer per seat advances exactly when the scripted twin would draw.

Every step function is pure over `xp` (numpy, or `jax.numpy` under `jax.jit`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from cogleague.core import jsonio
from cogleague.core.batch import (
    TWO_53,
    Array,
    DocTemplate,
    Filling,
    check_actions,
    coded,
    hole,
    per_table,
    stream_ints,
    stream_uniforms,
)
from cogleague.core.errors import ConfigError
from cogleague.core.settlement import split_pot
from cogleague.games.dilemma.aliases import ALIAS_POOL
from cogleague.games.dilemma.baselines.generous_tit_for_tat import forgiveness
from cogleague.games.dilemma.config import DEFAULT_SEATS, DilemmaConfig, make_config
from cogleague.games.dilemma.promises import PROMISE_RULE
from cogleague.games.dilemma.rl import FIELDS, HISTORY
from cogleague.games.dilemma.views import GAME_NAME, RULES_VERSION

HISTORY_BITS = (1 << HISTORY) - 1
NO_DRAWS, EVERY_TURN, AFTER_DEFECTION = 0, 1, 2
"""When a seat's baseline consumes a draw: never, on every turn (random), or when its
opponent's last choice was a defection (generous tit for tat)."""


class _Tally(NamedTuple):
    """A finished batch's documents as arrays (B tables, n seats, R rounds)."""

    rounds: Array  # (B, n, R) each seat's cooperations in each round
    points: Array  # (B, n) int64
    ranks: Array  # (B, n) competition ranks
    coop: Array  # (B, n) cooperations over the episode
    aliases: Array  # (B, n) indexes into ALIAS_POOL
    names: list[list[Any]]  # each table's baseline names by seat
    payouts: Array | None  # (B, n) for paid tables


class DilemmaState(NamedTuple):
    t: Array  # (B,) steps taken
    pending: Array  # (B, n, n) this round's choices so far, 1 = defect
    hist: Array  # (B, n, n) bit j: s cooperated against o j + 1 rounds ago (j < HISTORY)
    coop: Array  # (B, n, n) cooperations of s against o
    defected: Array  # (B, n, n) has s ever defected against o
    points: Array  # (B, n)
    draws: Array  # (B, n, D) draw i of seat s's stream is below its threshold
    ptr: Array  # (B, n) draws consumed
    modes: Array  # (B, n) each seat's draw mode


def alias_indexes(seeds: Sequence[int], seats: int) -> Array:
    """`aliases.draw_aliases` of each seed as indexes into `ALIAS_POOL`, (len(seeds), seats):
    the same Fisher–Yates (`rng.shuffle`) on the same stream's draws, every seed at once. A
    draw's ``int(random() * (i + 1))`` is the same float64 product under numpy."""
    pool = len(ALIAS_POOL)
    u = stream_uniforms([f"dilemma:{seed}:aliases" for seed in seeds], pool - 1)
    perm = np.tile(np.arange(pool, dtype=np.int64), (len(seeds), 1))
    rows = np.arange(len(seeds))
    for d, i in enumerate(range(pool - 1, 0, -1)):
        j = (u[:, d] * (i + 1)).astype(np.int64)
        top = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = top
    return perm[:, :seats]


def _turn_order(n: int) -> tuple[Array, Array]:
    """(opponent, moves first) of each seat's k-th turn, by round parity (1 = odd rounds)."""
    opp = np.zeros((2, n, n - 1), dtype=np.int64)
    first = np.zeros((2, n, n - 1), dtype=bool)
    for parity in (0, 1):
        for s in range(n):
            lower, higher = list(range(s)), list(range(s + 1, n))
            firsts, seconds = (higher, lower) if parity == 1 else (lower, higher)
            opp[parity, s] = firsts + seconds
            first[parity, s, :len(firsts)] = True
    return opp, first


class DilemmaKernel:
    """One configuration (seats, rounds, payoffs) of the dilemma over B tables."""

    def __init__(self, config: DilemmaConfig, xp: Any = np) -> None:
        self.config = config
        self.xp = xp
        n = self.num_seats = config.seats
        self.turns = n - 1  # steps per round
        self.rounds = config.rounds_total
        self.steps_per_episode = self.rounds * self.turns
        self.num_actions = 2
        self.obs_size = 1 + len(FIELDS)
        p = config.payoffs
        # my points indexed [I cooperate][they cooperate]
        self.pay = np.array([[p.punishment, p.temptation], [p.sucker, p.reward]], dtype=np.int64)
        self.opp, self.first = _turn_order(n)
        self.forgive = forgiveness(p)

    # -- episodes -----------------------------------------------------------------------------
    def reset(self, seeds: Sequence[int], lineup: Any = None) -> DilemmaState:
        """B new tables; `lineup` names each seat's baseline (None: an outside policy), for
        every table or, as a list of B line-ups, table by table, so the kernel reads the
        streams the randomized ones draw from."""
        xp, n, b = self.xp, self.num_seats, len(seeds)
        lineups = per_table(lineup, b, n)
        of = {name: self._mode(name) for name in {x for row in lineups for x in row}}
        pairs = np.array([[of[name] for name in row] for row in lineups],
                         dtype=np.int64).reshape(b, n, 2)  # a handful of names, B tables
        modes, below = pairs[:, :, 0].astype(np.int32), pairs[:, :, 1]
        depth = self.steps_per_episode if (modes != NO_DRAWS).any() else 0
        draws = np.zeros((b, n, depth), dtype=bool)
        for s in range(n):
            rows = np.flatnonzero(modes[:, s] != NO_DRAWS)
            if len(rows):
                ks = stream_ints([f"dilemma:{seeds[int(i)]}:seat{s}:{lineups[int(i)][s]}"
                                  for i in rows],
                                 depth)
                draws[rows, s] = ks < below[rows, s][:, None]
        z = xp.zeros((b, n, n), dtype=xp.int32)
        return DilemmaState(
            t=xp.zeros(b, dtype=xp.int32), pending=z,
            hist=z, coop=z,
            defected=xp.zeros((b, n, n), dtype=bool), points=xp.zeros((b, n), dtype=xp.int64),
            draws=xp.asarray(draws), ptr=xp.zeros((b, n), dtype=xp.int32),
            modes=xp.asarray(modes))

    def _mode(self, name: str | None) -> tuple[int, int]:
        """(draw mode, threshold k: a draw `random() * 2**53 < k` is "yes")."""
        if name == "random":
            return EVERY_TURN, TWO_53 // 2
        if name == "generous_tit_for_tat":
            return AFTER_DEFECTION, math.ceil(Fraction(self.forgive) * TWO_53)
        return NO_DRAWS, 0

    def _where(self, state: DilemmaState) -> tuple[Array, Array, Array, Array]:
        """(round index, turn k, opponent, moves first) of every seat's current turn."""
        xp = self.xp
        r = state.t // self.turns
        k = state.t % self.turns
        parity = (r + 1) % 2
        opp = xp.asarray(self.opp)[parity, :, k]  # (B, n)
        first = xp.asarray(self.first)[parity, :, k]
        return r, k, opp, first

    def _pairs(self, state: DilemmaState, opp: Array) -> tuple[Array, Array, Array, Array]:
        """For each seat's current opponent: (mine, theirs) windows, (mine, theirs) counts."""
        xp = self.xp
        bi = xp.arange(state.t.shape[0])[:, None]
        si = xp.arange(self.num_seats)[None, :]
        return (state.hist[bi, si, opp], state.hist[bi, opp, si], state.coop[bi, si, opp],
                state.coop[bi, opp, si])

    def observe(self, state: DilemmaState) -> Array:
        """(B, n, 1 + len(FIELDS)) float32: the `dilemma.rl.v1` features of every seat's turn
        (zeros once a table is done)."""
        xp = self.xp
        r, _, opp, first = self._where(state)
        mine, theirs, c_mine, c_theirs = self._pairs(state, opp)
        b, n = opp.shape
        total = float(self.rounds)
        rnd = (r + 1).astype(xp.float64)[:, None] * xp.ones((1, n))
        revealed = r.astype(xp.float64)[:, None] * xp.ones((1, n))
        safe = xp.maximum(revealed, 1.0)
        head = [xp.ones((b, n)), rnd / total, (rnd == total).astype(xp.float64),
                first.astype(xp.float64), xp.zeros((b, n)), xp.zeros((b, n)),
                xp.where(revealed > 0, c_theirs / safe, 0.0),
                xp.where(revealed > 0, c_mine / safe, 0.0), revealed / total]
        cols = list(head)
        for k in range(HISTORY):
            cols += [(revealed > k).astype(xp.float64), ((mine >> k) & 1).astype(xp.float64),
                     ((theirs >> k) & 1).astype(xp.float64)]
        obs = xp.stack(cols, axis=-1).astype(xp.float32)
        # a finished table's seats wait, as the rules engine's environments show them
        return xp.where((state.t >= self.steps_per_episode)[:, None, None], 0.0, obs)

    def mask(self, state: DilemmaState) -> None:
        return None

    def lockstep(self, state: DilemmaState) -> int | None:
        """The step every table is at, when they all are at the same one under numpy (the
        league's and the benchmarks' case): the fast path then slices instead of gathering."""
        if self.xp is not np:
            return None
        t = state.t
        t0 = int(t[0])
        return t0 if bool((t == t0).all()) else None

    def check(self, actions: Array, state: DilemmaState) -> None:
        """Refuse an action that is not 0 or 1 (`IllegalAction` naming it), on the host: `step`
        checks under numpy; under `jax.jit` it cannot raise, so call this first."""
        check_actions(actions, (np.asarray(state.t).shape[0], self.num_seats), 1)

    def step(self, state: DilemmaState, actions: Array) -> tuple[DilemmaState, Array, Array]:
        """Every seat's current turn answered (B, n) with 0 cooperate / 1 defect."""
        if self.xp is np:
            self.check(actions, state)
        t0 = self.lockstep(state)
        if t0 is not None:
            return self._step_numpy(state, np.asarray(actions), t0)
        return self._step_pure(state, actions)

    def _used(self, modes: Array, fresh: Array, their_last: Array) -> Array:
        """Which seats' baselines draw on this turn, as their scripted twins do."""
        return (modes == EVERY_TURN) | ((modes == AFTER_DEFECTION) & ~fresh
                                        & (their_last == 0))

    def _reveal(self, pending: Array) -> tuple[Array, Array]:
        """(1 = s cooperated against o, each seat's points of the round)."""
        xp = self.xp
        coopf = 1 - pending
        pay = xp.take(xp.asarray(self.pay.ravel()), 2 * coopf + xp.swapaxes(coopf, 1, 2))
        # a seat's own diagonal entry is never played (pending 0: "both cooperate"), drop it
        gained = pay.sum(axis=2) - int(self.pay[1, 1])
        return coopf, gained

    def _step_numpy(self, state: DilemmaState, acts: Array, t0: int
                    ) -> tuple[DilemmaState, Array, Array]:
        """`_step_pure` for tables in lockstep: the same arithmetic on slices."""
        n, b = self.num_seats, acts.shape[0]
        r, k = divmod(t0, self.turns)
        opp = self.opp[(r + 1) % 2, :, k]  # (n,)
        si = np.arange(n)
        ptr = state.ptr
        if state.draws.shape[2]:
            their_last = state.hist[:, opp, si] & 1
            ptr = ptr + self._used(state.modes, np.full((b, 1), r == 0),
                                   their_last).astype(np.int32)
        pending = np.zeros_like(state.pending) if k == 0 else state.pending.copy()
        pending[:, si, opp] = acts
        t = state.t + 1
        done = t >= self.steps_per_episode
        if k != self.turns - 1:
            zero = np.zeros((b, n))
            return state._replace(t=t, pending=pending, ptr=ptr), zero, done
        coopf, gained = self._reveal(pending)
        new = state._replace(
            t=t, pending=pending, hist=((state.hist << 1) | coopf) & HISTORY_BITS,
            coop=state.coop + coopf, defected=state.defected | (pending == 1),
            points=state.points + gained, ptr=ptr)
        return new, gained.astype(np.float64), done

    def _step_pure(self, state: DilemmaState, actions: Array
                   ) -> tuple[DilemmaState, Array, Array]:
        """The step for any array namespace, each table at its own step (pure: jit-able)."""
        xp, n = self.xp, self.num_seats
        r, k, opp, _ = self._where(state)
        acts = xp.asarray(actions).astype(xp.int32)
        _, theirs, _, _ = self._pairs(state, opp)
        ptr = state.ptr + self._used(state.modes, (r == 0)[:, None],
                                     theirs & 1).astype(xp.int32)
        onehot = opp[:, :, None] == xp.arange(n)[None, None, :]  # (B, n, n)
        pending = xp.where((k == 0)[:, None, None], 0, state.pending)
        pending = xp.where(onehot, acts[:, :, None], pending)
        reveal = k == self.turns - 1  # (B,)
        coopf, gained = self._reveal(pending)
        rewards = xp.where(reveal[:, None], gained, 0)
        rv3 = reveal[:, None, None]
        new = DilemmaState(
            t=state.t + 1, pending=pending,
            hist=xp.where(rv3, ((state.hist << 1) | coopf) & HISTORY_BITS, state.hist),
            coop=xp.where(rv3, state.coop + coopf, state.coop),
            defected=xp.where(rv3, state.defected | (pending == 1), state.defected),
            points=state.points + rewards, draws=state.draws, ptr=ptr, modes=state.modes)
        done = new.t >= self.steps_per_episode
        return new, rewards.astype(xp.float64), done

    def scores(self, state: DilemmaState) -> Array:
        return np.asarray(state.points, dtype=np.float64)

    def reasons(self, state: DilemmaState) -> list[str]:
        return ["complete"] * int(state.t.shape[0])

    def record(self, state: DilemmaState) -> Array | None:
        """What a host keeps after a step for `documents`: each seat's cooperations in the
        round the step revealed (None after a step that revealed nothing)."""
        t0 = self.lockstep(state)
        if t0 is None or t0 == 0 or t0 % self.turns:
            return None
        return np.asarray(state.hist & 1).sum(axis=2) - 1  # not the seat's own diagonal

    def _tally(self, state: DilemmaState, records: Sequence[Array | None], seeds: Sequence[int],
               policy_names: Any) -> _Tally:
        """What `documents` and `documents_json` write, as whole-batch arrays."""
        cfg, n = self.config, self.num_seats
        revealed = [r for r in records if r is not None]
        b = len(seeds)
        points = np.asarray(state.points).astype(np.int64, copy=False)
        payouts = None
        if cfg.paid:
            payouts = np.array([split_pot(cfg.stake, cfg.rake_bps, row).payouts
                                for row in points.tolist()], dtype=np.int64).reshape(b, n)
        # a rotation block's tables share a seed, so its aliases are drawn once
        distinct = list(dict.fromkeys(int(seed) for seed in seeds))
        aliases_of = dict(zip(distinct, alias_indexes(distinct, n).tolist(), strict=True))
        return _Tally(
            rounds=(np.stack(revealed, axis=2) if revealed
                    else np.zeros((b, n, 0), dtype=np.int64)),
            points=points,
            ranks=1 + (points[:, None, :] > points[:, :, None]).sum(axis=2),
            coop=np.asarray(state.coop).sum(axis=2) - self.rounds,  # less the own diagonal
            aliases=np.array([aliases_of[int(seed)] for seed in seeds],
                             dtype=np.int64).reshape(b, n),
            names=per_table(policy_names, b, n), payouts=payouts)

    def _documents_of(self, alias: Sequence[Any], policy: Sequence[Any], points: Sequence[Any],
                      rank: Sequence[Any], rate: Sequence[Any], payout: Sequence[Any] | None,
                      shares: Sequence[Sequence[Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
        """One table's results document and series, as the rules engine's `results()` and the
        descriptor's `series` give them (free or paid tables, no promises: text is not part of
        a batch step); with `hole` markers for values, the shape `documents_json` fills."""
        cfg, n = self.config, self.num_seats
        pot, rake = 0, 0
        if cfg.paid:
            split = split_pot(cfg.stake, cfg.rake_bps, [0] * n)  # pot and rake: constants
            pot, rake = split.pot, split.rake
        seats = [{"seat": s, "alias": alias[s], "policy": policy[s], "points": points[s],
                  "rank": rank[s], "cooperation_rate": rate[s], "timeouts": 0,
                  "promises_made": 0, "promises_kept": 0,
                  "payout": None if payout is None else payout[s]} for s in range(n)]
        results = {"game": GAME_NAME, "rules_version": RULES_VERSION, "reason": "complete",
                   "rounds_played": self.rounds, "rounds_total": self.rounds,
                   "promise_rule": PROMISE_RULE, "stake": cfg.stake, "rake_bps": cfg.rake_bps,
                   "pot": pot, "rake": rake, "seats": seats, "scores": list(points)}
        return results, {"label": "cooperation rate", "seats": [list(row) for row in shares]}

    def documents(self, state: DilemmaState, records: Sequence[Array | None],
                  seeds: Sequence[int], policy_names: Any
                  ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Each finished table's results document and per-round series (`_documents_of`)."""
        tally = self._tally(state, records, seeds, policy_names)
        shares = (tally.rounds / (self.num_seats - 1)).tolist()
        rates = (tally.coop / (self.rounds * (self.num_seats - 1))).tolist()
        payouts = None if tally.payouts is None else tally.payouts.tolist()
        aliases = tally.aliases.tolist()
        return [self._documents_of([ALIAS_POOL[a] for a in aliases[i]], tally.names[i], pts,
                                   ranks, rates[i], None if payouts is None else payouts[i],
                                   shares[i])
                for i, (pts, ranks) in enumerate(zip(tally.points.tolist(),
                                                     tally.ranks.tolist(), strict=True))]

    def documents_json(self, state: DilemmaState, records: Sequence[Array | None],
                       seeds: Sequence[int], policy_names: Any) -> list[tuple[str, str]]:
        """`documents`, each as its canonical text (sorted keys), written from the arrays
        through one `DocTemplate` per document: what the league stores, byte for byte what
        `jsonio.dumps` writes for `documents`' dicts."""
        n, b = self.num_seats, len(seeds)
        tally = self._tally(state, records, seeds, policy_names)
        rounds = tally.rounds.shape[2]
        seat = range(n)
        results, series = self._documents_of(
            [hole(f"a{s}") for s in seat], [hole(f"n{s}") for s in seat],
            [hole(f"p{s}") for s in seat], [hole(f"r{s}") for s in seat],
            [hole(f"c{s}") for s in seat],
            None if tally.payouts is None else [hole(f"$ {s}") for s in seat],
            [[hole(f"s{s} {r}") for r in range(rounds)] for s in seat])
        choices = self.rounds * (n - 1)
        rate_texts = [jsonio.dumps(c / choices) for c in range(choices + 1)]
        share_texts = [jsonio.dumps(c / (n - 1)) for c in range(n)]
        alias_texts = [jsonio.quote(a) for a in ALIAS_POOL]
        name_of: dict[str, int] = {}
        names = np.array([[name_of.setdefault(x, len(name_of)) for x in row]
                          for row in tally.names], dtype=np.int64).reshape(b, n)
        name_texts = [jsonio.dumps(x) for x in name_of]
        point_texts, points = coded(tally.points)
        rank_texts, ranks = coded(tally.ranks)
        fill: dict[str, Filling] = {}
        for s in seat:
            fill[f"a{s}"] = (alias_texts, tally.aliases[:, s])
            fill[f"n{s}"] = (name_texts, names[:, s])
            fill[f"p{s}"] = (point_texts, points[:, s])
            fill[f"r{s}"] = (rank_texts, ranks[:, s])
            fill[f"c{s}"] = (rate_texts, tally.coop[:, s])
            for r in range(rounds):
                fill[f"s{s} {r}"] = (share_texts, tally.rounds[:, s, r])
        if tally.payouts is not None:
            payout_texts, payouts = coded(tally.payouts)
            for s in seat:
                fill[f"$ {s}"] = (payout_texts, payouts[:, s])
        return list(zip(DocTemplate(results, sort_keys=True).render(fill, b),
                        DocTemplate(series, sort_keys=True).render(fill, b), strict=True))

    def lineup_policy(self, lineups: Sequence[Sequence[str]]) -> LineupPolicy:
        """Every seat's baseline of every table at once (`LineupPolicy`)."""
        return LineupPolicy(self, lineups)

    def policy(self, name: str, seat: int) -> ArrayBaseline:
        if name not in BATCH_BASELINES:
            raise ConfigError("seats", f"seats: {name!r} has no batch twin (batch baselines: "
                                       f"{', '.join(BATCH_BASELINES)})")
        return ArrayBaseline(self, name, seat)


def _choice(xp: Any, name: str, fresh: Any, their_last: Array, mine_last: Array,
            grudge: Array, drawn: Array) -> Array:
    """A baseline's choice (0 cooperate, 1 defect) from what its seat sees: the first round
    (`fresh`), the opponent's and its own last choice (1 = cooperated), whether the opponent
    ever defected against it, and its draw (below its threshold) where it takes one."""
    if name == "always_cooperate":
        return xp.zeros(their_last.shape, dtype=xp.int32)
    if name == "always_defect":
        return xp.ones(their_last.shape, dtype=xp.int32)
    if name == "tit_for_tat":
        return xp.where(fresh | (their_last == 1), 0, 1)
    if name == "grim_trigger":
        return grudge.astype(xp.int32)
    if name == "pavlov":
        return xp.where(fresh | (mine_last == their_last), 0, 1)
    if name == "random":
        return xp.where(drawn, 0, 1)  # coin(): a draw below one half cooperates
    # generous tit for tat: forgive a defection when the draw is below the probability
    return xp.where(fresh | (their_last == 1) | drawn, 0, 1)


class ArrayBaseline:
    """A built-in baseline's rule over B tables, for one seat."""

    def __init__(self, kernel: DilemmaKernel, name: str, seat: int) -> None:
        self.kernel = kernel
        self.name = name
        self.seat = seat

    def act(self, state: DilemmaState) -> Array:
        kern, s, xp = self.kernel, self.seat, self.kernel.xp
        t0 = kern.lockstep(state)
        if t0 is not None:  # every table faces the same opponent: slices
            r, k = divmod(t0, kern.turns)
            o: Any = int(kern.opp[(r + 1) % 2, s, k])
            bi: Any = slice(None)
            fresh: Any = r == 0
        else:
            r, _, opp, _ = kern._where(state)
            o = opp[:, s]
            bi = xp.arange(o.shape[0])
            fresh = r == 0
        b = state.t.shape[0]
        depth = state.draws.shape[2]
        drawn = state.draws[xp.arange(b), s, xp.minimum(state.ptr[:, s], max(depth - 1, 0))] \
            if depth else xp.zeros(b, dtype=bool)
        return _choice(xp, self.name, fresh, state.hist[bi, o, s] & 1,
                       state.hist[bi, s, o] & 1, state.defected[bi, o, s], drawn)


class LineupPolicy:
    """Every seat's baseline over B tables in lockstep (the league's kernel chunks), table by
    table line-ups: one table look-up a step instead of one `ArrayBaseline` per seat and name.
    The table is `_choice` itself, evaluated once for every baseline and everything a seat can
    see (fresh, their last, my last, grudge, draw: 32 cases)."""

    def __init__(self, kernel: DilemmaKernel, lineups: Sequence[Sequence[str]]) -> None:
        self.kernel = kernel
        code = {name: i for i, name in enumerate(BATCH_BASELINES)}
        for row in lineups:
            for name in row:
                if name not in code:
                    kernel.policy(name, 0)  # the ConfigError naming it
        self.codes = np.array([[code[x] for x in row] for row in lineups],
                              dtype=np.int64).reshape(len(lineups), kernel.num_seats) << 5
        seen = np.arange(32)
        bits = [(seen >> j) & 1 for j in range(5)]
        self.table = np.concatenate([
            _choice(np, name, bits[4] == 1, bits[3], bits[2], bits[1] == 1, bits[0] == 1)
            for name in BATCH_BASELINES]).astype(np.int64)

    def act(self, state: DilemmaState) -> Array | None:
        """(B, seats) actions; None when the tables are not in lockstep under numpy."""
        kern = self.kernel
        t0 = kern.lockstep(state)
        if t0 is None:
            return None
        r, k = divmod(t0, kern.turns)
        opp = kern.opp[(r + 1) % 2, :, k]
        si = np.arange(kern.num_seats)
        seen = self.codes | (16 if r == 0 else 0)
        seen = seen | ((state.hist[:, opp, si] & 1) << 3) | ((state.hist[:, si, opp] & 1) << 2)
        seen |= state.defected[:, opp, si] << 1
        depth = state.draws.shape[2]
        if depth:
            at = np.minimum(state.ptr, depth - 1)
            seen |= state.draws[np.arange(at.shape[0])[:, None], si, at]
        return self.table[seen]


BATCH_BASELINES = ("tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov",
                   "generous_tit_for_tat", "random")


class DilemmaBatch:
    """The dilemma's ``extras["batch"]``."""

    baselines = BATCH_BASELINES

    def kernel(self, variant: str | None, options: Mapping[str, Any],
               num_seats: int | None, xp: Any = np) -> DilemmaKernel:
        given = dict(options)
        given["seats"] = num_seats if num_seats is not None else given.get("seats",
                                                                            DEFAULT_SEATS)
        return DilemmaKernel(make_config(variant, given, 0), xp)


BATCH = DilemmaBatch()
