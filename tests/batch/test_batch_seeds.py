"""The batch engine plays only seeds the rules engine plays: a game that narrows the seed range
(Ledger: 0..2147483647) or a variant that fixes its seed (Ledger's certification: 7) is held
to it by `play_batch`, ``play(engine="batch")`` and both vector environments, as `play` and
`parallel_env` hold it — a batch row is always some rules episode."""

from __future__ import annotations

import numpy as np
import pytest

import cogleague
from cogleague.core.errors import ConfigError
from cogleague.envs import parallel_env, parallel_vector_env, vector_env

LEDGER_MAX = 2**31 - 1
MIRRORS = ["mirror"] * 8


def test_the_rules_engine_refuses_a_ledger_seed_past_its_range() -> None:
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\.2147483647"):
        cogleague.play("ledger", MIRRORS, seed=LEDGER_MAX + 1, variant="quickfire")


def test_play_batch_refuses_a_ledger_seed_past_its_range() -> None:
    with pytest.raises(ConfigError, match=r"seeds must be an integer in 0\.\.2147483647"):
        cogleague.play_batch("ledger", MIRRORS, seeds=[1, LEDGER_MAX + 1], variant="quickfire")
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\.2147483647"):
        cogleague.play("ledger", MIRRORS, seed=LEDGER_MAX + 1, variant="quickfire",
                       engine="batch")
    run = cogleague.play_batch("ledger", MIRRORS, seeds=[LEDGER_MAX], variant="quickfire")
    want = cogleague.play("ledger", MIRRORS, seed=LEDGER_MAX, variant="quickfire")
    assert run.scores[0].tolist() == want.scores


def test_play_batch_holds_a_variant_to_its_fixed_seed() -> None:
    with pytest.raises(ConfigError, match="seeds must be 7 in the certification variant"):
        cogleague.play_batch("ledger", MIRRORS, seeds=[7, 1], variant="certification")
    with pytest.raises(ConfigError, match="seed must be 7 in the certification variant"):
        cogleague.play("ledger", MIRRORS, seed=1, variant="certification", engine="batch")
    run = cogleague.play_batch("ledger", MIRRORS, seeds=[7], variant="certification")
    assert run.scores[0].tolist() == cogleague.play("ledger", MIRRORS, seed=7,
                                                    variant="certification").scores


@pytest.mark.parametrize("make", [
    lambda: vector_env("ledger", num_envs=2, variant="quickfire", opponents=MIRRORS[1:]),
    lambda: parallel_vector_env("ledger", num_envs=2, variant="quickfire"),
], ids=["vector_env", "parallel_vector_env"])
def test_the_vector_envs_keep_every_table_in_ledgers_seed_range(make: object) -> None:
    """Table i plays seed s + i: the last table's seed must be one Ledger plays."""
    env = make()  # type: ignore[operator]
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\.2147483646"):
        env.reset(seed=LEDGER_MAX)
    env.reset(seed=LEDGER_MAX - 1)


@pytest.mark.parametrize("make", [
    lambda b: vector_env("ledger", num_envs=b, variant="certification", opponents=MIRRORS[1:]),
    lambda b: parallel_vector_env("ledger", num_envs=b, variant="certification"),
], ids=["vector_env", "parallel_vector_env"])
def test_the_vector_envs_play_a_fixed_seed_variant_at_its_seed(make: object) -> None:
    """As `parallel_env` does: any seed in the game's range plays the variant's own seed at
    every table (not seeds it would refuse: table i does not play s + i), and so does a reset
    without one; a seed outside the range is refused."""
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\.2147483647"):
        make(2).reset(seed=-1)  # type: ignore[operator]
    rules = parallel_env("ledger", variant="certification", views=False)
    want = rules.reset()[0]["seat_0"]
    for seed in (7, 1, None):
        obs = make(1).reset(seed=seed)[0]  # type: ignore[operator]
        first = obs[0] if isinstance(obs, np.ndarray) else obs["seat_0"][0]
        assert first.tolist() == want.tolist()
    env = make(3)  # type: ignore[operator]
    for _ in range(2):
        obs = env.reset()[0]
        tables = obs if isinstance(obs, np.ndarray) else obs["seat_0"]
        assert all(t.tolist() == want.tolist() for t in tables)


@pytest.mark.parametrize(("opponents", "named"), [
    (None, "promise_keeper"),  # the dilemma's default line-up seats it
    (["tit_for_tat", "promise_keeper", "pavlov"], "promise_keeper"),
    (["tit_for_tat", "pavlov", 7], "7"),
])
def test_vector_env_opponents_without_a_batch_twin_are_refused_naming_opponents(
        opponents: list[object] | None, named: str) -> None:
    """The learner's opponents are what the caller gives (or the default line-up): an error
    about them names `opponents` and the baselines that have a twin, not `seats`."""
    with pytest.raises(ConfigError, match=rf"opponents must be baselines with a batch twin "
                                          rf"\(tit_for_tat, .*; got '?{named}'?") as err:
        vector_env("dilemma", num_envs=2, opponents=opponents)  # type: ignore[arg-type]
    assert err.value.field == "opponents"
