"""The differential check: each built-in kernel equals its rules engine on random seeds, random
line-ups of its baselines and random legal actions; a kernel with one payoff flipped fails."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

from cogleague.core.batch import batch_of, play_lineup
from cogleague.games import registry
from cogleague.games.dilemma.kernel import DilemmaKernel
from cogleague.testing.batch_check import check_batch
from cogleague.testing.subject import ConformanceError

KERNEL_GAMES = ["dilemma", "ledger", "commons"]


def assert_equal_over(summary: str, episodes: int) -> None:
    """A passing check played at least `episodes` (the long mode's count when it is set; the
    check rounds up to whole line-ups) and found them all equal."""
    from cogleague.testing.batch_check import LONG_ENV

    count, rest = summary.split(" ", 1)
    assert rest.startswith("episodes equal"), summary
    assert int(count) >= int(os.environ.get(LONG_ENV, episodes)), summary


@pytest.mark.parametrize("game", KERNEL_GAMES)
def test_kernel_equals_rules_engine(game: str) -> None:
    summary = check_batch(registry.get(game), episodes=16, seed=3)
    assert_equal_over(summary, 16)


def test_dilemma_classic_variant_and_options_equal() -> None:
    summary = check_batch(registry.get("dilemma"), episodes=8, seed=5, variant="classic200",
                          options={"rounds_total": 30, "seats": 5,
                                   "payoffs": {"temptation": 8, "reward": 5, "sucker": 1}})
    assert_equal_over(summary, 8)


def test_a_flipped_payoff_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel whose sucker payoff is 1 instead of 0 must be caught."""
    original = DilemmaKernel.__init__

    def wrong(self: DilemmaKernel, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        self.pay = self.pay.copy()
        self.pay[1, 0] += 1  # I cooperate, they defect

    monkeypatch.setattr(DilemmaKernel, "__init__", wrong)
    with pytest.raises(ConformanceError, match="differ"):
        check_batch(registry.get("dilemma"), episodes=16, seed=3)


def test_a_game_without_a_kernel_is_skipped() -> None:
    desc = registry.get("dilemma")
    bare = dataclasses.replace(desc, extras={k: v for k, v in desc.extras.items()
                                             if k != "batch"})
    assert batch_of(bare) is None
    assert check_batch(bare).startswith("skipped")


def test_line_up_through_the_kernel_scores_as_play() -> None:
    """The five classic strategies over 200 rounds: every table's points equal `play`'s."""
    import cogleague

    lineup = ["tit_for_tat", "grim_trigger", "pavlov", "generous_tit_for_tat", "random"]
    kernel = batch_of(registry.get("dilemma")).kernel("classic200", {}, 5)
    seeds = [7, 8, 9]
    state, rewards = play_lineup(kernel, seeds, lineup)
    assert rewards.shape == (kernel.steps_per_episode, 3, 5)
    for i, seed in enumerate(seeds):
        want = cogleague.play("dilemma", lineup, seed=seed, variant="classic200").scores
        assert kernel.scores(state)[i].tolist() == [float(x) for x in want]
    assert np.array_equal(rewards.sum(axis=0), kernel.scores(state))


def test_the_check_as_a_suite_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """`check_batch_subject` has the suite's check signature; the long mode's variable sets
    the episode count."""
    from cogleague.testing.batch_check import LONG_ENV, check_batch_subject
    from cogleague.testing.subject import Subject

    monkeypatch.setenv(LONG_ENV, "9")
    summary = check_batch_subject(Subject(registry.get("ledger")))
    assert summary.startswith("9 episodes equal"), summary


def test_a_variant_that_fixes_its_seed_is_compared_at_that_seed() -> None:
    """Ledger's certification plays only seed 7: the check compares both engines there
    (random line-ups and actions) instead of refusing its random seeds."""
    summary = check_batch(registry.get("ledger"), episodes=4, seed=2, variant="certification")
    assert_equal_over(summary, 4)
    assert "at seed 7" in summary, summary


def test_a_flipped_kernel_fails_the_check_at_a_fixed_seed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """At the fixed seed the comparison is real: a kernel that counts one seat's score wrong
    is caught there too."""
    from cogleague.games.ledger.kernel import LedgerKernel

    original = LedgerKernel.scores

    def wrong(self: LedgerKernel, state: object) -> object:
        scores = np.array(original(self, state), dtype=np.float64)
        scores[:, 0] += 1.0
        return scores

    monkeypatch.setattr(LedgerKernel, "scores", wrong)
    with pytest.raises(ConformanceError, match="differ"):
        check_batch(registry.get("ledger"), episodes=4, seed=2, variant="certification")


@pytest.mark.parametrize("episodes", [0, -3, True, 2.5])
def test_a_bad_episode_count_is_refused_naming_it(episodes: object) -> None:
    """Not silently one episode: a count the check cannot play is a `ConfigError`."""
    from cogleague.core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^episodes must be an integer in 1\.\.") as err:
        check_batch(registry.get("dilemma"), episodes=episodes)  # type: ignore[arg-type]
    assert err.value.field == "episodes"


@pytest.mark.parametrize("value", ["lots", "0", "-2", "1.5"])
def test_a_bad_long_mode_count_is_refused_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    from cogleague.core.errors import ConfigError
    from cogleague.testing.batch_check import LONG_ENV

    monkeypatch.setenv(LONG_ENV, value)
    with pytest.raises(ConfigError, match=rf"^{LONG_ENV} must be an integer in 1\.\.") as err:
        check_batch(registry.get("dilemma"))
    assert err.value.field == LONG_ENV
