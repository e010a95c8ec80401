"""Rankings on synthetic data with a known truth: interval coverage, BT order, ranks, skill."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.league.rankings import bradley_terry, openskill_rating
from cogleague.league.rankings.bootstrap import mean_interval
from cogleague.league.rankings.ranks import rank_rows


def test_bootstrap_interval_covers_a_known_mean_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(1)
    true_mean, trials, hits = 3.0, 300, 0
    for t in range(trials):
        sample = rng.exponential(true_mean, size=60)  # skewed, like episode scores
        ci = mean_interval(sample, resamples=1000, seed=t)
        assert ci.low is not None and ci.high is not None
        hits += ci.low <= true_mean <= ci.high
    coverage = hits / trials
    # percentile bootstrap undercovers slightly on skewed data at n=60; 95% ± sampling error
    assert 0.88 <= coverage <= 0.99, coverage


def test_bootstrap_interval_narrows_with_more_episodes() -> None:
    rng = np.random.default_rng(2)
    small = mean_interval(rng.normal(0, 1, 20))
    large = mean_interval(rng.normal(0, 1, 2000))
    assert (large.high - large.low) < (small.high - small.low) / 5


def test_one_episode_has_no_interval_and_is_never_separated() -> None:
    ci = mean_interval([4.0])
    assert (ci.estimate, ci.low, ci.high) == (4.0, None, None)
    (info,) = rank_rows([4.0], [None], [None])
    assert info.separated and info.label == "1"  # alone: rank 1 of 1
    infos = rank_rows([4.0, 1.0], [None, 0.5], [None, 1.5])
    assert [i.label for i in infos] == ["level 1–2", "level 1–2"]


def _synthetic_league(strengths: dict[str, float], episodes: int, seats: int,
                      seed: int) -> list[tuple[list[str], list[float]]]:
    """Random line-ups; each seat scores Gumbel noise + log-strength (a BT/Plackett–Luce
    world: P(i beats j) = s_i / (s_i + s_j))."""
    rng = np.random.default_rng(seed)
    names = list(strengths)
    out = []
    for _ in range(episodes):
        lineup = list(rng.choice(names, size=seats, replace=False))
        scores = [float(np.log(strengths[p]) + rng.gumbel()) for p in lineup]
        out.append((lineup, scores))
    return out


def test_bradley_terry_recovers_a_known_order() -> None:
    strengths = {"a": 8.0, "b": 4.0, "c": 2.0, "d": 1.0, "e": 0.5}
    result = bradley_terry.rate(_synthetic_league(strengths, 600, 3, seed=3), resamples=100)
    fitted = dict(zip(result.policies, result.strength, strict=True))
    assert sorted(fitted, key=fitted.get, reverse=True) == ["a", "b", "c", "d", "e"]
    # the scale is right too: each step is log 2 apart in truth
    steps = np.diff([fitted[p] for p in "edcba"])
    assert np.allclose(steps, np.log(2), atol=0.25)
    # intervals contain the truth (centred the same way) and separate neighbours
    truth = {p: np.log(s) for p, s in strengths.items()}
    centre = np.mean(list(truth.values()))
    for p, lo, hi in zip(result.policies, result.low, result.high, strict=True):
        assert lo is not None and hi is not None
        assert lo - 0.1 <= truth[p] - centre <= hi + 0.1
    infos = rank_rows(result.strength, result.low, result.high)
    assert all(i.separated for i in infos)


def test_bradley_terry_ties_count_half_and_duplicates_do_not_play_themselves() -> None:
    index = {"x": 0, "y": 1}
    wins = bradley_terry.episode_wins(["x", "x", "y"], [1.0, 2.0, 2.0], index)
    # x#1 lost to y, x#2 tied y, x vs x is no match
    assert wins.tolist() == [[0.0, 0.5], [1.5, 0.0]]


def test_bradley_terry_is_finite_for_a_policy_that_never_lost() -> None:
    episodes = [(["a", "b"], [1.0, 0.0])] * 30
    result = bradley_terry.rate(episodes, resamples=50)
    assert all(np.isfinite(result.strength))
    assert result.strength[0] > result.strength[1]


def test_openskill_orders_a_clear_league_and_reports_uncertainty() -> None:
    strengths = {"a": 20.0, "b": 4.0, "c": 1.0}
    rows = openskill_rating.rate(_synthetic_league(strengths, 300, 3, seed=5))
    by = {r.policy: r for r in rows}
    assert by["a"].mu > by["b"].mu > by["c"].mu
    for r in rows:
        assert r.sigma > 0 and r.low < r.mu < r.high
        assert r.ordinal == pytest.approx(r.mu - 3 * r.sigma)


def test_ties_share_a_rank() -> None:
    infos = rank_rows([5.0, 5.0, 1.0], [4.9, 4.9, 0.9], [5.1, 5.1, 1.1])
    assert [i.rank for i in infos] == [1, 1, 3]
    assert [i.label for i in infos] == ["level 1–2", "level 1–2", "3"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=40),
       st.randoms(use_true_random=False))
def test_a_mean_and_its_interval_do_not_depend_on_the_episodes_order(
        values: list[float], shuffle: random.Random) -> None:
    """Two policies with the same scores in another order are tied exactly: their means (and
    intervals) are equal to the last bit, so they share a rank instead of being split by the
    rounding of a sum taken in another order."""
    again = list(values)
    shuffle.shuffle(again)
    assert mean_interval(values, resamples=200) == mean_interval(again, resamples=200)


def test_policies_with_the_same_scores_in_another_order_share_a_rank() -> None:
    from cogleague.league.episodes import EpisodeRecord
    from cogleague.league.rankings.standings import standings

    scores = [(0.1, 0.3), (0.2, 0.2), (0.3, 0.1)]  # a sums 0.1+0.2+0.3, b 0.3+0.2+0.1
    episodes = [EpisodeRecord(id=f"e{i}", league="L", game="skill", variant=None, seed=i,
                              policies=["a", "b"], index=i, results={"scores": list(pair)})
                for i, pair in enumerate(scores)]
    (table,) = standings(episodes, resamples=200)["tables"]
    rows = {r["policy"]: r for r in table["rows"]}
    assert rows["a"]["mean"] == rows["b"]["mean"]
    assert rows["a"]["rank"] == rows["b"]["rank"] == 1


def test_equal_strengths_up_to_rounding_share_a_rank() -> None:
    """Bradley–Terry is fitted by Newton's method: two policies with the same outcomes come out
    equal only up to the last bits of a float. They share a rank (1, 1, 3), and degenerate
    intervals (every resample the same) do not separate them."""
    from cogleague.league.episodes import EpisodeRecord
    from cogleague.league.rankings.standings import standings

    lineups = [["me", "ad", "tft"], ["tft", "me", "ad"], ["ad", "tft", "me"],
               ["me", "tft", "ad"], ["ad", "me", "tft"]]
    points = {"me": 19.0, "tft": 19.0, "ad": 18.0}
    episodes = [EpisodeRecord(id=f"e{i}", league="L", game="skill", variant=None, seed=i,
                              policies=lineup, index=i,
                              results={"scores": [points[p] for p in lineup]})
                for i, lineup in enumerate(lineups)]
    rows = {r["policy"]: r for r in
            standings(episodes, resamples=200)["overall"]["bradley_terry"]["rows"]}
    assert rows["me"]["strength"] == pytest.approx(rows["tft"]["strength"])
    assert rows["me"]["rank"] == rows["tft"]["rank"] == 1
    assert rows["me"]["rank_label"] == rows["tft"]["rank_label"] == "level 1–2"
    assert rows["ad"]["rank_label"] == "3"


def test_rank_rows_treats_estimates_equal_to_rounding_as_ties() -> None:
    a, b = 1.0523949000659552, 1.0523949000659547
    infos = rank_rows([a, b, -2.1], [a, b, -2.1], [a, b, -2.1])
    assert [i.rank for i in infos] == [1, 1, 3]
    assert [i.label for i in infos] == ["level 1–2", "level 1–2", "3"]


def test_the_held_out_pool_is_listed_in_its_numbering_order() -> None:
    """``held-out #1, held-out #2`` — not in the order the episodes first showed them."""
    from cogleague.league import heldout
    from cogleague.league.episodes import EpisodeRecord
    from cogleague.league.rankings.standings import standings

    def ep(i: int, lineup: list[str], source: str) -> EpisodeRecord:
        return EpisodeRecord(id=f"e{i}", league="L", game="skill", variant=None, seed=i,
                             policies=lineup, index=i, source=source,
                             results={"scores": [float(k) for k in range(len(lineup))]})

    episodes = [ep(0, ["a", "b"], "league"), ep(1, ["a", "zeta"], heldout.SOURCE),
                ep(2, ["b", "alpha"], heldout.SOURCE)]
    hidden = standings(episodes, resamples=100)["held_out"]
    assert hidden["policies"] == ["held-out #1", "held-out #2"]
    shown = standings(episodes, resamples=100, reveal_held_out=True)["held_out"]
    assert shown["policies"] == ["alpha", "zeta"]
