"""Tables at different steps in one batch (after an autoreset, or under `jax.vmap`) take the
kernels' general path; it must equal the lockstep fast path row by row: observations, masks,
the baselines' actions, rewards and the next state."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cogleague.core.batch import batch_of
from cogleague.games import registry

CASES = [("dilemma", "standard", {"rounds_total": 5}, ["tit_for_tat", "generous_tit_for_tat",
                                                       "random", "pavlov"]),
         ("ledger", "quickfire", {}, ["mirror", "shark", "grim", "saint", "opportunist",
                                      "mirror", "grim", "opportunist"])]


def _rows(state: Any, picks: list[tuple[Any, int]]) -> Any:
    """A state whose row i is row picks[i][1] of state picks[i][0]."""
    return type(state)(*(np.stack([np.asarray(getattr(s, f))[i] for s, i in picks])
                         for f in state._fields))


@pytest.mark.parametrize(("game", "variant", "options", "lineup"), CASES,
                         ids=[c[0] for c in CASES])
def test_mixed_steps_equal_lockstep(game: str, variant: str, options: dict[str, Any],
                                    lineup: list[str]) -> None:
    kernel = batch_of(registry.get(game)).kernel(variant, options, len(lineup))
    seeds = list(range(20, 26))
    state = kernel.reset(seeds, lineup)
    policies = [kernel.policy(n, s) for s, n in enumerate(lineup)]
    history = [state]
    for _ in range(kernel.steps_per_episode - 1):
        acts = np.stack([np.asarray(p.act(state)) for p in policies], axis=1)
        state, _, _ = kernel.step(state, acts)
        history.append(state)
    rng = np.random.default_rng(4)
    steps = rng.integers(len(history), size=len(seeds))
    steps[0], steps[1] = 0, len(history) - 1  # surely mixed
    mixed = _rows(history[0], [(history[k], i) for i, k in enumerate(steps)])
    assert kernel.lockstep(mixed) is None
    obs = np.asarray(kernel.observe(mixed))
    mask = kernel.mask(mixed)
    acts = np.stack([np.asarray(p.act(mixed)) for p in policies], axis=1)
    after, rewards, done = kernel.step(mixed, acts)
    for i, k in enumerate(steps):
        lock = history[k]
        assert np.array_equal(obs[i], np.asarray(kernel.observe(lock))[i])
        if mask is not None:
            assert np.array_equal(np.asarray(mask)[i], np.asarray(kernel.mask(lock))[i])
        want_acts = np.stack([np.asarray(p.act(lock)) for p in policies], axis=1)
        assert np.array_equal(acts[i], want_acts[i])
        nxt, r, d = kernel.step(lock, want_acts)
        assert np.array_equal(np.asarray(rewards)[i], np.asarray(r)[i]) and done[i] == d[i]
        for f in after._fields:
            a, b = np.asarray(getattr(after, f))[i], np.asarray(getattr(nxt, f))[i]
            if f in ("moves", "pays"):  # per-round records: the rounds played so far
                played = int(np.asarray(after.t)[i])
                a, b = a[..., :played], b[..., :played]
            assert np.array_equal(a, b), f
        if hasattr(kernel, "result_fields"):
            for key, values in kernel.result_fields(after).items():
                assert np.asarray(values)[i] == np.asarray(kernel.result_fields(nxt)[key])[i]
