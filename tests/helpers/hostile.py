"""Hostile replies for property tests: what a broken or malicious seat may send.

A model seat sends text, a remote or SDK seat a JSON object, an in-process bot any Python
object. Strategies draw small trees whose special leaves are `Special` markers (short reprs,
so hypothesis can print a failing example); `realize` swaps each for its value: nested
5,000 deep, 5,000-digit integers, a megabyte of text, a lone surrogate, an object whose
every method raises, a numpy array.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

import cogleague
from cogleague.core.verify import verify_replay
from cogleague.games import registry

DEPTH = 5000  # past Python's recursion limit (1000)
DIGITS = 5000  # past Python's int/str conversion limit (4300 digits)


class Raiser:
    """An object every comparison, conversion and quotation of which raises."""

    def _raise(self, *args: Any) -> Any:
        raise RuntimeError("hostile")

    __eq__ = __ne__ = __lt__ = __bool__ = __repr__ = __str__ = __int__ = __float__ = _raise
    __len__ = __iter__ = _raise
    __hash__ = object.__hash__  # usable as a dict key


def _nested(depth: int, wrap: Callable[[Any], Any], leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = wrap(value)
    return value


SPECIALS: dict[str, Callable[[], Any]] = {
    "deep_list": lambda: _nested(DEPTH, lambda v: [v], []),
    "deep_dict": lambda: _nested(DEPTH, lambda v: {"action": v, "harvest": v}, {}),
    "deep_tuple": lambda: _nested(DEPTH, lambda v: (v,), ()),
    "huge_int": lambda: 10**DIGITS,
    "huge_negative": lambda: -(10**DIGITS) + 1,
    "list_of_huge_int": lambda: [10**DIGITS],
    "megabyte": lambda: "x" * 1_000_000,
    "long_controls": lambda: "\x00\n\t\x7f" * 10_000,
    "lone_surrogate": lambda: "\ud800",
    "surrogate_word": lambda: "cooperate\udfff",
    "nan": lambda: float("nan"),
    "inf": lambda: float("inf"),
    "raiser": Raiser,
    "plain_object": object,
    "array": lambda: np.array([1, 2, 3]),
    "str_array": lambda: np.array(["cooperate", "defect"]),
    "np_int": lambda: np.int64(3),
    "bytes": lambda: b"cooperate",
    "set": lambda: {1, 2},
}
TEXTS: dict[str, str] = {
    "huge_literal": '{"action": ' + "9" * DIGITS + ', "harvest": ' + "9" * DIGITS + "}",
    "deep_literal": '{"action": ' + "[" * DEPTH + "]" * DEPTH + "}",
    "deep_objects": '{"a": ' * DEPTH + "1" + "}" * DEPTH,
    "open_braces": "{" * 100_000,
    "float_overflow": '{"harvest": 1e999, "clean": -1e999, "action": 1e999}',
    "nan_literal": '{"harvest": NaN, "clean": Infinity, "message": NaN}',
    "surrogate_escape": '{"action": "cooperate", "message": "\\ud800", "note": "\\udfff"}',
    "huge_key": '{"' + "k" * 200_000 + '": 1}',
    "prose": "I will cooperate. {thinking} then {\"action\": \"defect\"}",
}


class Special:
    """A leaf standing for `SPECIALS[name]()` (or `TEXTS[name]`), printed by its name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Special({self.name!r})"


def realize(value: Any) -> Any:
    """`value` with each `Special` replaced by what it stands for (trees are small)."""
    if isinstance(value, Special):
        return TEXTS[value.name] if value.name in TEXTS else SPECIALS[value.name]()
    if isinstance(value, list):
        return [realize(v) for v in value]
    if isinstance(value, dict):
        return {realize(k): realize(v) for k, v in value.items()}
    return value


_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20),
    st.sampled_from([Special(name) for name in SPECIALS]))
_KEY_SPECIALS = ["huge_int", "deep_tuple", "megabyte", "lone_surrogate", "raiser", "np_int",
                 "plain_object"]


def values(words: Sequence[str]) -> st.SearchStrategy[Any]:
    """Any value a field may hold: the game's own words mixed with hostile leaves, nested."""
    leaves = st.one_of(_LEAVES, st.sampled_from(list(words)))
    return st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
        max_leaves=6)


def replies(keys: Sequence[str], words: Sequence[str]) -> st.SearchStrategy[Any]:
    """A whole reply: a dict of the game's keys (and hostile keys) to any values; any value
    at all; or text (JSON by hand, hostile literals, free text)."""
    key = st.one_of(st.sampled_from(list(keys)), st.text(max_size=8),
                    st.sampled_from([Special(name) for name in _KEY_SPECIALS]))
    any_value = values(words)
    jsonable = st.dictionaries(st.sampled_from(list(keys)),
                               st.one_of(st.sampled_from(list(words)), st.integers(),
                                         st.text(max_size=10)), max_size=4)
    specials = st.sampled_from([Special(name) for name in SPECIALS])
    return st.one_of(
        st.dictionaries(st.sampled_from(list(keys)), specials | st.sampled_from(list(words)),
                        min_size=1, max_size=4),
        st.dictionaries(key, any_value, max_size=5),
        any_value,
        jsonable.map(json.dumps),
        st.sampled_from([Special(name) for name in TEXTS]),
        st.text(max_size=60),
    )


REASON_LIMIT = 300  # a refusal names the field and quotes the value briefly


def check_outcome(result: cogleague.Result, game: str) -> None:
    """Finished, written, verifiable; every stored reason short; only seat 0 at fault."""
    assert result.outcome.results["reason"] == "complete"
    with tempfile.TemporaryDirectory() as tmp:
        out = result.save(Path(tmp) / "run")
        saved = json.loads((out / "results.json").read_text("utf-8"))
        replay = json.loads((out / "replay.json").read_text("utf-8"))
    assert saved["scores"] == result.outcome.results["scores"]
    verify_replay(replay, registry.get(game))
    reasons = [r for seat in result.outcome.reasons for r in seat.values()]
    reasons += [d.get("reason") or "" for entry in replay["log"]
                for d in (entry.get("decisions") or {}).values()]
    assert all(len(r) < REASON_LIMIT for r in reasons)
    assert all(not faults for faults in result.outcome.faults[1:])
