"""The batch engine's contract: a game's array kernel over B tables (``extras["batch"]``).

A kernel is a second engine for the same rules: B tables held as arrays, stepped together.
Hosts (the vector environments, the league, `cogleague.play(engine="batch")`, the differential
check in `cogleague.testing.batch_check`) never name a game: they read the game's
`BatchGame` from its descriptor. Text channels (promises, notes, chat) are not part of a batch
step; everything that changes a payoff is.

Randomness comes from the rules engine's own named streams (`core/rng.py`): a kernel reads the
same `random.Random` stream's raw words (`stream_ints`, `stream_uniforms`) and turns them into
the very doubles `random()` returns, so a batch table with seed s *is* the rules engine's
episode with seed s.

Kernels are written in a pure array style (no in-place writes on state arrays) over an array
namespace `xp` (numpy by default), so the same step functions also run under `jax.jit`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError, IllegalAction
from cogleague.core.rng import first_bits

if TYPE_CHECKING:
    from cogleague.core.descriptor import GameDescriptor

Array = Any
"""An array of the kernel's namespace: numpy's, or `jax.numpy`'s under `jax.jit`."""

TWO_53 = 9007199254740992  # random() = k / 2**53 with k an integer below 2**53


def stream_ints(names: Sequence[str | int], draws: int) -> Array:
    """``int(random() * 2**53)`` for the first `draws` draws of each named stream: an int64
    array (len(names), draws). `random()` takes two 32-bit words (a >> 5, b >> 6) and
    CPython's `getrandbits` fills a big int from the same words, lowest first, so one call
    reads them all. `random() < x` for an exact threshold x is ``k < ceil(x·2**53)``."""
    if not names:
        return np.zeros((0, draws), dtype=np.int64)
    size = 8 * draws
    raw = b"".join([bits.to_bytes(size, "little") for bits in first_bits(names, 64 * draws)])
    w = np.frombuffer(raw, dtype="<u4").reshape(len(names), draws, 2)
    return ((w[:, :, 0] >> 5).astype(np.int64) << 26) | (w[:, :, 1] >> 6)


def stream_uniforms(names: Sequence[str | int], draws: int) -> Array:
    """The first `draws` values of ``stream(name).random()`` for each name, float64 (B, draws),
    bit for bit."""
    return stream_ints(names, draws) * (1.0 / TWO_53)  # a power of two: exact


_HOLE = "\ue000"  # a private-use character: no game writes it, both encoders keep it as it is


def hole(key: str) -> str:
    """The marker of the value `key` in a document given to `DocTemplate`."""
    return f"{_HOLE}{key}{_HOLE}"


Filling = tuple[Sequence[str], Any]
"""A hole's values: the canonical text of each distinct value, and each table's index into
them, an int array (B,) or one int for every table."""


class DocTemplate:
    """One document shape's canonical text cut at its holes (`hole` markers), so that a kernel
    writes B documents as text straight from its arrays: no dict per table, no encoding per
    table. The text around the holes is the encoder's own (the template is a document encoded
    once), and each value's text is `jsonio.dumps` of it, so a rendered text is byte for byte
    `jsonio.dumps` of the document with its values in place."""

    def __init__(self, doc: Any, *, sort_keys: bool = False) -> None:
        parts = re.split(f'"{_HOLE}(.*?){_HOLE}"', jsonio.dumps(doc, sort_keys=sort_keys))
        self.fragments, self.keys = parts[0::2], parts[1::2]

    def render(self, fillings: Mapping[str, Filling], tables: int) -> list[str]:
        """Each table's text, every hole filled from `fillings` (by key). A table's text is
        one join of a row of vocabulary items, each the fragments and values of a run of
        neighbouring holes whose combinations are few (`FUSED`): fewer, longer items."""
        items: list[tuple[list[str], Any]] = []  # (every text of the run, each table's index)
        for fragment, key in zip(self.fragments, self.keys, strict=False):
            texts, index = fillings[key]
            run = [fragment + text for text in texts]
            if items and len(items[-1][0]) * len(run) <= FUSED:
                before, at = items[-1]
                items[-1] = ([a + b for a in before for b in run],
                             np.asarray(at) * len(run) + np.asarray(index))
            else:
                items.append((run, index))
        if not items:
            return [self.fragments[0]] * tables
        last, at = items[-1]
        items[-1] = ([text + self.fragments[-1] for text in last], at)
        vocab: list[str] = []
        ids = np.empty((tables, len(items)), dtype=np.int64)
        for j, (texts, index) in enumerate(items):
            ids[:, j] = np.asarray(index) + len(vocab)
            vocab += texts
        # rows of the items themselves (an object array's take only counts references)
        return list(map("".join, np.array(vocab, dtype=object)[ids].tolist()))


FUSED = 256
"""At most this many texts for a run of holes `DocTemplate.render` writes as one item."""


def coded(values: Array) -> Filling:
    """An array of JSON scalars as a `Filling` (its distinct values encoded once), the index
    array of `values`' shape."""
    distinct, index = np.unique(np.asarray(values), return_inverse=True)
    return [jsonio.dumps(v) for v in distinct.tolist()], index.reshape(np.shape(values))


def _opaque(xp: Any, x: Array) -> Array:
    """`x` as a value XLA must compute as it stands (an optimization barrier under JAX)."""
    if xp is np:
        return x
    import jax  # an array namespace other than numpy is jax.numpy

    barrier: Any = jax.lax.optimization_barrier
    return barrier(x)


def divide(xp: Any, x: Array, divisor: Any) -> Array:
    """``x / divisor`` correctly rounded, as numpy and Python divide. XLA turns a division by a
    constant or a broadcast value into a multiplication by its reciprocal (a second rounding),
    so under JAX the divisor is handed over as a full float64 array it cannot see through."""
    if xp is np:
        return x / divisor
    d = xp.asarray(divisor, dtype=xp.float64)
    return x / _opaque(xp, xp.broadcast_to(d, xp.broadcast_shapes(xp.shape(x), d.shape)))


def per_table(lineup: Any, tables: int, seats: int) -> list[list[Any]]:
    """A line-up for every table, or a list of `tables` line-ups, as one list per table
    (None: every seat an outside policy)."""
    if lineup is None:
        return [[None] * seats] * tables
    rows = list(lineup)
    if len(rows) == tables and rows and all(isinstance(r, list | tuple) for r in rows):
        return [list(r) for r in rows]
    return [rows] * tables


def act_mixed(kernel: BatchKernel, state: Any, lineups: Sequence[Sequence[str]],
              out: Array, cache: dict[tuple[str, int], BatchPolicy]) -> Array:
    """Every seat's action (B, seats) into `out` when tables seat different baselines: each
    distinct baseline of a seat acts for its tables (`cache` keeps the array policies)."""
    return act_planned(seat_plan(kernel, lineups, cache), state, out)


SeatPlan = list[tuple[int, "BatchPolicy", Array | None]]
"""(seat, array policy, the tables it plays there — None: all of them), for `act_planned`."""


def seat_plan(kernel: BatchKernel, lineups: Sequence[Sequence[str]],
              cache: dict[tuple[str, int], BatchPolicy]) -> SeatPlan:
    """Who plays which tables, seat by seat: the same for every step of an episode, so a host
    stepping many times works it out once (`cache` keeps the array policies)."""
    names = np.asarray(lineups, dtype=object)
    plan: SeatPlan = []
    for seat in range(names.shape[1]):
        distinct = list(dict.fromkeys(names[:, seat]))
        for name in distinct:
            policy = cache.get((name, seat))
            if policy is None:
                policy = cache[(name, seat)] = kernel.policy(name, seat)
            rows = None if len(distinct) == 1 else np.flatnonzero(names[:, seat] == name)
            plan.append((seat, policy, rows))
    return plan


def act_planned(plan: SeatPlan, state: Any, out: Array) -> Array:
    """Every seat's action (B, seats) into `out`, each policy acting for its tables."""
    for seat, policy, rows in plan:
        acted = np.asarray(policy.act(state))
        if rows is None:
            out[:, seat] = acted
        else:
            out[rows, seat] = acted[rows]
    return out



def check_actions(actions: Array, shape: tuple[int, int], high: Array | int,
                  also_bad: Array | None = None) -> Array:
    """A step's actions as (B, seats) int64, or `IllegalAction` naming the first that is not
    an integer index in 0..`high` (one bound, or one per table and seat) or that `also_bad`
    marks: a kernel's step refuses what its mask refuses, never clamps or truncates it."""
    given = np.asarray(actions)
    if given.dtype.kind not in "iu" or given.shape != shape:
        raise IllegalAction(f"actions must be integer indices of shape {shape} (got "
                            f"{given.dtype} of shape {given.shape})")
    a = given.astype(np.int64)
    bad = (a < 0) | (a > high)
    if also_bad is not None:
        bad |= also_bad
    if bad.any():
        i, s = (int(x) for x in np.argwhere(bad)[0])
        top = int(np.broadcast_to(high, shape)[i, s])
        raise IllegalAction(f"actions[{i}]: {int(a[i, s])} is not a legal action of seat {s} "
                            f"now (0..{top}; its mask says which)")
    return a


@runtime_checkable
class BatchKernel(Protocol):
    """One configuration of a game (variant, options, seat count) for B tables.

    A step is one decision of every seat of every table (the step the rules engine asks for,
    split into sub-steps where a seat decides several turns, as `parallel_env` does):
    `observe(state)` is each seat's observation, (B, seats, obs) float32, in the game's RL
    encoding (`extras["rl"]`) with field 0 = 1.0 (deciding); `mask(state)` the legal actions
    (B, seats, actions) int8 or None; `step` takes (B, seats) int action indices and returns
    the new state, each seat's reward (its tally's change), and `done` (B,) bool.

    For the league (`league/batch.py`) a kernel has `record(state)` (what to keep after a
    step) and `documents(state, records, seeds, lineups)` (each table's results document and
    series); it may also offer `documents_json` (the same, as canonical text with sorted keys,
    e.g. through `DocTemplate`) and `lineup_policy(lineups)` (every seat's baseline at once,
    whose `act` gives (B, seats) actions or None), which the league then uses instead."""

    num_seats: int
    num_actions: int
    obs_size: int  # including field 0
    steps_per_episode: int

    def reset(self, seeds: Sequence[int], lineup: Any = None) -> Any:
        """B new tables; `lineup` names the baseline of each seat (None: an outside policy),
        for every table or as a list of B line-ups (`per_table`), so the kernel can read the
        streams its randomized baselines draw from."""

    def observe(self, state: Any) -> Array: ...

    def mask(self, state: Any) -> Array | None: ...

    def step(self, state: Any, actions: Array) -> tuple[Any, Array, Array]: ...

    def scores(self, state: Any) -> Array:
        """(B, seats) float64: the episode scores the rules rank by (valid once done)."""

    def reasons(self, state: Any) -> list[str]:
        """Each table's end reason (valid once done)."""

    def policy(self, name: str, seat: int) -> BatchPolicy:
        """A built-in baseline as an array policy; `ConfigError` when it has no array twin."""


@runtime_checkable
class BatchPolicy(Protocol):
    """A baseline over B tables: one action index per table for its seat, equal to what its
    scripted twin plays at the rules engine's table."""

    def act(self, state: Any) -> Array: ...


@runtime_checkable
class BatchGame(Protocol):
    """What a game declares under ``extras["batch"]``."""

    baselines: tuple[str, ...]
    """The baselines with an array twin (line-ups of only these play through the kernel)."""

    def kernel(self, variant: str | None, options: Mapping[str, Any],
               num_seats: int | None) -> BatchKernel:
        """The kernel for one configuration, validated as the rules engine validates it."""


def play_lineup(kernel: BatchKernel, seeds: Sequence[int], lineup: Sequence[str]
                ) -> tuple[Any, Array]:
    """Play B tables of one line-up of baselines to the end: (final state, rewards per step
    (steps, B, seats)). Every seat is the named baseline's array twin."""
    state = kernel.reset(seeds, lineup)
    policies = [kernel.policy(name, seat) for seat, name in enumerate(lineup)]
    rewards = []
    actions = np.zeros((len(seeds), len(policies)), dtype=np.int32)
    for _ in range(kernel.steps_per_episode):
        for seat, p in enumerate(policies):
            actions[:, seat] = p.act(state)
        state, reward, done = kernel.step(state, actions)
        rewards.append(np.asarray(reward))
        if bool(np.all(np.asarray(done))):
            break
    return state, np.stack(rewards)


def batch_of(desc: GameDescriptor) -> BatchGame | None:
    """The descriptor's ``extras["batch"]`` (None when the game declares no kernel). A game
    may name it as ``"module:ATTR"``, imported here on first use: a descriptor then loads no
    numpy, and `cogleague play GAME` starts without it."""
    batch = desc.extras.get("batch")
    if batch is None:
        return None
    if isinstance(batch, str):
        module, _, attr = batch.partition(":")
        batch = getattr(importlib.import_module(module), attr)
    if not isinstance(batch, BatchGame):
        raise ConfigError("game", f"game {desc.name!r}: extras['batch'] does not implement "
                                  "cogleague.core.batch.BatchGame")
    return batch
