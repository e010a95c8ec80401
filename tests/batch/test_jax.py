"""The kernels' pure step runs under `jax.jit` (the optional ``jax`` extra, on CPU) and equals
numpy's, table by table; skipped when JAX is not installed."""

from __future__ import annotations

import os
import platform
from typing import Any

import numpy as np
import pytest

X86 = platform.machine().lower() in ("x86_64", "amd64")
if X86:  # XLA's CPU code without FMA: a * b + c rounded twice, as numpy and Python round it
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_cpu_max_isa=AVX"
jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)  # the rules' integers and float64 arithmetic
jnp = jax.numpy

from cogleague.core.batch import batch_of  # noqa: E402
from cogleague.core.errors import ConfigError  # noqa: E402
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


COMMONS = [("cleanup", {"max_sanctions_received": 1}),
           ("harvest-open", {"sanctions_enabled": True}),
           ("harvest-closed", {"patch_count": 5, "num_players": 4}),
           ("harvest-partnership", {"sanctions_enabled": True, "num_players": 5}),
           ("allelopathic", {"num_players": 4}),
           ("mushrooms", {"num_players": 3})]
COMMONS_LINEUP = ["random", "punisher", "steward", "free_rider", "deterrable"]


def _commons_arrays(state: Any) -> dict[str, np.ndarray[Any, Any]]:
    out = {k: np.asarray(getattr(state, k)) for k in state._fields if k != "res"}
    out.update({f"res.{k}": np.asarray(v) for k, v in state.res.items()})
    return out


@pytest.mark.skipif(not X86, reason="XLA fuses multiply-adds on this CPU (no --xla_cpu_max_isa)")
@pytest.mark.parametrize(("variant", "options"), COMMONS, ids=[c[0] for c in COMMONS])
def test_jitted_commons_step_equals_numpy(variant: str, options: dict[str, Any]) -> None:
    """Every module (sanctions on, capped, off), random legal actions and baselines read on the
    host: the jitted step, observation, mask and welfare equal numpy's bit for bit, and a
    table stepped past its end stays as it is."""
    batch = batch_of(registry.get("commons"))
    np_kernel = batch.kernel(variant, {"rounds": 12, **options}, None)
    jx_kernel = batch.kernel(variant, {"rounds": 12, **options}, None, xp=jnp)
    n, b = np_kernel.num_seats, 6
    lineup = [*COMMONS_LINEUP[:n - 1], None]
    seeds = [3, 11, 12, 40, 41, 977][:b]
    s_np, s_jx = np_kernel.reset(seeds, lineup), jx_kernel.reset(seeds, lineup)
    np_policies = [np_kernel.policy(x, s) for s, x in enumerate(lineup) if x]
    jx_policies = [jx_kernel.policy(x, s) for s, x in enumerate(lineup) if x]
    step, observe = jax.jit(jx_kernel.step), jax.jit(jx_kernel.observe)
    welfare, mask = jax.jit(jx_kernel.welfare), jax.jit(jx_kernel.mask)
    rng = np.random.default_rng(1)
    for _ in range(np_kernel.steps_per_episode + 1):  # one step past the end
        m = np_kernel.mask(s_np)
        assert np.array_equal(np.asarray(mask(s_jx)), m)
        assert np.array_equal(np.asarray(observe(s_jx)), np_kernel.observe(s_np))
        acts = np.array([[rng.choice(np.flatnonzero(x)) for x in row] for row in m])
        for s, (p_np, p_jx) in enumerate(zip(np_policies, jx_policies, strict=True)):
            acts[:, s] = p_np.act(s_np)
            assert np.array_equal(np.asarray(p_jx.act(s_jx)), acts[:, s])
        s_np, r_np, d_np = np_kernel.step(s_np, acts)
        s_jx, r_jx, d_jx = step(s_jx, jnp.asarray(acts))
        assert np.array_equal(np.asarray(r_jx), r_np)
        assert np.array_equal(np.asarray(d_jx), d_np)
        got = _commons_arrays(s_jx)
        for name, want in _commons_arrays(s_np).items():
            assert got[name].dtype == want.dtype, name
            assert np.array_equal(got[name], want), name
    assert d_np.all() and not r_np.any()
    assert np.array_equal(np.asarray(welfare(s_jx)), np_kernel.welfare(s_np))
    assert jx_kernel.documents(s_jx, [], seeds, lineup) == np_kernel.documents(
        s_np, [], seeds, lineup)


def test_commons_kernel_refuses_jax_without_x64() -> None:
    jax.config.update("jax_enable_x64", False)
    try:
        with pytest.raises(ConfigError, match="jax_enable_x64"):
            batch_of(registry.get("commons")).kernel("cleanup", {}, None, xp=jnp)
    finally:
        jax.config.update("jax_enable_x64", True)
