"""`core/text`'s span finder against the plain one it replaced: same spans on every text.

The reference below is the original scan (one pass from each ``{`` until it closes, then the
next ``{``): obviously right and quadratic. The linear finder must agree with it exactly,
also where they could part: a ``{`` that one reader sees inside a string and a fresh reader
starting there sees outside, backslashes before quotes, braces and other backslashes, runs
that never close. `benchmarks/reply_text.py` times the two.
"""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cogleague.core import span_scan
from cogleague.core import text as text_module
from cogleague.core.errors import IllegalAction
from cogleague.core.span_scan import first_span
from cogleague.core.text import (
    MAX_OBJECT_DEPTH,
    MAX_REPLY_BRACKETS,
    _balanced_spans,
    first_object,
    first_object_span,
)
from cogleague.seats.llm.transport import MAX_RESPONSE_BYTES


def reference_balanced_span(text: str, start: int) -> tuple[int, int] | None:
    """The original `_balanced_span`, kept verbatim as the specification."""
    while start != -1:
        depth = 0
        in_string = escaped = False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return start, i + 1
        start = text.find("{", start + 1)  # unbalanced from here: try the next opening brace
    return None


def reference_first_object_span(text: str, start: int = 0) -> str | None:
    span = reference_balanced_span(text, text.find("{", start))
    return None if span is None else text[span[0]:span[1]]


def reference_depth(text: str, begin: int, end: int) -> int:
    """The most ``{``/``[`` less ``}``/``]`` a fresh reader from `begin` meets before `end`."""
    depth = most = 0
    in_string = escaped = False
    for ch in text[begin:end]:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
            most = max(most, depth)
        elif ch in "}]":
            depth -= 1
    return most


def reference_first_object(text: str) -> dict[str, Any] | None:
    """The first span, no deeper than `MAX_OBJECT_DEPTH`, that parses as a JSON object."""
    span = reference_balanced_span(text, text.find("{"))
    while span is not None:
        try:
            doc = (json.loads(text[span[0]:span[1]])
                   if reference_depth(text, *span) <= MAX_OBJECT_DEPTH else None)
        except (ValueError, RecursionError):
            doc = None
        if isinstance(doc, dict):
            return doc
        span = reference_balanced_span(text, text.find("{", span[0] + 1))
    return None


def reference_spans(text: str, start: int) -> list[tuple[int, int]]:
    """Every span the reference finds, walking on as `first_object` does."""
    out = []
    span = reference_balanced_span(text, text.find("{", start))
    while span is not None:
        out.append(span)
        span = reference_balanced_span(text, text.find("{", span[0] + 1))
    return out


# Texts made of what the scanner reads, with runs of each and a little JSON and prose between.
PIECES = ["{", "}", '"', "\\", "[", "]", ":", ",", "a", " ", "\n", "é", "\ud800", "0",
          '\\"', "\\\\", '"{"', '"}"', "{}", '{"a": 1}', '{"s": "x\\"}"}', "```json\n"]
adversarial = st.lists(
    st.one_of(st.sampled_from(PIECES),
              st.tuples(st.sampled_from(["{", "}", '"', "\\", '\\"', "{\\", '"{']),
                        st.integers(1, 40)).map(lambda run: run[0] * run[1]),
              st.text(alphabet='{}"\\ a:', max_size=8)),
    max_size=40).map("".join)


@settings(max_examples=1000, deadline=None)
@given(text=adversarial, start=st.integers(0, 60))
@example(text='{ "{" }', start=0)
@example(text='"{ \\"}" }', start=0)
@example(text='{"\\', start=0)
@example(text='{\\"}', start=0)
@example(text="{" * 50 + "}", start=0)
def test_spans_are_the_reference_spans(text: str, start: int) -> None:
    start = min(start, len(text))
    assert list(_balanced_spans(text, text.find("{", start))) == reference_spans(text, start)
    assert first_object_span(text, start) == reference_first_object_span(text, start)


@settings(max_examples=500, deadline=None)
@given(text=adversarial)
def test_first_object_is_the_reference_first_object(text: str) -> None:
    assert first_object(text) == reference_first_object(text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=80), start=st.integers(0, 90))
def test_spans_on_any_text(text: str, start: int) -> None:
    assert list(_balanced_spans(text, text.find("{", start))) == reference_spans(text, start)


def test_no_opening_brace_gives_no_span() -> None:
    assert list(_balanced_spans("}}}", -1)) == [] and first_object_span('"}"') is None


class CountingText(str):
    """A str that counts the characters read one by one (``text[i]``), to bound the work
    without a clock."""

    reads = 0

    def __getitem__(self, key: Any) -> str:
        CountingText.reads += 1
        return str.__getitem__(self, key)


def test_unbalanced_braces_are_read_a_bounded_number_of_times() -> None:
    """A reply of n ``{`` that never close: each character read O(1) times, not once per ``{``
    before it (n²/2 = 2,001,000 reads for 2,000 on the scan per ``{``)."""
    for text in ("{" * 2000, '{"' * 1000, "{\\" * 1000 + '"' + "}" * 10):
        CountingText.reads = 0
        first_object_span(CountingText(text))
        first_object(CountingText(text))
        assert CountingText.reads <= 4 * len(text), (text[:8], CountingText.reads)


def counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Where `first_object` starts each JSON parse, from now on."""
    parsed: list[int] = []
    real = text_module._decode

    def counting(text: str, begin: int) -> tuple[Any, int]:
        parsed.append(begin)
        return real(text, begin)

    monkeypatch.setattr(text_module, "_decode", counting)
    return parsed


def test_nested_spans_failing_at_one_place_are_parsed_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """n nested spans that all fail at one character cost one parse, not n (a reply of 2,000
    nested openings that never become JSON); a span opening where the outer one failed may
    still parse alone, and the first object is the reference's."""
    parsed = counting_parses(monkeypatch)
    hostile = '{"a":' * 400 + 'x' + '}' * 400
    assert first_object(hostile) is None
    assert len(parsed) == 1
    for text in ('{{"a": 1}}', '{"k": "{", {"move": "C"}}', '{"a": {"b": x}, "c": {"d": 1}}',
                 '{"s": "\\"{", "t": {"move": 2} y}'):
        assert first_object(text) == reference_first_object(text), text


# Nested past the depth limit: pieces that open, hold and close levels, repeated around it.
LEVEL = st.sampled_from(['{"a":', "{", "[", '{"a":[', '{"s":"{[",', "{x", '"{', '\\"{'])
CLOSE = st.sampled_from(["}", "]", "]}", '"}', "}}"])


@settings(max_examples=200, deadline=None)
@given(opening=LEVEL, levels=st.integers(MAX_OBJECT_DEPTH - 3, MAX_OBJECT_DEPTH + 3),
       core=st.sampled_from(['{"move": 1}', "1", "x", "", '"}"', "[]"]), closing=CLOSE,
       closes=st.integers(0, MAX_OBJECT_DEPTH + 4), prefix=st.sampled_from(["", "[", '"', "{ "]))
def test_first_object_around_the_depth_limit_is_the_reference(
        opening: str, levels: int, core: str, closing: str, closes: int, prefix: str) -> None:
    text = prefix + opening * levels + core + closing * closes
    assert first_object(text) == reference_first_object(text)


def deep_cases() -> list[str]:
    return ['{"a":' * 4000 + "x" + "}" * 4000, "{a: " * 9000 + "}" * 9000,
            '{"a":' * 4000 + '{"move": 1}' + "}" * 4000, "[" * 3000 + '{"b": [' * 3000 + "}",
            '{"a":' * (MAX_OBJECT_DEPTH + 1) + "1" + "}" * (MAX_OBJECT_DEPTH + 1),
            '{"a":' * MAX_OBJECT_DEPTH + "1" + "}" * MAX_OBJECT_DEPTH]


def test_spans_nested_past_the_limit_are_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans nested deeper than `MAX_OBJECT_DEPTH` are skipped unparsed, so 4,000 nested
    levels or 9,000 nested non-JSON objects cost at most a parse per level within the limit
    (each failing at once), not one failing by recursion per span; a span at the limit is
    still read."""
    outer = json.loads('{"a":' * MAX_OBJECT_DEPTH + "1" + "}" * MAX_OBJECT_DEPTH)
    parsed = counting_parses(monkeypatch)
    for i, text in enumerate(deep_cases()):
        parsed.clear()
        got = first_object(text)
        assert len(parsed) <= MAX_OBJECT_DEPTH + 2, (text[:12], len(parsed))
        if i != 2:
            assert got == [None, None, None, None, outer, outer][i], text[:12]
    monkeypatch.undo()
    deep_core = first_object(deep_cases()[2])
    assert deep_core is not None
    depth = 0
    while isinstance(deep_core, dict) and "a" in deep_core:
        deep_core, depth = deep_core["a"], depth + 1
    assert (deep_core, depth) == ({"move": 1}, MAX_OBJECT_DEPTH - 1)


def test_the_outcome_does_not_depend_on_the_callers_stack() -> None:
    """The same reply read from a deep call stack (a caller nested 700 frames down) gives the
    same object: no span within the limit can fail by recursion there."""
    def nested(levels: int, text: str) -> dict[str, Any] | None:
        return first_object(text) if levels == 0 else nested(levels - 1, text)

    for text in deep_cases():
        assert nested(700, text) == first_object(text), text[:12]


# The hostile shapes of `benchmarks/reply_text_cap.py`, small: each read as the reference does.
HOSTILE_SHAPES = ["{", '{"', "{a}", '{"}', '{"\\', "}{", "{}", '{"a":', "{a: ", '{"{":',
                  '{"a": "{', '{ "k" : [', '{"k":{}, "j":[', "[{", '{"a":[']


@settings(max_examples=300, deadline=None)
@given(unit=st.sampled_from(HOSTILE_SHAPES), times=st.integers(1, MAX_OBJECT_DEPTH + 30),
       core=st.sampled_from(["", '{"move": 1}', "x", "1", '"{"', "]"]),
       closing=st.sampled_from(["", "}", "]}", '"}', "}]"]), closes=st.integers(0, 240))
def test_hostile_shapes_read_as_the_reference(unit: str, times: int, core: str, closing: str,
                                             closes: int) -> None:
    text = unit * times + core + closing * closes
    assert first_object(text) == reference_first_object(text)


JSONISH = st.lists(st.sampled_from([*PIECES, '{"a":', '{"{":', '": ', ":", '"k"', ", ", "[",
                                    '{"a": [', "1]", "null", '{"move": 2}', " "]),
                   max_size=30).map("".join)


@settings(max_examples=1000, deadline=None)
@given(text=JSONISH)
def test_first_object_on_json_like_text_is_the_reference(text: str) -> None:
    assert first_object(text) == reference_first_object(text)


@settings(max_examples=2000, deadline=None)
@given(text=adversarial | JSONISH | st.text(alphabet='{}"\\ a', max_size=60))
@example(text='{"\\"{')
@example(text='{"{" \\"}"')
def test_the_array_scan_finds_the_reference_span(text: str) -> None:
    """`core.span_scan`, which `first_object_span` uses on long texts, on short ones."""
    first = text.find("{")
    if first >= 0:
        assert first_span(text, first) == reference_balanced_span(text, first)


@settings(max_examples=500, deadline=None)
@given(text=adversarial, start=st.integers(0, 60), threshold=st.sampled_from([0, 1, 3, 8]))
def test_first_object_span_on_long_texts_is_the_reference(text: str, start: int,
                                                         threshold: int) -> None:
    """`first_object_span` as it reads a long text (its first reader for `SCAN_MIN_CHARS`
    characters, then `core.span_scan`), the threshold lowered so the texts stay short."""
    before = text_module.SCAN_MIN_CHARS
    text_module.SCAN_MIN_CHARS = threshold
    try:
        got = first_object_span(text, min(start, len(text)))
    finally:
        text_module.SCAN_MIN_CHARS = before
    assert got == reference_first_object_span(text, min(start, len(text)))


@settings(max_examples=1000, deadline=None)
@given(text=adversarial | JSONISH | st.text(alphabet='{}"\\ aé', max_size=60),
       chunk=st.sampled_from([1, 2, 3, 7]), int32_chars=st.sampled_from([0, 1 << 29]))
def test_the_array_scan_in_small_chunks_or_int64_is_the_reference(
        text: str, chunk: int, int32_chars: int) -> None:
    """`core.span_scan` finds positions a chunk at a time and reads with int32 below
    `INT32_CHARS`: chunks of a few characters (every boundary somewhere) and int64 (the
    reading of a text past the limit) find the reference span too."""
    first = text.find("{")
    if first < 0:
        return
    before = span_scan.CHUNK, span_scan.INT32_CHARS
    span_scan.CHUNK, span_scan.INT32_CHARS = chunk, int32_chars
    try:
        got = first_span(text, first)
    finally:
        span_scan.CHUNK, span_scan.INT32_CHARS = before
    assert got == reference_balanced_span(text, first)


SCAN_SHAPES = {"open": "{", "escaped": '{"\\', "open_quote": '{"{', "quoted_brace": '{"}',
               "wide": "é{"}


@pytest.mark.parametrize("unit", SCAN_SHAPES.values(), ids=SCAN_SHAPES.keys())
def test_the_array_scan_holds_little_memory_on_a_hostile_reply(unit: str) -> None:
    """A process's first long hostile reply pays, in kernel time, for every fresh page the scan
    touches (0.6 s of a 1 s first call at 4 MiB when it held 75 bytes a character): the scan
    peaks under 32 bytes a character of the reply (numpy's arrays are traced too)."""
    text = unit * (MAX_RESPONSE_BYTES // 4 // len(unit)) + "}"
    tracemalloc.start()
    try:
        span = first_span(text, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert span == next(_balanced_spans(text, 0), None)  # the linear reader
    assert peak <= 32 * len(text), (peak / len(text))


class ScanCountingText(str):
    """A str that counts the characters its ``count`` and ``rfind`` scan: a JSON decoder's
    error finds its line and column with them, over the text up to the failure."""

    scanned = 0

    def count(self, sub: str, start: Any = None, end: Any = None) -> int:
        ScanCountingText.scanned += len(self[start:end])
        return str.count(self, sub, start, end)

    def rfind(self, sub: str, start: Any = None, end: Any = None) -> int:
        ScanCountingText.scanned += len(self[start:end])
        return str.rfind(self, sub, start, end)


@pytest.mark.parametrize("unit", ['{"a":}', '{"a":1,}', '{"a":' * 150 + "x" + "}" * 150])
def test_failing_openings_do_not_each_rescan_the_reply_before_them(unit: str) -> None:
    """Each opening whose parse fails costs the characters it parsed, not its place in the
    reply: a JSON decoder's error scans the text up to the failure for its line and column,
    so parsing in the reply itself made n failing openings cost n²/2 (40,000 ``{"a":}`` took
    4 s; 4 MiB of them, minutes)."""
    text = ScanCountingText(unit * (40_000 // len(unit)))
    ScanCountingText.scanned = 0
    assert first_object(text) is None
    assert ScanCountingText.scanned <= 4 * len(text), ScanCountingText.scanned


@settings(max_examples=1000, deadline=None)
@given(text=adversarial | JSONISH, window=st.sampled_from([1, 2, 5, 17, 40]))
@example(text='{"a": tru', window=1)
@example(text='{"a": "\\ud834\\udd1e", "b": 1e5}', window=17)
@example(text='{"a": [1, 2, 3]} {"b": 12345678901234567890}', window=5)
def test_first_object_in_small_windows_is_the_reference(text: str, window: int) -> None:
    """`first_object` parses each opening in a window grown until the outcome cannot depend on
    what follows: with windows of a few characters (every edge somewhere) it reads as the
    reference does."""
    before = text_module.DECODE_WINDOW
    text_module.DECODE_WINDOW = window
    try:
        got = first_object(text)
    finally:
        text_module.DECODE_WINDOW = before
    assert got == reference_first_object(text)


@pytest.mark.parametrize("text", ['{"a":' * 700_000 + "x" + "}" * 700_000,
                                  '{"a":' + "[" * 4_000_000 + "]" * 10,
                                  '{"a":}' * 600_000 + '{"action": "defect"}'])
def test_a_reply_of_more_brackets_than_the_cap_is_refused_unread(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``{`` and ``[`` a reply holds may cost a parse or a step of Python: past
    `MAX_REPLY_BRACKETS` the reply is refused before any parse, by a refusal (an
    `IllegalAction`, code ``parse``) that names the count and the cap, so the model is told
    (700,000 nested ``{"a":`` took 0.45 s to read, 600,000 failing openings seconds)."""
    parsed = counting_parses(monkeypatch)
    with pytest.raises(IllegalAction) as refused:
        first_object(text)
    assert parsed == []
    assert refused.value.code == "parse"
    count = text.count("{") + text.count("[")
    assert f"{count:,}" in str(refused.value) and f"{MAX_REPLY_BRACKETS:,}" in str(refused.value)


def test_a_reply_at_the_bracket_cap_is_read() -> None:
    text = "[" * (MAX_REPLY_BRACKETS - 1) + '{"action": "defect"}'
    assert first_object(text) == {"action": "defect"}
    with pytest.raises(IllegalAction):
        first_object("[" + text)
