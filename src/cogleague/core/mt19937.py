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

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from cogleague.core.rng import seed_bytes, seed_int

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

    A str key is `rng.seed_bytes` read as one big-endian int, lowest word first: the bytes
    reversed, padded to whole words. The texts' bytes are joined once per byte length and
    reversed there in one array operation for all of them; a text starting with NUL (leading
    zero bytes drop out of the int), an empty one or an int goes through `_key_bytes`."""
    text_rows: list[int] = []
    blobs: list[bytes] = []
    odd: list[tuple[int, bytes]] = []
    for row, name in enumerate(names):
        if type(name) is str and name[:1] not in ("", "\0"):
            text_rows.append(row)
            blobs.append(seed_bytes(name))
        else:
            odd.append((row, _key_bytes(name)))
    # {words: [(rows, their keys' little-endian bytes (rows, 4 * words))]}
    parts: dict[int, list[tuple[list[int], np.ndarray]]] = defaultdict(list)
    if blobs:
        sizes = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
        distinct = sorted(set(sizes.tolist()))  # np.unique imports numpy.ma on first use: 8 ms
        for size in distinct:
            if len(distinct) == 1:
                rows, joined = text_rows, b"".join(blobs)
            else:
                at = np.flatnonzero(sizes == size).tolist()
                rows, joined = [text_rows[i] for i in at], b"".join([blobs[i] for i in at])
            words = (size + 3) // 4
            buf = np.zeros((len(rows), 4 * words), dtype=np.uint8)
            buf[:, :size] = np.frombuffer(joined, dtype=np.uint8).reshape(-1, size)[:, ::-1]
            parts[words].append((rows, buf))
    for row, key in odd:
        parts[len(key) // 4].append(([row], np.frombuffer(key, dtype=np.uint8)[None, :]))
    out = {}
    for words, groups in parts.items():
        rows_all = [r for rows, _ in groups for r in rows]
        buf = groups[0][1] if len(groups) == 1 else np.concatenate([b for _, b in groups])
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
