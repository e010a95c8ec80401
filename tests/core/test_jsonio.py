"""The accelerated JSON path writes the reference's bytes, or defers to the reference.

The fast path (orjson, the ``fast`` extra) must never change a byte: these tests encode the
same documents both ways — hypothesis trees over every JSON shape (floats of every magnitude,
control characters, astral code points, sorted and listed keys) and every corpus document —
and compare. They are skipped where orjson is not installed; the corpus test runs with whatever
backend is active, and CI runs it once more with ``COGLEAGUE_JSON=python``.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio

orjson = pytest.importorskip("orjson")
CORPUS = Path(__file__).resolve().parents[1] / "corpus"

finite = st.floats(allow_nan=False, allow_infinity=False)
tiny = st.floats(min_value=-1e-4, max_value=1e-4, allow_nan=False)
scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | finite | tiny
           | st.text(st.characters(codec="utf-8"), max_size=12))
trees = st.recursive(scalars, lambda kids: st.lists(kids, max_size=5)
                     | st.dictionaries(st.text(max_size=6), kids, max_size=5), max_leaves=30)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(trees, st.booleans())
def test_fast_path_writes_the_reference_bytes(doc: object, sort_keys: bool) -> None:
    reference = jsonio.dumps_reference(doc, sort_keys=sort_keys)
    assert jsonio.dumps(doc, sort_keys=sort_keys) == reference
    assert jsonio.dumpb(doc, sort_keys=sort_keys) == reference.encode()


def test_every_float_bit_pattern_sample_matches() -> None:
    """Raw bit patterns reach subnormals and extremes that a value strategy rarely draws."""
    import random

    rnd = random.Random(15)
    values = [struct.unpack("<d", rnd.randbytes(8))[0] for _ in range(20000)]
    values += [x * 10.0 ** e for e in range(-8, 20) for x in (1.0, 1.5, 7.25, 9.999999)]
    values = [v for v in values if math.isfinite(v)]
    assert jsonio.dumps(values) == jsonio.dumps_reference(values)


def test_orjson_refusals_fall_back_to_the_reference() -> None:
    from enum import StrEnum

    class Cause(StrEnum):
        TIMEOUT = "timeout"

    for doc in ({1: "int key"}, {"big": 2**80}, {"cause": Cause.TIMEOUT}, {"t": (1, 2)},
                {"s": "1e-06 and 0.00001 in text"}):
        assert jsonio.dumps(doc) == jsonio.dumps_reference(doc)
    with pytest.raises(ValueError):
        jsonio.dumps_reference({"x": float("nan")})


FAST_ONLY = pytest.mark.skipif(jsonio.BACKEND != "orjson",
                               reason="the fast encoder is off (COGLEAGUE_JSON=python)")


@FAST_ONLY
def test_a_number_merely_containing_0_0000_keeps_the_fast_path() -> None:
    doc = [20.000000000000004, -10.000000000000002, 100.00001, 0.00001, -0.00002]
    assert jsonio.dumps(doc) == jsonio.dumps_reference(doc)
    assert jsonio._FAST is not None
    assert jsonio._FAST(doc[:3], False) is not None  # nothing orjson spells differently
    assert jsonio._FAST(doc[3:4], False) is None and jsonio._FAST(doc[4:], False) is None


@pytest.mark.skipif("COGLEAGUE_JSON" in os.environ, reason="COGLEAGUE_JSON chooses the encoder")
def test_the_fast_path_is_active_when_orjson_is_installed() -> None:
    assert jsonio.BACKEND == "orjson"
    doc = {"a": [1, 2.5, "x"]}
    assert jsonio.dumpb(doc) == orjson.dumps(doc)


def test_corpus_documents_encode_identically_both_ways() -> None:
    files = sorted(CORPUS.glob("*/*.json.gz"))
    assert files
    for path in files:
        stored = gzip.decompress(path.read_bytes())
        sort_keys = path.parent.name == "commons" or path.name.endswith(".log.json.gz")
        doc = json.loads(stored)
        assert jsonio.dumpb(doc, sort_keys=sort_keys) == stored, path.name
        assert jsonio.dumps_reference(doc, sort_keys=sort_keys).encode() == stored, path.name


def test_backend_is_chosen_by_the_environment() -> None:
    code = "from cogleague.core import jsonio; print(jsonio.BACKEND)"
    src = str(Path(jsonio.__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"COGLEAGUE_JSON": "python", "PYTHONPATH": src}, check=True)
    assert out.stdout.strip() == "python"
    bad = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"COGLEAGUE_JSON": "ujson", "PYTHONPATH": src})
    assert bad.returncode != 0 and "COGLEAGUE_JSON must be one of" in bad.stderr


# -- `_may_differ`: the memchr-anchored scan answers exactly as the substring scan it replaced --

_REF_SHORT_EXPONENT = re.compile(rb"[0-9]e-[1-9](?![0-9])")


def _may_differ_reference(out: bytes) -> bool:
    """The previous `_may_differ`, kept as the reference (two substring scans and a regex)."""
    i = out.find(b"0.0000")
    while i >= 0:
        if i == 0 or out[i - 1] in b"[,:-":
            return True
        i = out.find(b"0.0000", i + 1)
    return b"-" in out and b"e-" in out and _REF_SHORT_EXPONENT.search(out) is not None


_TRICKY = st.sampled_from([b"0", b"1", b"9", b".", b"-", b"e", b"E", b",", b":", b"[", b"]",
                           b'"', b"a", b" ", b"0.0000", b"e-", b"e-1", b"0.", b"00", b"e-0"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_TRICKY, max_size=60).map(b"".join))
def test_may_differ_matches_the_reference_on_tricky_bytes(out: bytes) -> None:
    assert jsonio._may_differ(out) == _may_differ_reference(out)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(),
                          st.text(alphabet="0.e-1 x", max_size=8)), max_size=80),
       st.integers(0, 40))
def test_may_differ_matches_the_reference_on_documents(items: list[Any], dashes: int) -> None:
    """Real encodings, past `_SCAN` hits of ``.`` and ``-`` too (the substring fallbacks)."""
    out = json.dumps([*items, "-" * dashes, "." * dashes], separators=(",", ":")).encode()
    assert jsonio._may_differ(out) == _may_differ_reference(out)
    assert jsonio._may_differ(out + b",1e-5]") and _may_differ_reference(out + b",1e-5]")


def test_may_differ_finds_each_shape_after_many_decoys() -> None:
    decoys = b'"' + b"- . " * 40 + b'"'
    for tail in (b"0.00001", b"-0.00001", b"1e-7", b"2.5e-9"):
        doc = b"[" + decoys + b"," + tail + b"]"
        assert jsonio._may_differ(doc) and _may_differ_reference(doc)
    for tail in (b"20.000000000000004", b"1e-10", b"1e-05"):
        doc = b"[" + decoys + b"," + tail + b"]"
        assert not jsonio._may_differ(doc) and not _may_differ_reference(doc)


@pytest.mark.parametrize("tail, expected", [(b"1e-7]", True), (b"1e-17]", False),
                                            (b"xe-7]", False), (b"e-7]", False)])
def test_may_differ_past_the_scan_limit_finds_a_short_exponent_by_its_digit(
        tail: bytes, expected: bool) -> None:
    # more negative numbers than `_SCAN` before the shape: the regex fallback decides
    out = b"[" + b"-1," * (jsonio._SCAN + 5) + tail
    assert jsonio._may_differ(out) is expected
    assert _may_differ_reference(out) is expected


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(trees, max_size=6), st.booleans())
def test_dumps_many_writes_each_documents_reference_bytes(docs: list[object],
                                                          sort_keys: bool) -> None:
    """One scan over the joined documents: a hit or a refusal anywhere re-encodes each on its
    own, and a number at the end of one document never hides behind the next one's start."""
    assert jsonio.dumps_many(docs, sort_keys=sort_keys) == [
        jsonio.dumps_reference(d, sort_keys=sort_keys) for d in docs]


def test_dumps_many_catches_a_short_exponent_at_a_documents_edge() -> None:
    docs: list[object] = [1e-05, 0.5, [2.5, 1e-06], {"x": 1e-07}]
    assert jsonio.dumps_many(docs) == [jsonio.dumps_reference(d) for d in docs]
    assert jsonio.dumps_many([{"a": 0.25}] * 40) == ['{"a":0.25}'] * 40


@given(st.lists(st.text()))
def test_comma_spaced_is_the_inside_of_an_array(texts: list[str]) -> None:
    items = [jsonio.dumps(t) for t in texts]
    assert "[" + "".join(jsonio.comma_spaced(items)) + "]" == jsonio.dumps(texts)
