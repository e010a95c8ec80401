"""CPython's `random.Random` seeding and first draws for B named streams at once, in numpy.

`random.Random(name)` seeds MT19937 with `init_by_array` over the 32-bit words of
``int.from_bytes(name + sha512(name), "big")`` (a str name) or of the int itself, lowest word
first. Seeding one generator costs microseconds of sequential C; the batch kernels seed
thousands at a time, so this runs the same recurrences with one array row per step over every
stream (a column each), then the first twist and the tempering, bit for bit. Only the first
624 words of a stream (312 `random()` draws) come from here; `core/rng.py`'s streams stay the
reference (`tests/batch/test_mt19937.py` compares them).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from cogleague.core.rng import seed_int

N, M = 624, 397
WORDS = N  # words of a stream's first twist
CHUNK = 32  # rows of B words the twist and the tempering work on at a time
_U = np.uint32


def _genrand_base() -> np.ndarray:
    """`init_genrand(19650218)`, where every `init_by_array` starts."""
    mt = [19650218]
    for i in range(1, N):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
    return np.array(mt, dtype=_U)


_BASE = _genrand_base()


def _key_bytes(name: str | int) -> bytes:
    """The seed's key as little-endian bytes (`random.seed`'s version 2 for a str)."""
    if isinstance(name, bool) or not isinstance(name, str | int):
        raise TypeError(f"a stream is named by a string or an int (got {name!r})")
    value = seed_int(name) if isinstance(name, str) else abs(name)
    words = max(1, (value.bit_length() + 31) // 32)
    return value.to_bytes(4 * words, "little")


def init_by_array(keys: np.ndarray) -> np.ndarray:
    """MT19937's `init_by_array` for B keys of one length L: (L, B) uint32 -> state (N, B)."""
    length, b = keys.shape
    k = keys + np.arange(length, dtype=_U)[:, None]  # key[j] + j, wrapping as C's uint32
    mt = np.empty((N, b), dtype=_U)
    mt[0] = _BASE[0]
    fresh = np.ones(N, dtype=bool)  # rows still at `_BASE`, read as a scalar (no fill pass)
    t = np.empty(b, dtype=_U)
    c1, c2 = _U(1664525), _U(1566083941)
    i, j = 1, 0
    for _ in range(max(N, length)):
        prev, row = mt[i - 1], mt[i]
        np.right_shift(prev, 30, out=t)
        np.bitwise_xor(t, prev, out=t)
        np.multiply(t, c1, out=t)
        np.bitwise_xor(_BASE[i] if fresh[i] else row, t, out=row)
        fresh[i] = False
        np.add(row, k[j], out=row)
        i, j = i + 1, j + 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
        if j >= length:
            j = 0
    for _ in range(N - 1):
        prev, row = mt[i - 1], mt[i]
        np.right_shift(prev, 30, out=t)
        np.bitwise_xor(t, prev, out=t)
        np.multiply(t, c2, out=t)
        np.bitwise_xor(row, t, out=row)
        np.subtract(row, _U(i), out=row)
        i += 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
    mt[0] = 0x80000000
    return mt


def first_words(mt: np.ndarray, count: int) -> np.ndarray:
    """The first `count` (<= 624) outputs of seeded states (N, B): the first twist, tempered,
    (count, B) uint32. `mt` is overwritten."""
    if not 0 <= count <= N:
        raise ValueError(f"count must be in 0..{N} (got {count})")
    upper, lower, mag = _U(0x80000000), _U(0x7FFFFFFF), _U(0x9908B0DF)
    tmp = np.empty((min(count, CHUNK), mt.shape[1]), dtype=_U)  # small: fewer pages to touch
    # mt[i] depends on old mt[i+1] and on mt[i+397]: old below row 227, new from row 227 on;
    # rows go in order, in chunks that never straddle those blocks
    for lo_b, hi_b in ((0, N - M), (N - M, 2 * (N - M)), (2 * (N - M), N)):
        for lo in range(lo_b, min(hi_b, count), CHUNK):
            h = min(lo + CHUNK, hi_b, count)
            y, t = mt[lo:h], tmp[:h - lo]
            np.bitwise_and(mt[lo + 1:h + 1] if h < N else _rotated(mt, lo, h), lower, out=t)
            y &= upper
            y |= t
            np.bitwise_and(y, _U(1), out=t)
            np.negative(t, out=t)  # 0, or every bit for an odd y
            t &= mag
            y >>= 1
            y ^= t
            y ^= mt[lo + M:h + M] if lo < N - M else mt[lo + M - N:h + M - N]
    y = mt[:count]
    for lo in range(0, count, CHUNK):
        z, t = y[lo:lo + CHUNK], tmp[:min(CHUNK, count - lo)]
        np.right_shift(z, 11, out=t)
        z ^= t
        np.left_shift(z, 7, out=t)
        t &= _U(0x9D2C5680)
        z ^= t
        np.left_shift(z, 15, out=t)
        t &= _U(0xEFC60000)
        z ^= t
        np.right_shift(z, 18, out=t)
        z ^= t
    return y


def _rotated(mt: np.ndarray, lo: int, h: int) -> np.ndarray:
    """Rows lo+1..h of the state with row N read as row 0 (the twist's last word)."""
    return np.concatenate([mt[lo + 1:N], mt[:1]])


def _keys(names: Sequence[str | int]) -> dict[int, tuple[list[int], np.ndarray]]:
    """Every name's key words, grouped by key length: {words: (rows, keys (words, rows))}.

    A str key is the text and its SHA-512 read as one big-endian int, lowest word first:
    the bytes reversed, padded to whole words. Texts of one byte length are reversed in one
    array operation; a text starting with NUL (leading zero bytes drop out of the int) or an
    int goes through `_key_bytes`."""
    sha = hashlib.sha512
    by_len: dict[int, list[int]] = defaultdict(list)
    blobs: list[bytes] = []
    odd: dict[int, bytes] = {}
    for row, name in enumerate(names):
        if type(name) is str and name and name[0] != "\0":
            raw = name.encode()
            blob = raw + sha(raw).digest()
            by_len[len(blob)].append(row)
            blobs.append(blob)
        else:
            blobs.append(b"")
            odd[row] = _key_bytes(name)
    by_words: dict[int, list[tuple[int, list[int]]]] = defaultdict(list)
    for size, rows in by_len.items():
        by_words[(size + 3) // 4].append((size, rows))
    for row, key in odd.items():
        by_words[len(key) // 4].append((-1, [row]))
    out = {}
    for words, parts in by_words.items():
        rows_all = [r for _, rows in parts for r in rows]
        buf = np.zeros((len(rows_all), 4 * words), dtype=np.uint8)
        at = 0
        for size, rows in parts:
            if size < 0:
                buf[at] = np.frombuffer(odd[rows[0]], dtype=np.uint8)
            else:
                joined = b"".join([blobs[r] for r in rows])
                buf[at:at + len(rows), :size] = np.frombuffer(
                    joined, dtype=np.uint8).reshape(len(rows), size)[:, ::-1]
            at += len(rows)
        out[words] = (rows_all, np.ascontiguousarray(buf.view("<u4").T))
    return out


def words_by_draw(names: Sequence[str | int], count: int) -> np.ndarray:
    """The first `count` (<= 624) 32-bit words of ``core.rng.stream(name)`` for every name,
    word-major: (count, len(names)) uint32, the words `random()` and `getrandbits` read."""
    groups = _keys(names)
    if not groups:
        return np.empty((count, 0), dtype=_U)
    if len(groups) == 1:
        ((rows, keys),) = groups.values()
        got = first_words(init_by_array(keys), count)
        return got if rows == list(range(len(rows))) else got[:, np.argsort(rows)]
    out = np.empty((count, len(names)), dtype=_U)
    for rows, keys in groups.values():
        out[:, rows] = first_words(init_by_array(keys), count)
    return out


def stream_words(names: Sequence[str | int], count: int) -> np.ndarray:
    """`words_by_draw` stream-major: (len(names), count) uint32."""
    return words_by_draw(names, count).T


def ints_by_draw(names: Sequence[str | int], draws: int) -> np.ndarray:
    """``int(random() * 2**53)`` for the first `draws` (<= 312) draws of each named stream,
    draw-major int64 (draws, len(names)): `random()` is ``((a >> 5) * 2**26 + (b >> 6)) /
    2**53`` of two consecutive words a, b."""
    w = words_by_draw(names, 2 * draws).reshape(draws, 2, len(names))
    out = w[:, 0].astype(np.int64)
    out >>= 5
    out <<= 26
    out |= w[:, 1] >> 6
    return out


def stream_ints(names: Sequence[str | int], draws: int) -> np.ndarray:
    """`ints_by_draw` stream-major: (len(names), draws) int64."""
    return ints_by_draw(names, draws).T
