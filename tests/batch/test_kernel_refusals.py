"""A kernel's step refuses what its mask refuses (docs/batch.md): an index outside the mask, a
negative one, a float array (never truncated) or the wrong shape — `IllegalAction` naming
`actions[i]` — and a refused step changes nothing. Every legal action the mask allows passes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core.batch import batch_of
from cogleague.core.errors import IllegalAction
from cogleague.games import registry

CASES = [("dilemma", "standard", {"rounds_total": 3}, 4),
         ("ledger", "quickfire", {}, 8),
         ("commons", "cleanup", {}, 6),
         ("commons", "harvest-open", {"sanctions_enabled": False}, 6)]
B = 3


def kernel_and_state(game: str, variant: str, options: dict[str, Any], seats: int
                     ) -> tuple[Any, Any]:
    kernel = batch_of(registry.get(game)).kernel(variant, options, seats)
    return kernel, kernel.reset(range(B))


def legal_mask(kernel: Any, state: Any) -> np.ndarray:
    m = kernel.mask(state)
    if m is None:
        return np.ones((B, kernel.num_seats, kernel.num_actions), dtype=np.int8)
    return np.asarray(m)


def first_legal(kernel: Any, state: Any) -> np.ndarray:
    return legal_mask(kernel, state).argmax(axis=2).astype(np.int64)


@pytest.mark.parametrize(("game", "variant", "options", "seats"), CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_step_refuses_what_its_mask_refuses(game: str, variant: str, options: dict[str, Any],
                                              seats: int) -> None:
    kernel, state = kernel_and_state(game, variant, options, seats)
    mask = legal_mask(kernel, state)
    before = {f: np.array(np.asarray(getattr(state, f)), copy=True) for f in state._fields
              if not isinstance(getattr(state, f), dict)}
    good = first_legal(kernel, state)
    illegal = [(i, s, a) for i in range(B) for s in range(seats)
               for a in range(kernel.num_actions) if not mask[i, s, a]]
    wrong: list[tuple[np.ndarray, str]] = []
    for value in (-1, kernel.num_actions):
        acts = good.copy()
        acts[1, 0] = value
        wrong.append((acts, f"actions[1]: {value} is not a legal action of seat 0"))
    if illegal:  # inside the index range but outside the mask (a meeting's range, no sanctions)
        i, s, a = illegal[0]
        acts = good.copy()
        acts[i, s] = a
        wrong.append((acts, f"actions[{i}]: {a} is not a legal action of seat {s}"))
    wrong.append((good.astype(np.float64), "integer indices of shape"))
    wrong.append((good[:, :-1], "integer indices of shape"))
    for acts, words in wrong:
        with pytest.raises(IllegalAction, match=words.replace("[", r"\[").replace("]", r"\]")):
            kernel.step(state, acts)
    for f, value in before.items():  # nothing was stepped
        assert np.array_equal(np.asarray(getattr(state, f)), value), f
    kernel.step(state, good)  # the mask's own actions pass


@pytest.mark.parametrize(("game", "variant", "options", "seats"), CASES[:3],
                         ids=[c[0] for c in CASES[:3]])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_action_the_mask_allows_passes_and_no_other(game: str, variant: str,
                                                          options: dict[str, Any], seats: int,
                                                          data: st.DataObject) -> None:
    kernel, state = kernel_and_state(game, variant, options, seats)
    mask = legal_mask(kernel, state)
    acts = np.array(data.draw(st.lists(st.lists(st.integers(-2, kernel.num_actions + 1),
                                                min_size=seats, max_size=seats),
                                       min_size=B, max_size=B)), dtype=np.int64)
    inside = (acts >= 0) & (acts < kernel.num_actions)
    legal = bool(inside.all()) and bool(
        mask[np.arange(B)[:, None], np.arange(seats)[None, :], acts.clip(0)].all())
    if legal:
        kernel.step(state, acts)
    else:
        with pytest.raises(IllegalAction):
            kernel.step(state, acts)
