"""Text from seats: cut on code-point boundaries, cleaned, and quoted as data for prompts.

Python strings are sequences of code points, so slicing never splits a character and the
result always encodes to valid UTF-8.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, TypeVar

ELLIPSIS = "…"
REPLACEMENT = "\ufffd"


def strip_controls(text: str) -> str:
    """CR, LF and TAB become spaces; every other Cc (control) character is dropped; a lone
    surrogate (what a JSON escape such as ``\\ud800`` in a model's reply decodes to: not a
    character, so no file, socket or database can hold it) becomes U+FFFD, as Go's decoder
    reads it (the Commons seed cuts text "on rune boundaries")."""
    if text.isprintable():  # no Cc or Cs at all (the common case): nothing to replace or drop
        return text
    out = []
    for ch in text:
        if ch in "\r\n\t":
            out.append(" ")
        else:
            category = unicodedata.category(ch)
            if category == "Cc":
                continue
            out.append(REPLACEMENT if category == "Cs" else ch)
    return "".join(out)


_SURROGATE = re.compile("[\ud800-\udfff]")


def mend_surrogates(text: str) -> str:
    """Each lone surrogate as U+FFFD, all else as it is: text a provider decoded from a JSON
    escape (``\\ud800``) that no UTF-8 request body, file or database can carry."""
    return text if text.isascii() else _SURROGATE.sub(REPLACEMENT, text)


def cut(text: str, limit: int) -> str:
    """The first `limit` code points."""
    return text[:limit]


def cut_with_ellipsis(text: str, limit: int) -> str:
    """Over `limit` code points: the first limit-1 plus "…" (so the result is <= limit)."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + ELLIPSIS


def clean_note(text: object, limit: int) -> str:
    """Seat free text to a safe one-liner: controls out, stripped, cut with an ellipsis.

    Non-strings give "" (no note)."""
    if not isinstance(text, str):
        return ""
    return cut_with_ellipsis(strip_controls(text).strip(), limit)


def quote(text: str) -> str:
    """Seat text as a JSON string literal: shown to models as data, never as instructions."""
    return json.dumps(text, ensure_ascii=False)


SCAN_MIN_CHARS = 4096
"""From this many characters after the first ``{``, `first_object_span` reads with array
operations (`core.span_scan`): a few ms more on a short reply, seconds less on a hostile
4 MiB one."""


def first_object_span(text: str, start: int = 0) -> str | None:
    """The first balanced ``{…}`` span at or after `start`, braces inside JSON strings ignored;
    None if none. Models wrap their JSON in prose or code fences; this finds what they meant."""
    first = text.find("{", start)
    if first >= 0 and len(text) - first >= SCAN_MIN_CHARS:
        # no span ends past the last "}", and no "{" after it opens one
        span = _closing_span(text[:text.rfind("}") + 1], first)
    else:
        span = next(_balanced_spans(text, first), None)
    return None if span is None else text[span[0]:span[1]]


def _closing_span(text: str, first: int) -> tuple[int, int] | None:
    """`_balanced_spans`' first span of a long text: the first reader's own close if it comes
    soon (a model's reply: its object at once), else `core.span_scan`."""
    if first >= len(text):
        return None
    depth = 0
    for i, ch in _braces(text, first, first + SCAN_MIN_CHARS):
        depth += 1 if ch == "{" else -1
        if depth == 0:
            return first, i + 1
    from cogleague.core.span_scan import first_span  # numpy: only for a long reply

    return first_span(text, first)


_TOKEN = re.compile(r'[{}"\\]')


def _balanced_spans(text: str, start: int) -> Iterator[tuple[int, int]]:
    """Every ``(begin, end)`` whose ``{`` at `begin` (at or after `start`; none when -1) closes
    at ``end - 1``, each read as a fresh reader starting at `begin` would: outside a string,
    ``"`` opening and closing strings, ``\\`` escaping the next character inside one.

    The first ``{`` is read on until it closes (a model's reply: at once); the others, when
    asked for, in one pass from the right instead of one scan each, so a reply of n ``{``
    that never close costs n steps, not n²/2 (a hostile reply must not hold the event loop)."""
    if start < 0:
        return
    end = _closing(text, start)
    if end is not None:
        yield start, end
    yield from _later_spans(text, text.find("{", start + 1))


def _braces(text: str, start: int, stop: int | None = None) -> Iterator[tuple[int, str]]:
    """The braces a reader from `start` meets outside strings (to `stop`, exclusive): ``"``
    opens and closes a string, ``\\`` inside one escapes the next character."""
    in_string, escaped = False, -1
    tokens = _TOKEN.finditer(text, start) if stop is None else _TOKEN.finditer(text, start,
                                                                                stop)
    for m in tokens:
        i, ch = m.start(), m.group()
        if in_string:
            if i == escaped:
                continue
            if ch == "\\":
                escaped = i + 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch != "\\":
            yield i, ch


def _closing(text: str, start: int) -> int | None:
    """One past the ``}`` that closes the ``{`` at `start`, or None."""
    depth = 0
    for i, ch in _braces(text, start):
        depth += 1 if ch == "{" else -1
        if depth == 0:
            return i + 1
    return None


def _later_spans(text: str, start: int) -> Iterator[tuple[int, int]]:
    """`_balanced_spans` in one pass from the right over the braces, quotes and backslashes.

    ``outside[i]`` is the token index of the first unmatched ``}`` a reader meets entering
    token i outside a string (-1: none); entering inside a string needs only the next two."""
    if start < 0:
        return
    where = [m.start() for m in _TOKEN.finditer(text, start)]
    n = len(where)
    outside = [-1] * (n + 1)
    inside = inside_after = -1  # a reader entering token i+1 (i+2) inside a string
    for i in range(n - 1, -1, -1):
        ch, after = text[where[i]], outside[i + 1]
        if ch == '"':
            outside[i], inner = inside, after
        elif ch == "\\":  # escapes the next token only when it is the next character
            escaped_next = i + 1 < n and where[i + 1] == where[i] + 1
            outside[i], inner = after, inside_after if escaped_next else inside
        elif ch == "{":
            outside[i], inner = (-1 if after < 0 else outside[after + 1]), inside
        else:
            outside[i], inner = i, inside
        inside, inside_after = inner, inside
    for i in range(n):
        close = outside[i + 1]
        if close >= 0 and text[where[i]] == "{":
            yield where[i], where[close] + 1


MAX_INT_DIGITS = 4300
"""An integer literal of more digits is not read as a number (Python's default int/str
conversion limit, fixed here so a reply reads the same in every process)."""


class LongInteger:
    """An integer literal in a seat's text too long to read (over `MAX_INT_DIGITS` digits).

    Not a number: where the rules need one it is refused as any non-number is (quoted briefly
    by its digit count, never converted); elsewhere the reply is read and it is ignored."""

    __slots__ = ("digits", "negative")

    def __init__(self, literal: str) -> None:
        self.negative = literal.startswith("-")
        self.digits = len(literal) - self.negative

    def __repr__(self) -> str:
        return f"<an integer of {self.digits} digits>"


def _read_int(literal: str) -> int | LongInteger:
    if len(literal) - literal.startswith("-") > MAX_INT_DIGITS:
        return LongInteger(literal)
    return int(literal)


def loads_reply(text: str | bytes) -> Any:
    """`json.loads` for a seat's text (or a provider's response body): an integer literal past
    `MAX_INT_DIGITS` digits is a `LongInteger` rather than a ValueError that makes the whole
    reply unreadable. Raises `json.JSONDecodeError` (and RecursionError) as `json.loads`
    does."""
    return _read(lambda: json.loads(text), lambda: json.loads(text, parse_int=_read_int))


MAX_OBJECT_DEPTH = 200
"""A span nested deeper than this (``{`` and ``[`` levels) is not read as JSON. The JSON reader
recurses per level and fails past the recursion limit (about 1,000 levels, fewer the deeper
the caller's own stack), one costly failure per nested span: the limit, well under it, makes
the outcome the same from any caller and the cost linear. No model's move is nested this deep."""


_CANDIDATE = re.compile(r'\{(?=[ \t\n\r]*(?:\}|"(?:[^"\\]|\\.)*+"[ \t\n\r]*:))', re.S)
"""A ``{`` that can open a JSON object: ``}``, or a key string and ``:``, after its blanks (the
string read leniently, so every object's opening matches). At any other ``{`` a JSON reader
fails at once, on a blank or in the key, with no brace between: skipping it unparsed changes
nothing. Two openings' key strings never overlap (the ``"`` after a ``{`` ends any string
before it), so finding them all reads each character O(1) times, in the regex engine."""

_DECODER = json.JSONDecoder()
_LONG_DECODER = json.JSONDecoder(parse_int=_read_int)


class _ParseFailed(Exception):
    """A JSON parse from an opening failed at `pos` (in the reply)."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


DECODE_WINDOW = 256
"""`_decode` first parses this many characters from the opening, then four times as many,
until the parse ends inside the window or fails clearly short of its edge."""

_EDGE = 16
"""A failure this close to a window's edge may be the edge's doing (``tru`` of ``true``,
``\\u12`` of an escape, a number's last digits): parsed again in a larger window."""


def _decode(text: str, begin: int) -> tuple[Any, int]:
    """The JSON value at `begin` and one past its end, read as `loads_reply` reads one;
    `_ParseFailed` where a parse of the whole text fails.

    Parsed in a window of the text from `begin`, grown until the outcome cannot depend on
    what follows it: a JSON decoder's error finds its line and column by scanning the string
    it reads up to the failure, so parsing in the whole reply would make each failing opening
    cost its place in the reply (n failing openings, n²/2). A parse that ends inside the
    window read nothing past it; a failure clearly short of the edge, other than a string
    running to it ("Unterminated string", reported where the string starts), fails there in
    the whole text too."""
    size = DECODE_WINDOW
    while True:
        window = text[begin:begin + size]
        try:
            doc, end = _read(partial(_DECODER.raw_decode, window, 0),
                             partial(_LONG_DECODER.raw_decode, window, 0))
        except json.JSONDecodeError as exc:
            whole = begin + size >= len(text)
            if whole or (exc.pos + _EDGE < len(window)
                         and not exc.msg.startswith("Unterminated string")):
                raise _ParseFailed(begin + exc.pos) from None
            size *= 4
            continue
        return doc, begin + end


_T = TypeVar("_T")


def _read(plain: Callable[[], _T], marking: Callable[[], _T]) -> _T:
    """`plain` (the C reader, under Python's default digit limit) unless an integer literal
    past the limit stops it, then `marking` (the reader that makes it a `LongInteger`); a
    process with another limit reads with `marking` alone, so every process reads alike."""
    if sys.get_int_max_str_digits() == MAX_INT_DIGITS:
        try:
            return plain()
        except json.JSONDecodeError:
            raise
        except ValueError:  # an integer literal past the limit: read again, marking it
            pass
    return marking()


MAX_REPLY_BRACKETS = 10_000
"""A reply holding more ``{`` and ``[`` than this is refused unread by `first_object`. Each one
may cost a parse or a step of Python (a failing opening, a level of a too-deep span), so
without a cap a 4 MiB reply of them holds the event loop for seconds; a move is one small
object, and a reply of thousands of brackets is no move a model meant."""


def _too_many_brackets(text: str) -> Exception | None:
    """The refusal of a reply past `MAX_REPLY_BRACKETS`, or None (counted at C speed)."""
    count = text.count("{") + text.count("[")
    if count <= MAX_REPLY_BRACKETS:
        return None
    from cogleague.core.errors import IllegalAction  # errors imports core.seat: kept lazy

    return IllegalAction(f"the reply holds {count:,} '{{' and '[' (at most "
                         f"{MAX_REPLY_BRACKETS:,}): reply with one JSON object", code="parse")


def first_object(text: str) -> dict[str, Any] | None:
    """The first balanced span that parses as a JSON object, or None; an `IllegalAction`
    (code ``parse``) for a reply of more than `MAX_REPLY_BRACKETS` ``{`` and ``[``.

    Lenient on purpose: a span that is not JSON (``{thinking}``) is skipped, not fatal, and so
    is a span nested deeper than `MAX_OBJECT_DEPTH`. Games whose rules read strictly the first
    span use `first_object_span`.

    Read without finding the spans: a JSON reader from a ``{`` that reads an object ends at
    the ``}`` a brace reader from there closes on (the two agree on strings and braces while
    the text is JSON), and fails where a parse of that span fails; so trying the openings in
    turn finds the first span that parses. Only `_CANDIDATE` openings are tried, so a reply of
    millions of braces that open no object costs no parse.

    A reader failing at character p fails every opening nested in it that it met outside its
    strings and that is still open at p: parsing a JSON value does not depend on what came
    before it, so a fresh parse from that ``{`` takes the same steps to the same failure.
    Those are skipped unparsed, so n nested openings failing at one place cost one parse, not
    n; an object read too deep (or failing by recursion) skips, found in one pass, the
    openings in it nested past the limit (a hostile reply must not hold the event loop); the
    bracket cap bounds all of it."""
    refusal = _too_many_brackets(text)
    if refusal is not None:
        raise refusal
    doomed: set[int] = set()  # openings known to fail or to be too deep
    for found in _CANDIDATE.finditer(text):
        begin = found.start()
        if begin in doomed:
            continue
        try:
            doc, end = _decode(text, begin)
        except _ParseFailed as exc:
            doomed.update(_nested_openings(text, begin, exc.pos))
            continue
        except RecursionError:  # nested past the recursion limit, so past MAX_OBJECT_DEPTH
            doomed.update(_too_deep(text, begin, None))
            continue
        except ValueError:
            continue
        if (text.count("{", begin, end) + text.count("[", begin, end) <= MAX_OBJECT_DEPTH
                or _depth_at_most(doc, MAX_OBJECT_DEPTH)):
            return doc  # type: ignore[no-any-return]  # a candidate's value is an object
        doomed.update(_too_deep(text, begin, end))
    return None


_LEVEL_TOKEN = re.compile(r'(?:[^{}\[\]"]++|"(?:[^"\\]|\\.)*+(?:"|\\?\Z))*+([{}\[\]]|\Z)', re.S)
"""The next bracket a reader outside a string meets (group 1; empty at the text's end: a
match at every start, so finding the next one never re-reads the rest of the text), past the
strings (each to its end, or the text's end if it never closes) and the other characters."""


def _too_deep(text: str, begin: int, end: int | None) -> list[int]:
    """The ``{`` a reader from `begin` meets outside strings (until its brace closes, `end`,
    a closer that does not match, or the first closer after one is found) with more than
    `MAX_OBJECT_DEPTH` levels open from them on: each one's depth as `first_object` counts
    it, so they are skipped as it would skip them."""
    stack: list[tuple[int, str]] = []  # the open levels: (where, "{" or "[")
    marked = 0  # stack[:marked] are known too deep
    out: list[int] = []
    for m in _LEVEL_TOKEN.finditer(text, begin, len(text) if end is None else end):
        ch = m.group(1)
        if not ch:
            break
        if ch == "{" or ch == "[":
            stack.append((m.start(1), ch))
            if len(stack) - marked > MAX_OBJECT_DEPTH:
                at, kind = stack[marked]
                if kind == "{":
                    out.append(at)
                marked += 1
        elif marked or len(stack) <= 1 or stack.pop()[1] != ("{" if ch == "}" else "["):
            break  # a closer past the opening's close, or one not matching; or one after some
            # are marked: a later deep opening is found by its own pass
    return out


def _depth_at_most(doc: Any, limit: int) -> bool:
    """Whether `doc` nests at most `limit` dicts and lists (itself included); no recursion."""
    level: list[tuple[Any, int]] = [(doc, 1)]
    while level:
        value, depth = level.pop()
        if depth > limit:
            return False
        children = value.values() if isinstance(value, dict) else value
        level.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list))
    return True


def _nested_openings(text: str, begin: int, failed_at: int) -> list[int]:
    """The ``{`` strictly between `begin` and `failed_at` that a reader from `begin` meets
    outside a string and that are still open at `failed_at` (a span opening at `failed_at`
    itself failed the outer parse by being there, and may parse alone: ``{{"a": 1}}``)."""
    open_at: list[int] = []  # the openings not yet closed, innermost last
    for i, ch in _braces(text, begin + 1, failed_at):
        if ch == "{":
            open_at.append(i)
        elif open_at:
            open_at.pop()
    return open_at


# -- text a seat or a user sends: what can be stored and sent as it is ---------------------------
def text_fault(text: str) -> str | None:
    """Why `text` cannot be stored and sent unchanged, or None when it can.

    Two things are refused everywhere: a lone UTF-16 surrogate (a JSON escape such as
    ``\\ud800`` decodes to one; UTF-8 cannot encode it, so no database, file or socket can
    take it) and NUL (PostgreSQL text cannot hold it). Other control characters are the
    rules' business (cleaned where a game's rules say so). Non-characters such as U+FFFF
    are valid Unicode and pass."""
    if text.isascii():
        return None if "\x00" not in text else f"NUL (U+0000) at character {text.index(chr(0))}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"a lone surrogate U+{ord(text[exc.start]):04X} at character {exc.start} "
                "(not a Unicode character; UTF-8 cannot encode it)")
    if "\x00" in text:
        return f"NUL (U+0000) at character {text.index(chr(0))}"
    return None


def bad_text(doc: Any, path: str = "") -> tuple[str, str] | None:
    """The first string of a JSON document (a key or a value, in document order) that
    `text_fault` refuses, as ``(field path, why)``; None when every string is fine. Paths read
    like the document: ``message``, ``action.note``, ``seats[2]``; a refused key is named by
    where it is (``config.<key>``), never by its own text. Iterative: a document nested as
    deep as a JSON decoder allows is walked without recursion."""
    stack: list[tuple[str, Any]] = [(path, doc)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            why = text_fault(value)
            if why is not None:
                return where or "value", why
        elif isinstance(value, dict):
            children = []
            for key, child in value.items():
                key = str(key)
                why = text_fault(key)
                if why is not None:
                    return (f"{where}.<key>" if where else "<key>"), why
                children.append((f"{where}.{key}" if where else key, child))
            stack.extend(reversed(children))
        elif isinstance(value, list | tuple):
            stack.extend(reversed([(f"{where}[{i}]", child) for i, child in enumerate(value)]))
    return None


def check_text(field: str, value: Any, max_len: int, min_len: int = 0) -> str:
    """A string of `min_len`..`max_len` code points that `text_fault` accepts, or a
    `ConfigError` naming `field` (one place for the length and the content rule)."""
    from cogleague.core.errors import ConfigError

    if not isinstance(value, str) or not min_len <= len(value) <= max_len:
        shown = value if not isinstance(value, str) else f"{len(value)} code points"
        raise ConfigError(field, f"{field} must be a string of {min_len}..{max_len} code "
                                 f"points (got {shown!r})")
    why = text_fault(value)
    if why is not None:
        raise ConfigError(field, f"{field} must be storable text: {why}")
    return value
