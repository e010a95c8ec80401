"""`cogleague.play_batch`: a line-up of baselines over many seeds through the kernel, each
episode the rules engine's of the same seed; bad input is refused by field."""

from __future__ import annotations

import dataclasses

import pytest

import cogleague
from cogleague.core.errors import ConfigError
from cogleague.games import registry


@pytest.mark.parametrize(("game", "variant", "lineup", "options"), [
    ("dilemma", None, ["tit_for_tat", "random", "generous_tit_for_tat", "grim_trigger"],
     {"rounds_total": 30, "payoffs": {"temptation": 7, "reward": 4}}),
    ("ledger", "quickfire", None, {}),
    ("commons", "allelopathic", ["steward", "random", "free_rider", "cleaner"], {"rounds": 8}),
])
def test_play_batch_equals_play(game: str, variant: str | None, lineup: list[str] | None,
                                options: dict[str, object]) -> None:
    seeds = [3, 1, 4, 1, 5]
    run = cogleague.play_batch(game, lineup, seeds=seeds, variant=variant, **options)
    assert run.seeds == seeds and run.scores.shape[0] == 5
    for i, seed in enumerate(seeds):
        want = cogleague.play(game, lineup, seed=seed, variant=variant, **options)
        assert run.scores[i].tolist() == want.scores
        assert run.reasons[i] == want.results["reason"]


def test_play_batch_refuses_by_field() -> None:
    with pytest.raises(ConfigError, match="seats must be baselines with a batch twin"):
        cogleague.play_batch("dilemma", ["tit_for_tat", "promise_keeper", "pavlov"], seeds=[1])
    with pytest.raises(ConfigError, match="seeds"):
        cogleague.play_batch("dilemma", ["tit_for_tat"] * 3, seeds=[-1])
    with pytest.raises(ConfigError, match="rounds_total"):
        cogleague.play_batch("dilemma", ["tit_for_tat"] * 3, seeds=[1], rounds_total=0)
    desc = registry.get("commons")
    bare = dataclasses.replace(desc, extras={k: v for k, v in desc.extras.items()
                                             if k != "batch"})
    with pytest.raises(ConfigError, match="declares no batch kernel"):
        cogleague.play_batch(bare, seeds=[1])


@pytest.mark.parametrize(("game", "variant", "lineup", "options"), [
    ("dilemma", "standard", ["tit_for_tat", "random", "pavlov"], {"rounds_total": 6}),
    ("ledger", "quickfire", None, {}),
    ("commons", "harvest-partnership", ["punisher", "random", "deterrable", "fair_share"],
     {"rounds": 7, "sanctions_enabled": True}),
])
def test_play_engine_batch_gives_the_rules_results(game: str, variant: str,
                                                   lineup: list[str] | None,
                                                   options: dict[str, object]) -> None:
    got = cogleague.play(game, lineup, seed=11, variant=variant, engine="batch", **options)
    want = cogleague.play(game, lineup, seed=11, variant=variant, **options)
    assert got.scores == want.scores
    assert got.results == {k: v for k, v in want.results.items() if k != "faults"}


def test_play_engine_is_checked_by_field() -> None:
    with pytest.raises(ConfigError, match="engine must be one of"):
        cogleague.play("dilemma", seed=1, engine="fast")  # type: ignore[call-overload]
    with pytest.raises(ConfigError, match="seed is required"):
        cogleague.play("dilemma", engine="batch")
    with pytest.raises(ConfigError, match="seats must be baselines with a batch twin"):
        cogleague.play("dilemma", ["tit_for_tat", "promise_keeper", "pavlov"], seed=1,
                       engine="batch")


def test_a_default_line_up_without_batch_twins_says_seats_were_not_given() -> None:
    """Without `seats` the variant's line-up plays; when one of its seats has no batch twin
    (the dilemma's promise_keeper) the refusal says the line-up was the default and asks for
    seats, in `play_batch` and in `play(..., engine="batch")`."""
    for run in (lambda: cogleague.play_batch("dilemma", seeds=[1]),
                lambda: cogleague.play("dilemma", seed=1, engine="batch")):
        with pytest.raises(ConfigError, match=r"^seats: not given, and the standard variant's "
                                              r"line-up cannot play through the batch kernel "
                                              r".*give seats=") as err:
            run()
        assert err.value.field == "seats"


def test_a_seed_the_variant_refuses_is_named_as_the_caller_gave_it() -> None:
    """`play_batch` takes `seeds`: a seed its variant refuses (certification plays only 7) is
    refused under that name, as a seed outside the range is."""
    with pytest.raises(ConfigError, match=r"^seeds must be 7 in the certification") as err:
        cogleague.play_batch("ledger", ["mirror"] * 8, seeds=[7, 1], variant="certification")
    assert err.value.field == "seeds"


def test_an_empty_line_up_is_refused_not_read_as_the_default() -> None:
    """``seats=[]`` is a line-up of no seats, not "not given": refused naming `seats` and the
    seat range, in `play` (either engine) and `play_batch`, instead of quietly playing the
    variant's line-up."""
    for run in (lambda: cogleague.play("ledger", [], seed=1, variant="quickfire"),
                lambda: cogleague.play("ledger", [], seed=1, variant="quickfire",
                                       engine="batch"),
                lambda: cogleague.play_batch("ledger", [], seeds=[1], variant="quickfire")):
        with pytest.raises(ConfigError, match=r"^seats must list 8 policies \(got 0\)") as err:
            run()
        assert err.value.field == "seats"
