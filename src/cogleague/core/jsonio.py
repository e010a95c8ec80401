"""Canonical JSON: UTF-8, no ASCII escaping, compact separators, no NaN.

Byte-identical replays rest on this one function. `sort_keys` is per format: Ledger keeps the
listed key order, Commons Family sorts keys.

The standard library's encoder is the reference. When orjson is installed (the ``fast`` extra)
documents are encoded by it instead, several times faster, and only where it provably writes
the reference's bytes: plain dicts with string keys, lists, strings, ints, floats, bools and
None. Anything else (subclasses, non-string keys, integers beyond 64 bits, dataclasses, …)
makes orjson refuse, and the reference encodes the document. The one formatting difference
between the two — floats in 1e-10 < |x| < 1e-4, which orjson writes as ``0.00001`` or ``1e-6``
where Python writes ``1e-05`` / ``1e-06`` — is caught by scanning orjson's output for either
shape (a string that merely contains one costs a re-encode, never a wrong byte). orjson writes NaN
and infinities as ``null`` where the reference raises; games never produce them (a NaN in a
document is a bug the reference path, which every test suite also runs, reports).

``COGLEAGUE_JSON=python`` forces the reference (CI runs the corpus both ways);
``COGLEAGUE_JSON=orjson`` requires the fast path and fails at import without it.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

BACKENDS = ("auto", "python", "orjson")


def _encoder(sort_keys: bool) -> json.JSONEncoder:
    # check_circular=False: artifacts are trees (a cycle would still fail, with RecursionError);
    # skipping the per-container id bookkeeping makes every dump ~10 % cheaper.
    return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                            sort_keys=sort_keys, check_circular=False)


_ENCODERS = {False: _encoder(False), True: _encoder(True)}

# The floats orjson spells differently: 1e-5 <= |x| < 1e-4 as a fixed ``0.0000…`` (Python:
# ``1e-05``) and exponents -6..-9 unpadded, ``…e-6`` (Python: ``e-06``); from e-10 on, and for
# every positive exponent, the two agree. The fixed form starts a number, so a digit before it
# (``20.000000000000004``, which both write alike) is no reason to re-encode.
_SHORT_EXPONENT = re.compile(rb"e-[1-9](?![0-9])")
"""The exponent shape without its leading digit: a literal prefix (``e-``) lets the regex engine
search for it in C, where a leading ``[0-9]`` class made it test every byte (12x slower on a
Commons replay); `_short_exponent` checks the digit before each hit."""
_NUMBER_START = b"[,:-"
"""What may precede a number in compact JSON (or it starts the document)."""


_SCAN = 16
"""Hits of ``.`` or ``-`` `_may_differ` checks one by one before one substring search
covers the rest (documents full of decimals or negative numbers)."""
_ZERO, _E, _DIGITS, _EXPONENT_DIGITS = 0x30, 0x65, b"0123456789", b"123456789"


def _may_differ(out: bytes) -> bool:
    """Whether orjson's `out` holds a float the reference spells differently: a number starting
    ``0.0000`` (``20.000000000000004``, frequent and spelled alike, is no hit) or a one-digit
    negative exponent ``[0-9]e-[1-9]`` not followed by a digit. A string that merely looks like
    one of these costs a re-encode, never a wrong byte.

    Both shapes are found from their rarest byte, ``.`` and ``-``, which `bytes.find` locates
    with one ``memchr`` each (a frame holds a few of each; a search for ``0.0000`` or ``e-``
    instead walks the whole text, ``0`` and ``e`` being everywhere); each hit is checked in
    place. Past `_SCAN` hits of one byte, the substring searches take over."""
    find, end = out.find, len(out) - 1
    i, hits = find(b"."), 0
    while i >= 0:
        if (i and out[i - 1] == _ZERO and out[i + 1:i + 5] == b"0000"
                and (i == 1 or out[i - 2] in _NUMBER_START)):
            return True
        hits += 1
        if hits == _SCAN:
            if _fixed_form(out, max(0, i - 1)):
                return True
            break
        i = find(b".", i + 1)
    i, hits = find(b"-"), 0
    while i >= 0:
        if (i > 1 and i < end and out[i - 1] == _E and out[i - 2] in _DIGITS
                and out[i + 1] in _EXPONENT_DIGITS
                and (i + 1 == end or out[i + 2] not in _DIGITS)):
            return True
        hits += 1
        if hits == _SCAN:
            return _short_exponent(out, max(0, i - 1))
        i = find(b"-", i + 1)
    return False


def _short_exponent(out: bytes, start: int) -> bool:
    """A ``[0-9]e-[1-9]`` not followed by a digit, its ``e`` at or after `start`."""
    for hit in _SHORT_EXPONENT.finditer(out, start):
        i = hit.start()
        if i and out[i - 1] in _DIGITS:
            return True
    return False


def _fixed_form(out: bytes, start: int) -> bool:
    """A number starting ``0.0000`` at or after `start` (a substring search)."""
    i = out.find(b"0.0000", start)
    while i >= 0:
        if i == 0 or out[i - 1] in _NUMBER_START:
            return True
        i = out.find(b"0.0000", i + 1)
    return False


def dumps_reference(doc: Any, *, sort_keys: bool = False) -> str:
    """The reference encoding (the standard library), whatever backend is selected."""
    return _ENCODERS[sort_keys].encode(doc)


def _orjson_encoders() -> dict[bool, Callable[[Any], bytes]] | None:
    """orjson's encoder per `sort_keys` (unchecked: see `_FAST`), or None for the reference."""
    choice = os.environ.get("COGLEAGUE_JSON", "auto")
    if choice not in BACKENDS:
        raise ValueError(f"COGLEAGUE_JSON must be one of {', '.join(BACKENDS)} (got {choice!r})")
    if choice == "python":
        return None
    try:
        import orjson
    except ImportError:
        if choice == "orjson":
            raise
        return None
    plain = (orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
             | orjson.OPT_PASSTHROUGH_DATETIME)
    return {False: functools.partial(orjson.dumps, option=plain),
            True: functools.partial(orjson.dumps, option=plain | orjson.OPT_SORT_KEYS)}


def _fast_encoder() -> Callable[[Any, bool], bytes | None] | None:
    if _RAW is None:
        return None
    raw = _RAW

    def fast(doc: Any, sort_keys: bool) -> bytes | None:
        """orjson's bytes, or None where they might differ from the reference."""
        try:
            out = raw[sort_keys](doc)
        except TypeError:  # orjson.JSONEncodeError: a type or value it will not take
            return None
        return None if _may_differ(out) else out

    return fast


_RAW = _orjson_encoders()
_FAST = _fast_encoder()
BACKEND = "python" if _FAST is None else "orjson"
"""The backend in use (``python`` or ``orjson``)."""


def dumpb(doc: Any, *, sort_keys: bool = False) -> bytes:
    """The canonical encoding as UTF-8 bytes (what files and sockets carry)."""
    if _FAST is not None:
        out = _FAST(doc, sort_keys)
        if out is not None:
            return out
    return _ENCODERS[sort_keys].encode(doc).encode()


def dumps(doc: Any, *, sort_keys: bool = False) -> str:
    """The canonical encoding as text."""
    if _FAST is not None:
        out = _FAST(doc, sort_keys)
        if out is not None:
            return out.decode()
    return _ENCODERS[sort_keys].encode(doc)


def dumps_many(docs: Sequence[Any], *, sort_keys: bool = False) -> list[str]:
    """``[dumps(d, sort_keys=sort_keys) for d in docs]``, checked in one pass: each document's
    orjson bytes are joined with commas (the text of the list of them, so a number never runs
    across two) and `_may_differ` scans the whole once instead of each document's first hits
    one by one (a league's series are full of decimals). Any hit, or a document orjson
    refuses, sends every document through `dumps` on its own."""
    if _RAW is None or len(docs) < 2:
        return [dumps(d, sort_keys=sort_keys) for d in docs]
    encode = _RAW[sort_keys]
    try:
        outs = [encode(d) for d in docs]
    except TypeError:
        return [dumps(d, sort_keys=sort_keys) for d in docs]
    if _may_differ(b",".join(outs)):
        return [dumps(d, sort_keys=sort_keys) for d in docs]
    return [out.decode() for out in outs]


def quote(s: str) -> str:
    """``dumps(s)`` for one string: plain text (printable, no quote or backslash: what turn ids,
    kinds and aliases are) is quoted as it is, anything else goes through the reference."""
    if s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'
    return _ENCODERS[False].encode(s)


def int_bytes(values: Sequence[int], *, ascending: bool = False) -> list[bytes]:
    """``[dumps(v).encode() for v in values]`` for plain integers (no bools: `str` writes them
    as the encoder does): small non-negative ones from a table (`INT_BYTES`), a list look-up
    instead of a conversion each (a replay's running totals are thousands of them). Values
    known to be `ascending` (running totals of non-negative payoffs) are bounded by their
    ends."""
    if values and (values[0] >= 0 and values[-1] < len(INT_BYTES) if ascending
                   else min(values) >= 0 and max(values) < len(INT_BYTES)):
        return list(map(INT_BYTES.__getitem__, values))
    return [str(v).encode() for v in values]


INT_BYTES = [str(i).encode() for i in range(4096)]
"""The encoded text of 0 … 4095 (`int_bytes`)."""


def join_object(items: Iterable[tuple[str, str | list[str]]], *,
                sort_keys: bool = False) -> str:
    """The canonical text of an object whose values are already canonical text (`dumps` of
    each, same `sort_keys`), or lists of the canonical texts of an array's items: documents
    spliced from encoded parts, never re-encoded. One join over every fragment: a megabyte
    replay is copied once (each intermediate copy of that size costs page faults)."""
    out = _object_parts(items, sort_keys)
    return "".join(out) if out else "{}"


def join_bytes(parts: list[str]) -> bytes:
    """``"".join(parts).encode()`` without the whole text: encoded a few dozen parts at a time
    into the one bytes object (a megabyte text beside its megabyte encoding takes fresh pages
    on every call, whose faults cost more than the copies)."""
    return b"".join(["".join(parts[k:k + _CHUNK]).encode() for k in range(0, len(parts), _CHUNK)])


_CHUNK = 64
"""Parts encoded together by `join_bytes` (a replay's parts are a few KB at most)."""


def comma_spaced(texts: Sequence[str]) -> list[str]:
    """`texts` with a comma between each two: the inside of their JSON array, as fragments
    for one join."""
    if not texts:
        return []
    out = [","] * (2 * len(texts) - 1)
    out[::2] = texts
    return out


def _object_parts(items: Iterable[tuple[str, str | list[str]]], sort_keys: bool) -> list[str]:
    """The fragments whose concatenation is `join_object`'s text (empty for no items)."""
    pairs = sorted(items, key=_key) if sort_keys else items
    out: list[str] = []
    for k, v in pairs:
        out.append(("," if out else "{") + quote(k) + ":")
        if isinstance(v, str):
            out.append(v)
        elif v:
            out.append("[")
            out += comma_spaced(v)
            out.append("]")
        else:
            out.append("[]")
    if out:
        out.append("}")  # in the one join: a megabyte text copied again costs page faults
    return out


def _key(item: tuple[str, Any]) -> str:
    return item[0]


def write(path: str | Path, doc: Any, *, sort_keys: bool = False) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(dumpb(doc, sort_keys=sort_keys))
    return p


def read(path: str | Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def first_difference(recorded: Any, derived: Any, path: str = "$", *,
                     sort_keys: bool = False) -> str:
    """Where two JSON documents first differ, as ``path: recorded X, re-derived Y``.

    Replay verifiers use it to say exactly which field failed to re-derive. Keys are visited in
    the recorded order, then keys only the re-derived side has; `sort_keys` compares key order
    insensitively (for formats written with sorted keys)."""

    def same(a: Any, b: Any) -> bool:
        return dumps(a, sort_keys=sort_keys) == dumps(b, sort_keys=sort_keys)

    if isinstance(recorded, dict) and isinstance(derived, dict):
        for key in [*recorded, *(k for k in derived if k not in recorded)]:
            if key not in recorded or key not in derived:
                side = "recorded" if key in recorded else "re-derived"
                return f"{path}.{key}: present only in the {side} document"
            if not same(recorded[key], derived[key]):
                return first_difference(recorded[key], derived[key], f"{path}.{key}",
                                        sort_keys=sort_keys)
    if isinstance(recorded, list) and isinstance(derived, list):
        if len(recorded) != len(derived):
            return f"{path}: {len(recorded)} items recorded, {len(derived)} re-derived"
        for i, (a, b) in enumerate(zip(recorded, derived, strict=True)):
            if not same(a, b):
                return first_difference(a, b, f"{path}[{i}]", sort_keys=sort_keys)
    return f"{path}: recorded {dumps(recorded)[:200]}, re-derived {dumps(derived)[:200]}"
