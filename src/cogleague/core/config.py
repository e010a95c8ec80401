"""Validation helpers shared by every game's config: one message format, no silent clamps.

Every message starts with the field name and gives the legal range and the value received,
e.g. ``rounds must be an integer in 4..28 (got 3)``.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cogleague.core.errors import ConfigError


def plain_scalar(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``np.int64(5)`` is 5, ``np.bool_(True)``
    is True): an RL researcher's sweep or seed array hands those in, and they must be checked,
    played and written into replays as the plain numbers they are. Anything else as it is."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


def must_be_int(lo: int, hi: int | None, got: Any, *, even: bool = False) -> str:
    """The one wording of an integer refusal, less the name its caller puts in front (argparse
    puts ``argument --tables:`` there itself): ``must be an integer in 1..9 (got 'x')``.
    ``hi`` None: no upper bound is known here (a server checks the rest)."""
    kind = "an even integer" if even else "an integer"
    where = f"in {lo}..{hi}" if hi is not None else f"of at least {lo}"
    return f"must be {kind} {where} (got {got!r})"


def check_int(field: str, value: Any, lo: int, hi: int) -> int:
    """An int in lo..hi. Booleans and fractional numbers are refused, never rounded."""
    value = plain_scalar(value)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(field, f"{field} {must_be_int(lo, hi, value)}")
    return value


_INTEGER_TEXT = re.compile(r"\s*[+-]?[0-9]+\s*")  # ASCII digits: what a user types


def read_int(text: str | int, lo: int, hi: int | None = None, *, even: bool = False) -> int:
    """An integer typed on a command line (or an option's int default), in lo..hi; else
    ValueError worded by `must_be_int`: the text as given when it is no integer
    (``(got 'abc')``), the number when it is out of range (``(got 0)``). The command line's
    two parsers (`int_arg` here for argparse, `cli/common.int_option` for typer) both use it."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    elif isinstance(text, str) and _INTEGER_TEXT.fullmatch(text):
        value = int(text)
    else:
        raise ValueError(must_be_int(lo, hi, text, even=even))
    if value < lo or (hi is not None and value > hi) or (even and value % 2):
        raise ValueError(must_be_int(lo, hi, value, even=even))
    return value


def check_number(field: str, value: Any, lo: float, hi: float) -> float:
    """A finite number in lo..hi (ints accepted, booleans refused)."""
    value = plain_scalar(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(field, f"{field} must be a number in {lo:g}..{hi:g} (got {value!r})")
    if not lo <= value <= hi:
        raise ConfigError(field, f"{field} must be a number in {lo:g}..{hi:g} (got {value!r})")
    return float(value)


def check_bool(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(field, f"{field} must be true or false (got {value!r})")
    return value


def check_choice(field: str, value: Any, choices: Iterable[str]) -> str:
    options = list(choices)
    if not isinstance(value, str) or value not in options:
        raise ConfigError(field, f"{field} must be one of {', '.join(options)} (got {value!r})")
    return value


def check_str(field: str, value: Any, max_len: int, min_len: int = 0) -> str:
    if not isinstance(value, str) or not min_len <= len(value) <= max_len:
        raise ConfigError(
            field, f"{field} must be a string of {min_len}..{max_len} code points (got {value!r})"
        )
    return value


def reject_unknown(section: str, given: Mapping[str, Any], known: Iterable[str]) -> None:
    """Unknown keys are an error: a typo must not silently fall back to a default."""
    allowed = set(known)
    unknown = sorted(k for k in given if k not in allowed)
    if unknown:
        raise ConfigError(
            unknown[0],
            f"{unknown[0]} is not a {section} setting (known: {', '.join(sorted(allowed))})",
        )


def int_arg(lo: int, hi: int, *, even: bool = False) -> Callable[[str], int]:
    """An argparse ``type``: an integer in lo..hi (even, where pairs are drawn), else the
    usage error ``argument --tables: must be an integer in 2..100000 (got 0)`` (scripts such
    as the RL examples: a bad flag is refused before anything runs, not met as a traceback or
    a NaN later). Worded by `read_int`, as the `cogleague` command's own options are."""

    def parse(text: str) -> int:
        try:
            return read_int(text, lo, hi, even=even)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def read_number(text: str, lo: float, hi: float, *, above: bool = False) -> float:
    """A finite number typed on a command line, in lo..hi (``above``: strictly above lo); else
    ValueError ``must be a number in 0..600 (got 'nan')``. The command line's two parsers
    (`number_arg` here for argparse, `cli/common.number_option` for typer) both use it."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not (lo < value if above else lo <= value) or value > hi:
        where = f"above {lo:g} and at most {hi:g}" if above else f"in {lo:g}..{hi:g}"
        raise ValueError(f"must be a number {where} (got {text!r})")
    return value


def number_arg(lo: float, hi: float, *, above: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a finite number in lo..hi (``above``: strictly above lo), worded
    by `read_number`."""

    def parse(text: str) -> float:
        try:
            return read_number(text, lo, hi, above=above)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse
