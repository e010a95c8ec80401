"""The kernels' pure step runs under `jax.jit` (the optional ``jax`` extra, on CPU) and equals
numpy's, table by table; skipped when JAX is not installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)  # the rules' integers and float64 arithmetic
jnp = jax.numpy

from cogleague.core.batch import batch_of  # noqa: E402
from cogleague.games import registry  # noqa: E402

CASES = [("dilemma", "classic200", {"rounds_total": 6}, 5, 2),
         ("ledger", "quickfire", {}, 8, 101)]


def _to_numpy(state: Any) -> Any:
    return type(state)(*(np.asarray(x) for x in state))


@pytest.mark.parametrize(("game", "variant", "options", "seats", "actions"), CASES,
                         ids=[c[0] for c in CASES])
def test_jitted_step_equals_numpy(game: str, variant: str, options: dict[str, Any],
                                  seats: int, actions: int) -> None:
    batch = batch_of(registry.get(game))
    np_kernel = batch.kernel(variant, options, seats)
    jx_kernel = batch.kernel(variant, options, seats, xp=jnp)
    seeds = list(range(16))
    s_np = np_kernel.reset(seeds)
    s_jx = jx_kernel.reset(seeds)
    step = jax.jit(jx_kernel.step)
    rng = np.random.default_rng(0)
    for _ in range(np_kernel.steps_per_episode):
        mask = np_kernel.mask(s_np)
        if mask is None:
            acts = rng.integers(actions, size=(16, seats))
        else:
            acts = np.array([[rng.choice(np.flatnonzero(m)) for m in row] for row in mask])
        s_np, r_np, d_np = np_kernel.step(s_np, acts)
        s_jx, r_jx, d_jx = step(s_jx, jnp.asarray(acts))
        assert np.array_equal(np.asarray(r_jx), r_np)
        assert np.array_equal(np.asarray(d_jx), d_np)
        for name, a, b in zip(s_np._fields, s_np, _to_numpy(s_jx), strict=True):
            assert np.array_equal(a, b), name
    assert d_np.all()
    assert np.array_equal(np_kernel.scores(s_np), np_kernel.scores(_to_numpy(s_jx)))
