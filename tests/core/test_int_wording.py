"""The command line's two integer parsers — `core/config.int_arg` (argparse scripts such as the
RL examples) and `cli/common.int_option` (the `cogleague` command) — say the same thing in the
same words, `core/config.read_int`'s: the value as typed when it is no integer, the number
when it is out of range."""

from __future__ import annotations

import argparse

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st

from cogleague.cli.common import int_option
from cogleague.core.config import int_arg, read_int


def argparse_says(text: str, lo: int, hi: int) -> str:
    parser = argparse.ArgumentParser(prog="train", exit_on_error=False)
    parser.add_argument("--tables", type=int_arg(lo, hi))
    with pytest.raises(argparse.ArgumentError) as refused:
        parser.parse_args(["--tables", text])
    return str(refused.value)


def cli_says(text: str, lo: int, hi: int, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(typer.Exit):
        int_option("--tables", text, lo, hi)
    return capsys.readouterr().err.strip()


@pytest.mark.parametrize(("text", "got"), [("0", "0"), ("abc", "'abc'"), ("2.5", "'2.5'"),
                                           ("100001", "100001"), (" 1", "1"), ("", "''")])
def test_both_parsers_word_a_refusal_alike(text: str, got: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    reason = f"must be an integer in 2..100000 (got {got})"
    assert argparse_says(text, 2, 100_000) == f"argument --tables: {reason}"
    assert cli_says(text, 2, 100_000, capsys) == f"error: --tables {reason}"


def test_an_even_integer_is_asked_for_by_name() -> None:
    with pytest.raises(ValueError, match=r"^must be an even integer in 2\.\.10 \(got 3\)$"):
        read_int("3", 2, 10, even=True)


@given(st.integers(-10**6, 10**6), st.integers(0, 50), st.integers(0, 50))
def test_read_int_takes_exactly_the_integers_in_range(value: int, lo: int, span: int) -> None:
    hi = lo + span
    if lo <= value <= hi:
        assert read_int(str(value), lo, hi) == value
        assert read_int(f"+{value}" if value >= 0 else str(value), lo, hi) == value
    else:
        with pytest.raises(ValueError, match=rf"\(got {value}\)$"):
            read_int(str(value), lo, hi)
