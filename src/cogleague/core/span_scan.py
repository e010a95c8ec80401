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
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]


def first_span(text: str, first: int) -> tuple[int, int] | None:
    """``(begin, end)`` of the first ``{`` at or after `first` (a ``{``) whose fresh reader
    closes (at ``end - 1``), or None."""
    codes = np.frombuffer(text[first:].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    n = len(codes)
    quotes = np.flatnonzero(codes == ord('"'))
    braces = np.flatnonzero((codes == ord("{")) | (codes == ord("}")))
    sign = (codes[braces] == ord("{")).view(np.int8) * np.int8(2) - np.int8(1)
    # -- the state after each quote ------------------------------------------------------
    odd = _odd_quotes(quotes, np.flatnonzero(codes == ord("\\")))
    evens = np.cumsum(~odd)  # toggling quotes up to and including each quote
    last_odd = np.maximum.accumulate(np.where(odd, np.arange(len(quotes)), -1))
    since = np.where(last_odd >= 0, evens - evens[np.maximum(last_odd, 0)], evens)
    inside_after = np.where(last_odd >= 0, since % 2 == 0, since % 2 == 1)
    before = np.searchsorted(quotes, braces) - 1  # the last quote before each brace
    inside = (before >= 0) & np.append(inside_after, False)[before]  # before -1: outside
    # -- braces R meets outside strings ----------------------------------------------------
    out_at = braces[~inside]
    depth = np.cumsum(sign[~inside], dtype=np.int64)
    out_min = np.minimum.accumulate(depth[::-1])[::-1]  # min of depth from each on
    found: list[tuple[int, int]] = []
    opens = np.flatnonzero(sign[~inside] == 1)
    if len(opens):
        later = np.append(out_min, np.iinfo(np.int64).max)[opens + 1]
        closing = opens[later <= depth[opens] - 1]
        if len(closing):
            i = int(closing[0])
            j = i + 1 + int(np.argmax(depth[i + 1:] <= depth[i] - 1))
            found.append((int(out_at[i]), int(out_at[j]) + 1))
    # -- braces R meets inside strings -----------------------------------------------------
    in_at = braces[inside]
    if len(in_at) and np.any(sign[inside] == 1):
        odd_at = quotes[odd]
        stretch = np.searchsorted(odd_at, in_at)  # odd quotes before each: its stretch
        inner = np.cumsum(sign[inside], dtype=np.int64)
        big = 4 * (n + 1)
        keyed = inner + stretch * big
        in_min = np.minimum.accumulate(keyed[::-1])[::-1]
        first_in = _first_inner_close(np.flatnonzero(sign[inside] == 1), stretch, inner,
                                      in_min, big, odd_at, out_at, depth, out_min)
        if first_in is not None:
            end = _inner_close(first_in, in_at, stretch, inner, in_min, big, odd_at, out_at,
                               depth, out_min)
            assert end is not None
            found.append((int(in_at[first_in]), end))
    if not found:
        return None
    begin, end = min(found)
    return first + begin, first + end


def _odd_quotes(quotes: Ints, backslashes: Ints) -> npt.NDArray[np.bool_]:
    """Whether each quote follows an odd run of backslashes."""
    if not len(backslashes) or not len(quotes):
        return np.zeros(len(quotes), dtype=bool)
    starts = np.ones(len(backslashes), dtype=bool)
    starts[1:] = backslashes[1:] != backslashes[:-1] + 1
    run_start = backslashes[np.maximum.accumulate(np.where(starts, np.arange(len(starts)),
                                                           0))]
    last = np.searchsorted(backslashes, quotes) - 1  # the last backslash before each quote
    at = np.maximum(last, 0)
    adjacent = (last >= 0) & (backslashes[at] == quotes - 1)
    odd: npt.NDArray[np.bool_] = adjacent & ((quotes - run_start[at]) % 2 == 1)
    return odd


def _first_inner_close(opens: Ints, stretch: Ints, inner: Ints, in_min: Ints, big: int,
                       odd_at: Ints, out_at: Ints, depth: Ints, out_min: Ints) -> int | None:
    """The first of `opens` (R's inside-string ``{``, as indices) whose fresh reader closes:
    `_inner_close` for all of them at once."""
    count = len(stretch)
    level = stretch[opens]
    nxt = np.minimum(opens + 1, count - 1)
    in_stretch = ((opens + 1 < count) & (stretch[nxt] == level)
                  & (in_min[nxt] - level * big <= inner[opens] - 1))
    synced = level < len(odd_at)
    sync = odd_at[np.minimum(level, max(len(odd_at) - 1, 0))] if len(odd_at) else level
    stop = np.searchsorted(stretch, level, side="right")
    own = inner[stop - 1] - inner[opens] + 1
    k = np.searchsorted(out_at, sync)
    synced &= k < len(out_at)
    k = np.minimum(k, len(out_at) - 1)
    base = depth[np.maximum(k - 1, 0)]
    after = synced & (out_min[k] <= base - own)
    closes = np.flatnonzero(in_stretch | after)
    return int(opens[closes[0]]) if len(closes) else None


def _inner_close(i: int, in_at: Ints, stretch: Ints, inner: Ints, in_min: Ints, big: int,
                 odd_at: Ints, out_at: Ints, depth: Ints, out_min: Ints) -> int | None:
    """Where the fresh reader from the inside-string ``{`` number `i` closes (one past), or
    None: first among R's inside braces of its stretch, then, synced, among R's outside ones."""
    level = int(stretch[i])
    target = int(inner[i]) - 1
    same = i + 1 < len(in_at) and int(stretch[i + 1]) == level
    if same and int(in_min[i + 1]) - level * big <= target:
        stop = int(np.searchsorted(stretch, level, side="right"))
        j = i + 1 + int(np.argmax(inner[i + 1:stop] <= target))
        return int(in_at[j]) + 1
    if level >= len(odd_at):
        return None  # no odd quote after it: never in step with R
    sync = int(odd_at[level])
    stop = int(np.searchsorted(stretch, level, side="right"))
    own = int(inner[stop - 1]) - int(inner[i]) + 1  # its depth at the odd quote
    k = int(np.searchsorted(out_at, sync))  # R's first outside brace after it
    if k >= len(out_at):
        return None
    base = int(depth[k - 1]) if k > 0 else 0
    if int(out_min[k]) > base - own:
        return None
    j = k + int(np.argmax(depth[k:] <= base - own))
    return int(out_at[j]) + 1
