"""The `meeting` event, built once per meeting from its fields and rendered when read.

A round settles four meetings, and a scripted episode reads none of their events' data: the
table folds each meeting from its fields directly (`Table.meeting`), and only a replay
document, a live view or a test looks at the event. So the game keeps the nineteen fields as
one tuple and builds the dict on first read of `data` (cached); `to_json`, which replay
documents call once per event, writes the ``{"kind": "meeting", …}`` dict straight from the
tuple instead of copying `data`. To every reader it is an `Event` with the same data as before.
"""

from __future__ import annotations

from typing import Any

from cogleague.core import jsonio
from cogleague.core.game import Event
from cogleague.games.ledger.aliases import SEATS

MEETING_KEYS = ("round", "pair", "a", "b", "subgame", "moveA", "moveB", "payA", "payB",
                "scriptedA", "scriptedB", "fallbackA", "fallbackB", "clampedA", "clampedB",
                "timeoutsA", "timeoutsB", "memoA", "memoB")
"""A meeting event's data keys, in the order replays write them (`to_json` spells them too;
the tests check the two agree)."""

# A meeting event's restricted fields (a memo: its author only), by (a, b): read-only, shared.
RESTRICTED: list[list[dict[str, tuple[int, ...]]]] = [
    [{"memoA": (a,), "memoB": (b,)} for b in range(SEATS)] for a in range(SEATS)]


class MeetingEvent(Event):
    """``Event("meeting", dict(zip(MEETING_KEYS, fields)), None, restricted)``, lazily."""

    __slots__ = ("_data", "_fields")

    def __init__(self, fields: tuple[Any, ...], restricted: dict[str, tuple[int, ...]]) -> None:
        # `Event.__init__` would store the data dict this class exists to defer.
        self.kind = "meeting"
        self.audience = None
        self.restricted = restricted
        self._fields = fields
        self._data: dict[str, Any] | None = None

    @property
    def data(self) -> dict[str, Any]:
        data = self._data
        if data is None:
            data = self._data = dict(zip(MEETING_KEYS, self._fields, strict=True))
        return data

    @data.setter
    def data(self, value: dict[str, Any]) -> None:
        self._data = value
        self._fields = tuple(value[k] for k in MEETING_KEYS)

    def to_json(self) -> dict[str, Any]:
        if self._data is not None:
            return {"kind": "meeting", **self._data}
        return meeting_json(self._fields)


def meeting_json(fields: tuple[Any, ...]) -> dict[str, Any]:
    """A meeting event's replay form, ``{"kind": "meeting", **data}``, from its fields."""
    (r, pair, a, b, subgame, move_a, move_b, pay_a, pay_b, scripted_a, scripted_b,
     fallback_a, fallback_b, clamped_a, clamped_b, timeouts_a, timeouts_b, memo_a,
     memo_b) = fields
    return {"kind": "meeting", "round": r, "pair": pair, "a": a, "b": b, "subgame": subgame,
            "moveA": move_a, "moveB": move_b, "payA": pay_a, "payB": pay_b,
            "scriptedA": scripted_a, "scriptedB": scripted_b,
            "fallbackA": fallback_a, "fallbackB": fallback_b,
            "clampedA": clamped_a, "clampedB": clamped_b,
            "timeoutsA": timeouts_a, "timeoutsB": timeouts_b,
            "memoA": memo_a, "memoB": memo_b}


PLAIN_SIDES = (True, True, False, False, False, False, 0, 0, "", "")
"""A meeting's fields from ``scriptedA`` on when both sides are a baseline's bare moves."""
_PLAIN_SIDES_TEXT = (',"scriptedA":true,"scriptedB":true,"fallbackA":false,"fallbackB":false,'
                     '"clampedA":false,"clampedB":false,"timeoutsA":0,"timeoutsB":0,'
                     '"memoA":"","memoB":""}')
_ROUND_HEADS: dict[tuple[int, int], str] = {}
"""``{"kind":"meeting","round":…,"pair":…,`` by round and pair (a few hundred at most)."""
_SEATS_TEXTS: dict[tuple[int, int, str], str] = {}
"""``"a":…,"b":…,"subgame":…,`` by seats and subgame (168)."""
_CACHED = 1024  # either cache: beyond any episode's rounds and seats, for replayed documents


def meeting_parts(fields: tuple[Any, ...], moves: str) -> tuple[str, str, str, str]:
    """The fragments whose concatenation is ``jsonio.dumps(meeting_json(fields))``, given the
    text of its moves and payoffs ``"moveA":…,"payB":…`` (`frames.FrameWriter.meeting` writes
    it for the pairing too): the replay joins them with the rest, so a meeting's text is
    never concatenated on its own. Its sides' text is a constant when both are plain. The
    fields are the game's own (`LedgerGame._settle`): bools, ints that are no bools, and
    strings. The head is two small caches' texts, by round and pair and by seats and
    subgame: one cache of the thousands of their combinations is slower on the clock
    (CPU-cache misses)."""
    r, pair, a, b, subgame = fields[:5]
    head = _ROUND_HEADS.get((r, pair))
    if head is None:
        if len(_ROUND_HEADS) >= _CACHED:
            _ROUND_HEADS.clear()
        head = _ROUND_HEADS[r, pair] = f'{{"kind":"meeting","round":{r!r},"pair":{pair!r},'
    seats = _SEATS_TEXTS.get((a, b, subgame))
    if seats is None:
        if len(_SEATS_TEXTS) >= _CACHED:
            _SEATS_TEXTS.clear()
        seats = _SEATS_TEXTS[a, b, subgame] = (f'"a":{a!r},"b":{b!r},'
                                               f'"subgame":{jsonio.quote(subgame)},')
    sides = fields[9:]
    if sides == PLAIN_SIDES:
        return head, seats, moves, _PLAIN_SIDES_TEXT
    return head, seats, moves, "," + jsonio.dumps(dict(zip(MEETING_KEYS[9:], sides,
                                                          strict=True)))[1:]


class RoundEvents:
    """A settled round's events, built only when read (the step-batch `EventRenderer`): the
    meetings as their field tuples, then the round's other events (gossip, the end), which the
    game has already folded. `__call__` gives the `Event`s, `to_json` their replay form without
    an `Event` in between; both in the order the round produced them, the same on every call
    (nothing changes the fields or the events' data afterwards)."""

    __slots__ = ("meetings", "tail")

    def __init__(self, meetings: list[tuple[Any, ...]], tail: list[Event]) -> None:
        self.meetings = meetings
        self.tail = tail

    def __call__(self) -> list[Event]:
        events: list[Event] = [MeetingEvent(f, RESTRICTED[f[2]][f[3]]) for f in self.meetings]
        events += [Event(e.kind, e.data, e.audience, e.restricted) for e in self.tail]
        return events

    def to_json(self) -> list[dict[str, Any]]:
        """``[event.to_json() for event in self()]``, built directly."""
        out = [meeting_json(fields) for fields in self.meetings]
        if self.tail:
            out += [e.to_json() for e in self.tail]
        return out
