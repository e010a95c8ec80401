"""Quoting a seat's value in a refusal: a few levels and characters of it, whatever it is.

A refusal names the value it refused, and the reason is stored in replays and results. A
seat's value may be anything: an in-process bot's reply is any Python object (nested past
the recursion limit, megabytes long, an integer past Python's 4,300-digit conversion limit,
an object whose `repr` raises). `brief` never recurses through it, never copies it whole and
never raises; an object it cannot quote is named by its type alone (a memory address would
make the same match's replay differ from run to run).
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Any

LONG_BITS = 4000  # under the 4,300-digit limit (about 13,000 bits), far over any legal number


class _Brief(reprlib.Repr):
    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother, self.maxlong = 3, 40, 40, 40

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > LONG_BITS:
            return f"<an integer of about {int(x.bit_length() * 0.30103)} digits>"
        return super().repr_int(x, level)

    def repr_instance(self, x: Any, level: int) -> str:
        if getattr(type(x), "__repr__", None) is object.__repr__:  # "<… at 0x…>": varies
            return f"<{type(x).__name__}>"
        try:
            text = repr(x)
        except Exception:
            return f"<{type(x).__name__}>"
        if len(text) > self.maxother:
            half = (self.maxother - 3) // 2
            text = text[:half] + "..." + text[len(text) - (self.maxother - 3 - half):]
        return text


_BRIEF = _Brief()


def brief(value: Any) -> str:
    """`value` quoted as `repr` would, cut to a few levels and about 40 characters each."""
    try:
        return _BRIEF.repr(value)
    except Exception:  # a container subclass whose own methods raise
        return f"<{type(value).__name__}>"


def refused_field(doc: Mapping[str, Any], field: str, allowed: str) -> str:
    """A move's refusal for one field, in one wording across games: ``action must be
    cooperate or defect (got 'maybe')``, or, when the field is absent, ``action is missing:
    it must be cooperate or defect`` (``(got None)`` would read as a null the seat sent)."""
    if field not in doc:
        return f"{field} is missing: it must be {allowed}"
    return f"{field} must be {allowed} (got {brief(doc[field])})"
