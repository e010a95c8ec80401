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

from cogleague.core.game import Event

MEETING_KEYS = ("round", "pair", "a", "b", "subgame", "moveA", "moveB", "payA", "payB",
                "scriptedA", "scriptedB", "fallbackA", "fallbackB", "clampedA", "clampedB",
                "timeoutsA", "timeoutsB", "memoA", "memoB")
"""A meeting event's data keys, in the order replays write them (`to_json` spells them too;
the tests check the two agree)."""


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
        (r, pair, a, b, subgame, move_a, move_b, pay_a, pay_b, scripted_a, scripted_b,
         fallback_a, fallback_b, clamped_a, clamped_b, timeouts_a, timeouts_b, memo_a,
         memo_b) = self._fields
        return {"kind": "meeting", "round": r, "pair": pair, "a": a, "b": b, "subgame": subgame,
                "moveA": move_a, "moveB": move_b, "payA": pay_a, "payB": pay_b,
                "scriptedA": scripted_a, "scriptedB": scripted_b,
                "fallbackA": fallback_a, "fallbackB": fallback_b,
                "clampedA": clamped_a, "clampedB": clamped_b,
                "timeoutsA": timeouts_a, "timeoutsB": timeouts_b,
                "memoA": memo_a, "memoB": memo_b}
