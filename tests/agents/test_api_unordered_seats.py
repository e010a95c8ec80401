"""A line-up is an ordered collection: `cogleague.play` and `cogleague.play_batch` refuse a set
of seats naming `seats`. A set of strings iterates in hash order, which changes from one Python
process to the next, so the same seed seated the policies differently — the results were not
reproducible for a seed. A dict (its keys would be the seats) is refused too."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

import cogleague
from cogleague.core.errors import ConfigError

SEATS = ["pavlov", "random", "tit_for_tat", "always_defect"]


@pytest.mark.parametrize("seats", [set(SEATS), frozenset(SEATS), dict.fromkeys(SEATS, 1)])
@pytest.mark.parametrize("engine", ["rules", "batch"])
def test_an_unordered_line_up_is_refused(seats: Any, engine: str) -> None:
    with pytest.raises(ConfigError, match=r"^seats must list the policies in seat order") as err:
        cogleague.play("dilemma", seats, seed=1, rounds=1, engine=engine)
    assert err.value.field == "seats"
    with pytest.raises(ConfigError, match=r"^seats must list the policies in seat order"):
        cogleague.play_batch("dilemma", seats, seeds=[1], rounds=1)


def test_ordered_line_ups_give_the_same_scores_in_every_process() -> None:
    code = (f"import cogleague; print(cogleague.play('dilemma', iter({tuple(SEATS)!r}), "
            "seed=3, rounds=2).scores)")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": str(h)}, check=True).stdout
            for h in (1, 2)}
    assert len(outs) == 1
