"""Every random draw comes from a `core.rng` stream: no module builds `random.Random` or uses
the module-level `random` functions, and an int-named stream is the rules' numeric seed."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cogleague
from cogleague.core import rng
from cogleague.games.commons.baselines import make_baseline
from cogleague.games.commons.setup import deal

SRC = Path(cogleague.__file__).parent


def _random_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(SRC)}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "random"]


def test_no_module_but_core_rng_draws_from_random_directly() -> None:
    found = [hit for path in sorted(SRC.rglob("*.py")) if path != SRC / "core" / "rng.py"
             for hit in _random_calls(path)]
    assert found == []


def test_an_int_named_stream_is_the_numeric_seed_commons_rules_fix() -> None:
    ours, theirs = rng.stream(20260824), random.Random(20260824)
    assert [ours.random() for _ in range(5)] == [theirs.random() for _ in range(5)]
    assert [a[-1] for a in deal(20260824, 6, 6).aliases] == ["E", "F", "B", "A", "C", "D"]
    seat = make_baseline("random", 2, 7)
    assert seat.rng.random() == random.Random(7 * 1000 + 2).random()


@pytest.mark.parametrize("name", [True, 1.5, None])
def test_a_stream_is_named_by_a_string_or_an_int(name: object) -> None:
    with pytest.raises(TypeError, match="named by a string or an int"):
        rng.stream(name)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_seed_int_seeds_as_the_text_itself(text: str) -> None:
    """`seed_int` is `random.seed`'s own conversion of a str (NUL, non-ASCII and empty texts
    included): the generator it seeds draws what `random.Random(text)` draws."""
    ours, theirs = random.Random(rng.seed_int(text)), random.Random(text)
    assert [ours.random() for _ in range(3)] == [theirs.random() for _ in range(3)]
    assert rng.first_draws([text, text + "x"]) == [random.Random(text).random(),
                                                   random.Random(text + "x").random()]
