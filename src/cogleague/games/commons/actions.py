"""Decision clamping (rules §5): any reply becomes a legal decision; nothing here fails.

A clamped decision ("move") always has every field: ``harvest``, ``clean``, ``patch``,
``eat``, ``eat_color``, ``plant``, ``plant_color``, ``sanction``, ``message`` — ints for the
int fields (0 when the module does not use them), a colour or None, a patch index or None
(None = no patch named: a pass, or a module without patches), an alias or None, a string or
None — plus ``note`` only when the reply carried that key.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cogleague.core.brief import brief
from cogleague.core.errors import IllegalAction
from cogleague.core.text import cut_with_ellipsis, first_object_span, loads_reply, strip_controls
from cogleague.games.commons.config import CommonsConfig
from cogleague.games.commons.modules import MODULES
from cogleague.games.commons.modules.common import COLOR, COLORS, EFFORT_BUDGET, PATCH, Clamp

PARSE_HINT = 'reply with one JSON object, e.g. {"harvest": 1, "clean": 1}'
NOTE_MAX_CHARS = 200
KEY_SHOWN = 40  # a wrong-shape reason names an unknown key by this many code points at most
COLOR_SET = frozenset(COLORS)
DEFAULT_COLOR = "red"


def first_json_object(text: str) -> Any:
    """The first balanced ``{…}`` span of `text` (braces inside JSON strings ignored), parsed.

    No span, or a first span that is not JSON, is a ``parse`` error (rules §11)."""
    span = first_object_span(text)
    if span is None:
        raise IllegalAction("no JSON object in the reply", code="parse", hint=PARSE_HINT)
    try:  # an integer literal too long to read is a LongInteger: a non-number (§5)
        return loads_reply(span)
    except (ValueError, RecursionError):
        raise IllegalAction("the first {…} span is not JSON", code="parse",
                            hint=PARSE_HINT) from None


def to_int(value: Any, hi: int) -> int:
    """Rules §5 ints: bools, strings, non-numbers, NaN and ±inf → 0; floats truncate toward
    zero; then clamp to 0..hi."""
    if type(value) is int:
        x = value
    elif isinstance(value, float):
        if not math.isfinite(value):
            return 0
        x = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        x = int(value)
    else:
        return 0
    return 0 if x < 0 else hi if x > hi else x


def to_color(value: Any, default: str | None) -> str | None:
    """A colour name (trimmed, lower-cased) or `default`."""
    if isinstance(value, str):
        c = value.strip().lower()
        if c in COLORS:
            return c
    return default


def to_text(value: Any, limit: int) -> str:
    """Rules §5 text: non-string → ""; stripped, then cut on code points. Control characters
    go first (protocol §5: CR/LF/TAB become spaces, the rest are dropped)."""
    return strip_controls(value).strip()[:limit] if isinstance(value, str) else ""


PASS_MOVE: dict[str, Any] = {"harvest": 0, "clean": 0, "patch": None, "eat": 0,
                             "eat_color": None, "plant": 0, "plant_color": None,
                             "sanction": None, "message": None}
"""Every field of a decision, in order, as a pass has them (copy it; never change it)."""
MOVE_KEYS = tuple(PASS_MOVE)


def pass_move() -> dict[str, Any]:
    """The decision of an absent seat: all ints 0, no patch, no sanction, no message."""
    return PASS_MOVE.copy()


class Validator:
    """Clamps raw replies for one episode (its module, patch count, aliases, institutions)."""

    def __init__(self, config: CommonsConfig, aliases: Sequence[str]) -> None:
        self.fields: tuple[Clamp, ...] = MODULES[config.module].CLAMPS
        self.ints = tuple(key for key, kind, _ in self.fields if kind != COLOR)
        self.colors = tuple(key for key, kind, _ in self.fields if kind == COLOR)
        self.max_patch = config.patch_count - 1
        self.aliases = frozenset(aliases)
        self.sanctions = config.sanctions_enabled
        self.chat = config.chat_enabled
        self.chat_max = config.chat_max_chars
        self.clamp_into: Callable[[Validator, Mapping[str, Any], str, dict[str, Any]],
                                  dict[str, Any]] = Validator._clamp_into
        """``clamp_into(validator, raw, own_alias, into)``: `move`, written into `into` (a dict
        already holding every field as a pass has them, perhaps with more keys, e.g. an
        event's), so `apply` builds the decision event and the move as one dict. A plain
        function (a bound method kept on the instance would be a reference cycle)."""

    def clamp(self, raw: Mapping[str, Any], own_alias: str) -> tuple[dict[str, Any], bool]:
        """(move, clamped): `clamped` is True when a field the reply carried was changed."""
        move = self.move(raw, own_alias)
        return move, self._changed(raw, move)

    def move(self, raw: Mapping[str, Any], own_alias: str) -> dict[str, Any]:
        """The clamped decision alone (no change detection)."""
        return self.clamp_into(self, raw, own_alias, PASS_MOVE.copy())

    def _institutions(self, raw: Mapping[str, Any], own_alias: str, move: dict[str, Any]
                      ) -> dict[str, Any]:
        """Sanction, message and note (the fields every module shares), set on `move`."""
        if self.sanctions:
            target = raw.get("sanction")
            if isinstance(target, str):
                target = target.strip()
                if target != own_alias and target in self.aliases:
                    move["sanction"] = target
        if self.chat and "message" in raw:
            move["message"] = to_text(raw["message"], self.chat_max) or None
        if "note" in raw:
            move["note"] = to_text(raw["note"], NOTE_MAX_CHARS)
        return move

    def _clamp_into(self, raw: Mapping[str, Any], own_alias: str, move: dict[str, Any]
                    ) -> dict[str, Any]:
        """The module's fields by its `CLAMPS` table, in order, then the institutions. An int
        already in range (every scripted reply) passes a single type-and-range test."""
        get = raw.get
        for key, kind, other in self.fields:
            value = get(key)
            if kind == COLOR:
                if type(value) is not str or value not in COLOR_SET:
                    value = to_color(value, DEFAULT_COLOR if other is None else move[other])
            else:
                hi = self.max_patch if kind == PATCH else EFFORT_BUDGET
                if type(value) is not int or not 0 <= value <= hi:
                    value = to_int(value, hi)
                if other is not None and value > EFFORT_BUDGET - move[other]:
                    value = EFFORT_BUDGET - move[other]
            move[key] = value
        if "sanction" in raw or "message" in raw or "note" in raw:
            return self._institutions(raw, own_alias, move)
        return move

    def shape_fault(self, raw: Mapping[str, Any]) -> str | None:
        """Why a reply has the wrong shape for this module, or None. The rules read any reply
        as a legal decision; a field they do not know (``action``, a misspelt ``harvset``) or
        a reply with none of the module's action fields is read as zero effort there, which a
        seat must be told rather than left to guess."""
        fields = self.ints + self.colors
        # keys are named briefly and as storable text: an in-process bot's key may be any
        # hashable object (nested past the recursion limit, a 5,000-digit int, a megabyte)
        unknown = sorted(k if isinstance(k, str) else brief(k) for k in raw
                         if k not in _KNOWN_KEYS)
        if unknown:
            shown = cut_with_ellipsis(strip_controls(unknown[0]), KEY_SHOWN)
            return (f"{shown}: not a field of a move here (fields: "
                    f"{', '.join(fields + _SHARED_FIELDS)}); it was ignored")
        if not any(k in raw for k in fields):
            return (f"{' / '.join(fields)}: none given; the move was read as zero effort "
                    "(rules §5)")
        return None

    def _changed(self, raw: Mapping[str, Any], move: Mapping[str, Any]) -> bool:
        """Only ints and strs are compared: any other value was changed (a foreign object's
        comparison may raise or answer an array)."""
        for key in self.ints:
            if key in raw:
                v = raw[key]
                if type(v) is not int or v != move[key]:
                    return True
        for key in self.colors:
            if key in raw and _differs(raw[key], move[key]):
                return True
        if "sanction" in raw and raw["sanction"] is not None and _differs(raw["sanction"],
                                                                           move["sanction"]):
            return True
        if "message" in raw:
            m = raw["message"]
            if m is not None and (type(m) is not str or m not in ("", move["message"])):
                return True
        return "note" in raw and _differs(raw["note"], move["note"])


def _differs(given: Any, kept: str | None) -> bool:
    """Whether a reply's value is not the str (or None) the move kept."""
    return given is not kept and (type(given) is not str or given != kept)


_SHARED_FIELDS = ("sanction", "message", "note")
_KNOWN_KEYS = frozenset(MOVE_KEYS) | {"note"}
"""Every key a reply may carry (harvest, clean, patch, eat, …, note); a module's own action
fields are the module's `CLAMPS` (`Validator.ints` and `Validator.colors`)."""
