"""Named seeded streams. Every random draw in cogleague comes from one of these.

A stream is a `random.Random` seeded with a string, or an int where a game's rules fix a
numeric seed (stable across processes and Python >= 3.11, independent of PYTHONHASHSEED). No
game constructs `random.Random` itself. The helpers only call `random()`, whose sequence CPython
guarantees, so a schedule drawn today is the schedule drawn on any later version.
"""

from __future__ import annotations

import _random
import hashlib
import random
import secrets
from collections.abc import Callable, Iterable
from typing import TypeVar

SEED_MAX = 2**63 - 1
"""Seeds are ints in 0..SEED_MAX everywhere (games, tables, leagues). A game's rules may narrow
it (Ledger's spec: 0..2147483647); none widens it."""
RANDOM_SEED_BELOW = 2**31
"""A seed drawn when none is given (OS entropy, recorded in the replay) is below this, so it
fits every game's range."""


def random_seed() -> int:
    return secrets.randbelow(RANDOM_SEED_BELOW)

T = TypeVar("T")


def stream(name: str | int) -> random.Random:
    """A fresh stream for a name such as ``ledger:7:schedule``. An int names a stream whose
    seed the rules fix as a number (Commons Family §3: the deal is ``config.seed``, seat s
    plays on ``policy_seed * 1000 + s``); an int seed is as stable as a string one."""
    if isinstance(name, bool) or not isinstance(name, str | int):
        raise TypeError(f"a stream is named by a string or an int (got {name!r})")
    return random.Random(name)


def below(rng: random.Random, n: int) -> int:
    """A uniform int in 0..n-1 drawn with one `random()` call."""
    return int(rng.random() * n)


def shuffle(rng: random.Random, items: list[T]) -> list[T]:
    """Fisher–Yates from the top, one `below(i + 1)` per position; in place, and returned."""
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def coin(rng: random.Random) -> bool:
    return rng.random() < 0.5


_SHA512: Callable[[bytes], hashlib._Hash] = hashlib.sha512
"""Bound once: `seed_bytes` runs per named stream, thousands of times a batch step."""
try:  # CPython's own SHA-512 starts cheaper than OpenSSL's for a short text (0.42 vs 0.50 us)
    from _sha512 import sha512 as _builtin_sha512  # type: ignore[import-not-found]

    _SHA512 = _builtin_sha512
except ImportError:  # pragma: no cover - Python >= 3.12 keeps it in _sha2
    pass
_FROM_BYTES = int.from_bytes


def seed_bytes(name: str) -> bytes:
    """The text followed by its SHA-512: the bytes `random.seed` (version 2) reads, big-endian,
    as the int a named stream's generator is seeded with."""
    raw = name.encode()
    return raw + _SHA512(raw).digest()


def seed_int(name: str) -> int:
    """The int `random.seed` seeds with for a str: ``random.Random(seed_int(s))`` draws what
    ``random.Random(s)`` draws."""
    return _FROM_BYTES(seed_bytes(name), "big")


_ONE = random.Random()
"""One generator reseeded by `first_draws`: seeding is the cost there, not the object."""


def first_draws(names: Iterable[str]) -> list[float]:
    """``stream(name).random()`` for each name: the one draw a per-decision stream gives (a
    batch kernel reads hundreds of them a step), from one reseeded generator. The C seeding
    (`_random.Random.seed`, without `random.Random.seed`'s Python layer) with `seed_int`'s
    int is most of a draw's cost."""
    one, seed, draw, sha, from_bytes = _ONE, _random.Random.seed, _ONE.random, _SHA512, _FROM_BYTES
    out: list[float] = []
    append = out.append
    for name in names:  # `seed_int`, inlined: a call frame less per draw
        raw = name.encode()
        seed(one, from_bytes(raw + sha(raw).digest(), "big"))
        append(draw())
    return out


def first_bits(names: Iterable[str | int], bits: int) -> list[int]:
    """``stream(name).getrandbits(bits)`` for each name (a batch kernel reads a table's whole
    stream at once), from one generator reseeded as `first_draws` seeds it: a fresh
    `random.Random` costs a Python ``__init__`` and ``seed`` besides the C seeding. The
    generator is this call's own, so threads calling at once never share one."""
    one = _random.Random(0)
    seed, getrandbits, sha, from_bytes = (_random.Random.seed, one.getrandbits, _SHA512,
                                          _FROM_BYTES)
    out: list[int] = []
    append = out.append
    for name in names:
        if type(name) is str:
            raw = name.encode()
            seed(one, from_bytes(raw + sha(raw).digest(), "big"))
        elif type(name) is int:  # `random.seed` hands an int to the C seeding as it is
            seed(one, name)
        else:
            stream(name)  # a str or int subclass, or a TypeError naming what was given
            seed(one, seed_int(name) if isinstance(name, str) else int(name))
        append(getrandbits(bits))
    return out
