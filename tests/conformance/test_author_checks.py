"""The checks a game author leans on catch what they are for: a score that ignores what the
events report, randomness drawn outside the seed (named as such, not as a leak), a replay that
differs between processes only on a later seed, and a failure hypothesis would shrink for
minutes."""

from __future__ import annotations

import time

import pytest

from cogleague.testing import ConformanceError, check_game, random_play

from . import mutants_authors as m


def test_a_score_that_ignores_a_reported_payoff_fails() -> None:
    with pytest.raises(ConformanceError, match=r"seat 0 scores .* the score ignores what the "
                                               r"events show"):
        check_game(m.SCORE_OFF_BY_ONE, checks=["scores"], seeds=1)


@pytest.mark.parametrize("game", ["dilemma", "ledger"])
def test_built_in_scores_equal_their_reported_payoffs(game: str) -> None:
    report = check_game(game, checks=["scores"], seeds=2)
    assert "payoffs their events report" in report.passed["scores"]


def test_randomness_in_what_seats_see_is_named_as_such() -> None:
    with pytest.raises(ConformanceError) as caught:
        check_game(m.NOISY_EVENTS, checks=["hidden_information"], seeds=1)
    assert "randomness in a view, not a leak" in str(caught.value)
    assert "sees the sealed reply" not in str(caught.value)


def test_determinism_covers_every_shared_seed() -> None:
    with pytest.raises(ConformanceError, match=r"seed 2.*PYTHONHASHSEED=\S+ gives another"):
        check_game(m.HASH_ORDER_ON_LATER_SEEDS, checks=["determinism"], seeds=2)


def test_shrinking_runs_under_the_suites_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hypothesis' own limit is five minutes; the suite's (here one second) is in force while
    it shrinks, and is put back afterwards."""
    from hypothesis.internal.conjecture import engine

    own = engine.MAX_SHRINKING_SECONDS
    monkeypatch.setattr(random_play, "SHRINK_LIMIT_S", 1)
    m.SHRINK_LIMITS_SEEN.clear()
    start = time.monotonic()
    with pytest.raises(ConformanceError, match="slow crash"):
        check_game(m.SLOW_CRASH, checks=["random_play"], examples=30)
    assert len(m.SHRINK_LIMITS_SEEN) > 1 and set(m.SHRINK_LIMITS_SEEN) == {1}
    assert own == engine.MAX_SHRINKING_SECONDS
    assert time.monotonic() - start < 60
