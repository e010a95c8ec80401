"""The seeded deal (`setup.deal`, rules §3) for B seeds at once, as arrays.

`deal` shuffles three lists on the ``config.seed`` stream; `random.shuffle` draws
``_randbelow(i + 1)`` for i from the end down to 1, each a ``getrandbits(k)`` (the top k bits
of one 32-bit word, k the bit length of i + 1) redrawn while it is too large. Here every
table reads its stream's first words at once and keeps a pointer that moves exactly where
its shuffle draws, so the three permutations are `deal`'s; the rare table that draws past
the words read is dealt by `setup.deal` itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cogleague.core.rng import stream
from cogleague.games.commons.modules.common import COLORS
from cogleague.games.commons.setup import deal

WORDS = 96
"""32-bit words read per table up front (a deal of 12 seats and 12 patches needs about 50)."""

Array = Any


def _words(seeds: Sequence[int]) -> Array:
    raw = b"".join(stream(int(s)).getrandbits(32 * WORDS).to_bytes(4 * WORDS, "little")
                   for s in seeds)
    return np.frombuffer(raw, dtype="<u4").reshape(len(seeds), WORDS).astype(np.int64)


def _shuffle(values: Array, words: Array, ptr: Array) -> Array:
    """`random.shuffle` of each row of `values` (B, L), advancing `ptr` in place."""
    out = values.copy()
    bi = np.arange(out.shape[0])
    for i in range(out.shape[1] - 1, 0, -1):
        n = i + 1
        shift = 32 - n.bit_length()
        r = words[bi, np.minimum(ptr, WORDS - 1)] >> shift
        redraw = (r >= n) & (ptr < WORDS)
        while redraw.any():
            ptr[redraw] += 1
            r = np.where(redraw, words[bi, np.minimum(ptr, WORDS - 1)] >> shift, r)
            redraw = (r >= n) & (ptr < WORDS)
        ptr += 1
        r = np.minimum(r, i)  # a table past its words is dealt again by `deal`
        a, b = out[bi, i].copy(), out[bi, r]
        out[bi, i], out[bi, r] = b, a
    return out


def batch_deal(seeds: Sequence[int], n: int, patches: int) -> tuple[Array, Array, Array,
                                                                      Array, Array]:
    """(order, favourites, owner, pair_a, pair_b) for every seed: `order[s]` is slot s's
    alias letter (its place among the sorted aliases), favourites colour indices, and for
    each patch its owner and its pair's two partners."""
    b = len(seeds)
    words = _words(seeds)
    ptr = np.zeros(b, dtype=np.int64)
    order = _shuffle(np.tile(np.arange(n), (b, 1)), words, ptr)
    fav = _shuffle(np.tile(np.arange(n) % len(COLORS), (b, 1)), words, ptr)
    d = _shuffle(np.tile(np.arange(patches), (b, 1)), words, ptr)
    owner = d % n
    half = np.arange(patches) // 2
    pair_a = d[:, 2 * half] % n
    pair_b = d[:, np.minimum(2 * half + 1, patches - 1)] % n
    for i in np.flatnonzero(ptr > WORDS):
        setup = deal(int(seeds[int(i)]), n, patches)
        order[i] = [ord(a[-1]) - 65 for a in setup.aliases]
        fav[i] = [COLORS.index(c) for c in setup.favorites]
        owner[i] = setup.owner
        pair_a[i] = [setup.pairs[p // 2][0] for p in range(patches)]
        pair_b[i] = [setup.pairs[p // 2][1] for p in range(patches)]
    return order, fav, owner, pair_a, pair_b
