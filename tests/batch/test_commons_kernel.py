"""Commons Family's batch kernel: every module equals the rules engine in the differential
check, a kernel paying one wrong payoff fails it, and the results documents the kernel builds
for the league are the rules engine's key for key."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cogleague
from cogleague.core.batch import batch_of, play_lineup
from cogleague.games import registry
from cogleague.games.commons import kernel_physics
from cogleague.testing.batch_check import check_batch
from cogleague.testing.subject import ConformanceError

VARIANTS = ["cleanup", "harvest-open", "harvest-closed", "harvest-partnership", "allelopathic",
            "mushrooms"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_module_equals_the_rules_engine(variant: str) -> None:
    summary = check_batch(registry.get("commons"), episodes=10, seed=5, variant=variant)
    assert summary.startswith("10 episodes equal"), summary


@pytest.mark.parametrize(("variant", "options"), [
    ("harvest-partnership", {"patch_count": 5, "num_players": 4, "sanctions_enabled": True}),
    ("cleanup", {"num_players": 9, "sanction_cost": 0.7, "sanction_burn": 2.3,
                 "max_sanctions_received": 2, "ledger_public": False}),
    ("mushrooms", {"num_players": 2, "rounds": 30}),
])
def test_options_equal_the_rules_engine(variant: str, options: dict[str, Any]) -> None:
    summary = check_batch(registry.get("commons"), episodes=8, seed=9, variant=variant,
                          options=options)
    assert summary.startswith("8 episodes equal"), summary


def test_a_wrong_apple_payoff_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel paying seat 0 two points an apple must be caught."""
    original = kernel_physics.cleanup

    def wrong(*args: Any) -> Any:
        gains, extracted, effort = original(*args)
        gains = gains.copy()
        gains[:, 0] *= 2
        return gains, extracted, effort

    monkeypatch.setattr(kernel_physics, "cleanup", wrong)
    with pytest.raises(ConformanceError, match="differ"):
        check_batch(registry.get("commons"), episodes=10, seed=5, variant="cleanup")


@pytest.mark.parametrize(("variant", "lineup"), [
    ("harvest-open", ["free_rider", "free_rider", "steward", "random", "punisher", "cleaner"]),
    ("cleanup", ["free_rider", "deterrable", "punisher", "reciprocator", "fair_share",
                 "random"]),
    ("mushrooms", ["fair_share", "cleaner", "random", "free_rider", "steward", "punisher"]),
])
def test_documents_are_the_rules_engines_results(variant: str, lineup: list[str]) -> None:
    """Collapse round, dead patches, welfare and every other results key, as `play` writes
    them."""
    kernel: Any = batch_of(registry.get("commons")).kernel(variant, {}, 6)  # type: ignore[union-attr]
    seeds = [4, 8, 15, 16]
    state = kernel.reset(seeds, lineup)
    policies = [kernel.policy(name, s) for s, name in enumerate(lineup)]
    records = []
    for _ in range(kernel.steps_per_episode):
        actions = np.stack([p.act(state) for p in policies], axis=1)
        state, _, _ = kernel.step(state, actions)
        records.append(kernel.record(state))
    docs = kernel.documents(state, records, seeds, lineup)
    for seed, (results, series) in zip(seeds, docs, strict=True):
        want = cogleague.play("commons", lineup, seed=seed, variant=variant)
        assert results == {k: want.results[k] for k in results}
        assert len(series["group"]) == kernel.rounds
    _, rewards = play_lineup(kernel, seeds, lineup)
    assert rewards.shape == (kernel.rounds, len(seeds), 6)


def test_a_finished_table_stays_as_it_is() -> None:
    kernel: Any = batch_of(registry.get("commons")).kernel("allelopathic", {"rounds": 3}, 6)  # type: ignore[union-attr]
    lineup = ["steward", "free_rider", "cleaner", "punisher", "deterrable", "random"]
    state, _ = play_lineup(kernel, [1, 2], lineup)
    again, rewards, done = kernel.step(state, np.zeros((2, 6), dtype=np.int64))
    assert done.all() and not rewards.any()
    assert np.array_equal(again.scores, state.scores) and again.t.tolist() == [3, 3]
    assert not np.asarray(kernel.observe(again)).any()


def test_a_random_seat_policy_reused_after_a_reset_replays_its_streams() -> None:
    """`random`'s array policy keeps each table's stream: a new episode (another seed, or the
    same seed from round 0 again) draws from the seed's stream afresh, as a new policy does."""
    kernel: Any = batch_of(registry.get("commons")).kernel("harvest-open", {"rounds": 6}, 6)
    lineup = ["random", "random", "steward", "free_rider", "punisher", "random"]
    policies = [kernel.policy(name, s) for s, name in enumerate(lineup)]

    def episode(seeds: list[int]) -> Any:
        state = kernel.reset(seeds, lineup)
        moves = []
        for _ in range(kernel.steps_per_episode):
            actions = np.stack([p.act(state) for p in policies], axis=1)
            moves.append(actions)
            state, _, _ = kernel.step(state, actions)
        return np.stack(moves), kernel.scores(state)

    first, scores = episode([1, 2, 3])
    again, scores_again = episode([1, 2, 3])
    other, other_scores = episode([7, 2, 9])
    assert np.array_equal(first, again) and np.array_equal(scores, scores_again)
    assert np.array_equal(other[:, 1], first[:, 1])  # table 1 kept seed 2: the same draws
    assert not np.array_equal(other[:, 0], first[:, 0])
    for i, seed in enumerate([7, 2, 9]):
        assert other_scores[i].tolist() == cogleague.play("commons", lineup, seed=seed,
                                                          variant="harvest-open",
                                                          rounds=6).scores
