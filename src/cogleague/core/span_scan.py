"""The first balanced ``{…}`` span of a long text, found with array operations.

`core.text.first_object_span` reads a reply as a fresh reader from each ``{`` would (outside a
string ``"`` opens one; inside, ``\\`` escapes the next character and ``"`` closes it). Done a
character at a time in Python, a 4 MiB hostile reply (braces that never close) takes seconds.
Here every step is a numpy operation over the quotes and braces:

- A quote preceded by an odd run of backslashes is "odd": inside a string it is escaped (no
  change), outside it opens one — either way the reader is inside after it. Any other quote
  toggles. So the state after each quote is known from the last odd quote and the toggles
  since, with no loop.
- The reader R from the first ``{`` counts the braces it meets outside strings (depth D). A
  fresh reader from a ``{`` that R meets outside a string is R from there on: it closes where D
  first falls below its level (suffix minima of D).
- A fresh reader from a ``{`` that R meets inside a string is R's complement (every toggle
  flips both) up to the next odd quote, after which both are inside: the same reader. Until
  then it counts the braces R sees inside strings (depth C, suffix minima per stretch between
  odd quotes), then goes on as R does.

Memory is the cost that matters on a first call: a process's first 4 MiB reply faults in every
page its arrays touch (the kernel zeroes each, and numpy asks for huge pages on big arrays), so
positions and depths are int32 (a reply is far below 2**31 characters), an ASCII reply is read
a byte per character, positions are found a chunk at a time, and no array is kept longer than
its step needs.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.signedinteger]
Bools = npt.NDArray[np.bool_]

CHUNK = 1 << 20
"""Positions are found this many characters (or values searched) at a time, so numpy's
int64 results stay a few MiB instead of 8 bytes per character of the reply."""

INT32_CHARS = 1 << 29
"""Below this many characters positions and depths are int32 (every sum stays far inside it);
a longer text, which no seat can send, is read with int64."""


def first_span(text: str, first: int) -> tuple[int, int] | None:
    """``(begin, end)`` of the first ``{`` at or after `first` (a ``{``) whose fresh reader
    closes (at ``end - 1``), or None."""
    tail = text[first:]
    wide = not tail.isascii()  # O(1): CPython knows whether a str is ASCII
    raw = tail.encode("utf-32-le", "surrogatepass") if wide else tail.encode("ascii")
    del tail
    codes = np.frombuffer(raw, dtype=np.uint32 if wide else np.uint8)
    n = len(codes)
    dtype: type[np.signedinteger] = np.int32 if n < INT32_CHARS else np.int64
    quotes = _where(codes == ord('"'), dtype)
    backslashes = _where(codes == ord("\\"), dtype)
    opening = codes == ord("{")
    braces = _where(opening | (codes == ord("}")), dtype)
    is_open = opening[braces]
    del codes, raw, opening
    # -- which braces R meets inside a string ---------------------------------------------
    odd = _odd_quotes(quotes, backslashes, dtype)
    del backslashes
    if len(quotes):
        inside_after = np.append(_inside_after(odd, dtype), False)  # [-1]: before any quote
        inside = inside_after[_search(quotes, braces, dtype) - 1]
        del inside_after
        outside = ~inside
        out_at, out_open = braces[outside], is_open[outside]
        del outside
    else:
        inside = None
        out_at, out_open = braces, is_open
    # -- braces R meets outside strings ----------------------------------------------------
    found: list[tuple[int, int]] = []
    depth = _depths(out_open, dtype)
    out_min = _suffix_min(depth)
    closes = out_open[:-1] & (out_min[1:] < depth[:-1])  # an opening R's depth falls below
    del out_open
    if closes.any():
        i = int(np.argmax(closes))
        j = i + 1 + int(np.argmax(depth[i + 1:] < depth[i]))
        found.append((int(out_at[i]), int(out_at[j]) + 1))
    del closes
    # -- braces R meets inside strings -----------------------------------------------------
    if inside is not None and inside.any():
        in_at, in_open = braces[inside], is_open[inside]
        del braces, is_open, inside
        if in_open.any():
            inner_span = _first_inner_span(in_at, in_open, quotes[odd], out_at, depth,
                                           out_min, dtype)
            if inner_span is not None:
                found.append(inner_span)
    if not found:
        return None
    begin, end = min(found)
    return first + begin, first + end


def _where(mask: Bools, dtype: type[np.signedinteger]) -> Ints:
    """`np.flatnonzero(mask)` as `dtype`, found a chunk at a time."""
    out = np.empty(int(np.count_nonzero(mask)), dtype=dtype)
    k = 0
    for start in range(0, len(mask), CHUNK):
        part = np.flatnonzero(mask[start:start + CHUNK])
        out[k:k + len(part)] = part
        out[k:k + len(part)] += start
        k += len(part)
    return out


def _search(sorted_: Ints, values: Ints, dtype: type[np.signedinteger],
            side: str = "left") -> Ints:
    """`np.searchsorted(sorted_, values, side)` as `dtype`, a chunk of values at a time."""
    out = np.empty(len(values), dtype=dtype)
    for start in range(0, len(values), CHUNK):
        out[start:start + CHUNK] = np.searchsorted(sorted_, values[start:start + CHUNK],
                                                   side=side)  # type: ignore[call-overload]
    return out


def _depths(opens: Bools, dtype: type[np.signedinteger]) -> Ints:
    """The running count of openings less closers, through each brace."""
    step = opens.view(np.int8) * np.int8(2)
    step -= np.int8(1)
    return np.cumsum(step, dtype=dtype)


def _suffix_min(values: Ints) -> Ints:
    """The least of `values` from each index on."""
    out: Ints = np.minimum.accumulate(values[::-1])[::-1]
    return out


def _odd_quotes(quotes: Ints, backslashes: Ints, dtype: type[np.signedinteger]) -> Bools:
    """Whether each quote follows an odd run of backslashes."""
    if not len(backslashes) or not len(quotes):
        return np.zeros(len(quotes), dtype=bool)
    starts = np.ones(len(backslashes), dtype=bool)
    starts[1:] = backslashes[1:] != backslashes[:-1] + 1
    run_start = backslashes[np.maximum.accumulate(
        np.where(starts, np.arange(len(starts), dtype=dtype), dtype(0)))]
    del starts
    last = _search(backslashes, quotes, dtype) - 1  # the last backslash before each quote
    at = np.maximum(last, 0)
    adjacent = (last >= 0) & (backslashes[at] == quotes - 1)
    odd: Bools = adjacent & ((quotes - run_start[at]) % 2 == 1)
    return odd


def _inside_after(odd: Bools, dtype: type[np.signedinteger]) -> Bools:
    """Whether R is inside a string just after each quote: an odd quote leaves it inside, any
    other toggles, so it is the parity of the toggles since the last odd quote (inside
    after an even count) or, before any, since the start (inside after an odd count)."""
    toggles = np.cumsum(~odd, dtype=dtype)  # toggling quotes up to and including each
    last_odd = np.maximum.accumulate(np.where(odd, np.arange(len(odd), dtype=dtype),
                                              dtype(-1)))
    seen_odd = last_odd >= 0
    toggles -= np.where(seen_odd, toggles[np.maximum(last_odd, 0)], dtype(0))
    del last_odd
    even: Bools = (toggles % 2) == 0
    return even == seen_odd  # type: ignore[no-any-return]


def _first_inner_span(in_at: Ints, in_open: Bools, odd_at: Ints, out_at: Ints, depth: Ints,
                      out_min: Ints, dtype: type[np.signedinteger]) -> tuple[int, int] | None:
    """The first span opening at one of R's inside-string braces (`in_at`), or None.

    A fresh reader from one counts R's inside braces until the next odd quote (its stretch),
    then goes on as R. Within a stretch the closing test is a suffix minimum of its depths;
    each stretch's depths are shifted above every earlier stretch's, so one suffix minimum
    over all of them never reaches into a later stretch."""
    stretch = _search(odd_at, in_at, dtype)  # odd quotes before each brace: its stretch
    inner = _depths(in_open, dtype)
    count = len(inner)
    starts = np.flatnonzero(np.diff(stretch)) + 1
    bounds = np.concatenate(([0], starts, [count])).astype(dtype)  # each stretch's slice
    del starts
    high = np.maximum.reduceat(inner, bounds[:-1])
    low = np.minimum.reduceat(inner, bounds[:-1])
    shift = np.zeros(len(high), dtype=dtype)
    np.cumsum(high[:-1] - low[1:] + 1, out=shift[1:])  # each stretch above the one before
    lengths = np.diff(bounds)
    keyed = inner + np.repeat(shift, lengths)
    in_min = np.append(_suffix_min(keyed), np.iinfo(dtype).max)
    # -- every opening at once: closes within its stretch, or after it, in step with R -----
    opens = np.flatnonzero(in_open).astype(dtype)
    level = stretch[opens]
    in_stretch = in_min[opens + 1] <= keyed[opens] - 1  # a later stretch is always above
    last = np.repeat(bounds[1:] - 1, lengths)[opens]  # each one's stretch's last brace
    own = inner[last] - inner[opens] + 1  # its depth at the odd quote ending its stretch
    del last
    synced = level < len(odd_at)
    sync = odd_at[np.minimum(level, len(odd_at) - 1)] if len(odd_at) else level
    k = _search(out_at, sync, dtype)  # R's first outside brace after that odd quote
    synced &= k < len(out_at)
    k = np.minimum(k, len(out_at) - 1)
    base = np.where(k > 0, depth[np.maximum(k - 1, 0)], dtype(0))  # R's depth at the quote
    after = synced & (out_min[k] <= base - own)
    closes = np.flatnonzero(in_stretch | after)
    if not len(closes):
        return None
    c = int(closes[0])
    i = int(opens[c])
    if in_stretch[c]:
        j = i + 1 + int(np.argmax(keyed[i + 1:] < keyed[i]))
        return int(in_at[i]), int(in_at[j]) + 1
    kk, target = int(k[c]), int(base[c]) - int(own[c])
    j = kk + int(np.argmax(depth[kk:] <= target))
    return int(in_at[i]), int(out_at[j]) + 1
