"""Every module example of rules §7, exactly (floats to 1e-9), on the pure physics."""

from __future__ import annotations

import pytest

from cogleague.games.commons.modules import allelopathic, cleanup, harvest, mushrooms
from cogleague.games.commons.modules.common import pro_rata

from .support import mv, play

approx = lambda x: pytest.approx(x, abs=1e-9)  # noqa: E731


def test_pro_rata_meets_demands_that_fit_and_shares_the_rest() -> None:
    assert pro_rata([1, 2], 10.0) == ([1.0, 2.0], 7.0)
    shares, left = pro_rata([3, 1], 2.0)
    assert shares == [approx(1.5), approx(0.5)] and left == 0.0


# -- cleanup ---------------------------------------------------------------------------------
def test_cleanup_six_one_one_from_start() -> None:
    s = cleanup.initial_state()
    moves = [mv(harvest=1, clean=1)] * 6
    out = cleanup.resolve(s, moves, 0)
    assert out.gains == [1.0] * 6 and out.extracted == [1.0] * 6 and out.effort == [1] * 6
    assert s.apples == approx(54.0)
    assert cleanup.dynamics(s, moves, 0) == []
    assert s.pollution == approx(0.12)
    assert s.apples == approx(61.65072)
    assert s.cleaned_last_round == 6


def test_cleanup_six_one_one_through_the_engine() -> None:
    game, _ = play("cleanup", ["cleaner"] * 6, {"rounds": 1})
    rec = game.records[0]
    assert rec["state_before"]["apples"] == 60.0
    # cleaner takes min(quota, 2) = min(floor(0.245 * 25 / 6), 2) = 1 and cleans 1
    assert [d["harvest"] for d in rec["decisions"]] == [1] * 6
    assert rec["gains"] == [1.0] * 6
    assert rec["state_after"]["pollution"] == approx(0.12)
    assert rec["state_after"]["apples"] == approx(61.65072)


@pytest.mark.parametrize(("pollution", "rate"), [(0.0, 0.35), (0.3, 0.245), (1.0, 0.0)])
def test_cleanup_effective_regrowth(pollution: float, rate: float) -> None:
    assert cleanup.effective_regrowth(pollution) == approx(rate)


@pytest.mark.parametrize(("pollution", "after"), [(0.0, 58.75), (0.3, 56.125)])
def test_cleanup_regrowth_from_fifty(pollution: float, after: float) -> None:
    assert cleanup.regrow(50.0, pollution) == approx(after)


def test_cleanup_five_apples_six_demands_of_three_die_that_round() -> None:
    s = cleanup.CleanupState(apples=5.0)
    moves = [mv(harvest=3)] * 6
    out = cleanup.resolve(s, moves, 7)
    assert out.gains == [approx(5 / 6)] * 6 and s.apples == 0.0
    events = cleanup.dynamics(s, moves, 7)
    assert s.dead and s.collapse_round == 7 and [k for k, _ in events] == ["collapse"]


def test_cleanup_nine_apples_at_round_four_die_for_good_and_leftovers_stay_pickable() -> None:
    s = cleanup.CleanupState(apples=9.0)
    idle = [mv()] * 6
    cleanup.resolve(s, idle, 4)
    assert [k for k, _ in cleanup.dynamics(s, idle, 4)] == ["collapse"]
    assert s.dead and s.collapse_round == 4 and s.apples == 9.0  # no regrowth
    out = cleanup.resolve(s, [mv(harvest=3)] + [mv()] * 5, 5)
    assert out.gains[0] == 3.0 and s.apples == 6.0
    assert cleanup.dynamics(s, idle, 5) == []  # no second event
    assert s.collapse_round == 4 and s.apples == 6.0


def test_cleanup_silt_applies_dead_or_not_and_pollution_stays_in_0_1() -> None:
    s = cleanup.CleanupState(apples=5.0, pollution=0.95)
    cleanup.dynamics(s, [mv()] * 6, 0)
    assert s.pollution == 1.0
    cleanup.dynamics(s, [mv(clean=3)] * 6, 1)
    assert s.pollution == approx(0.22)
    cleanup.dynamics(s, [mv(clean=3)] * 6, 2)
    assert s.pollution == 0.0


# -- harvest ---------------------------------------------------------------------------------
def _harvest(rights: str = "open", stocks: list[float] | None = None) -> harvest.HarvestState:
    st = harvest.initial_state(6, [2, 4, 0, 1, 5, 3], [[2, 4], [0, 1], [5, 3]], rights)
    if stocks is not None:
        st.stocks = list(stocks)
    return st


def test_harvest_regrowth_ten_to_twelve() -> None:
    assert harvest.regrow(10.0) == approx(12.0)
    s = _harvest(stocks=[10.0] * 6)
    harvest.dynamics(s, [mv()] * 6, 0)
    assert s.stocks == [approx(12.0)] * 6


def test_harvest_stock_three_two_demands_of_three_then_the_patch_dies() -> None:
    s = _harvest(stocks=[3.0] + [12.0] * 5)
    moves = [mv(patch=0, harvest=3), mv(patch=0, harvest=3)] + [mv()] * 4
    out = harvest.resolve(s, moves, 0)
    assert out.gains[:2] == [approx(1.5), approx(1.5)] and s.stocks[0] == 0.0
    events = harvest.dynamics(s, moves, 0)
    assert s.dead[0] and ("patch_dead", {"patch": 0}) in events


def test_harvest_one_and_a_half_minus_one_dies_and_later_demands_are_void() -> None:
    s = _harvest(stocks=[1.5] + [12.0] * 5)
    moves = [mv(patch=0, harvest=1)] + [mv()] * 5
    assert harvest.resolve(s, moves, 0).gains[0] == 1.0
    harvest.dynamics(s, moves, 0)
    assert s.dead[0] and s.stocks[0] == 0.0
    out = harvest.resolve(s, moves, 1)
    assert out.gains[0] == 0.0
    assert out.events == [("void", {"slot": 0, "cause": "dead", "patch": 0, "amount": 1})]


def test_harvest_closed_owner_takes_and_a_non_owner_trespasses() -> None:
    s = _harvest("closed")  # owner [2,4,0,1,5,3]: slot 2 owns patch 0
    moves = [mv(patch=0, harvest=2) if slot in (0, 2) else mv() for slot in range(6)]
    out = harvest.resolve(s, moves, 0)
    assert out.gains[2] == 2.0 and out.gains[0] == 0.0
    assert out.events == [("trespass", {"slot": 0, "patch": 0, "amount": 2})]
    assert s.stocks[0] == 10.0


def test_harvest_partnership_needs_both_partners_on_the_patch() -> None:
    s = _harvest("partnership")  # pair 0 = slots 2, 4 holds patches 0, 1
    both = [mv(), mv(patch=4, harvest=1), mv(patch=0, harvest=2), mv(), mv(patch=0),
            mv()]
    out = harvest.resolve(s, both, 0)
    assert out.gains[2] == 2.0  # partner 4 named patch 0 with harvest 0: held
    assert out.events == [("trespass", {"slot": 1, "patch": 4, "amount": 1})]
    alone = [mv(), mv(), mv(patch=0, harvest=2), mv(), mv(patch=1, harvest=1), mv()]
    out = harvest.resolve(s, alone, 1)
    assert out.gains == [0.0] * 6
    assert [k for k, _ in out.events] == ["unheld", "unheld"]


def test_harvest_effort_is_three_minus_harvest_and_a_pass_counts_zero() -> None:
    s = _harvest()
    out = harvest.resolve(s, [mv(patch=1, harvest=1), mv(patch=2, harvest=0)] + [mv()] * 4, 0)
    assert out.effort == [2, 3, 0, 0, 0, 0]


def test_harvest_last_patch_dying_is_a_collapse() -> None:
    s = _harvest(stocks=[0.5] * 6)
    events = harvest.dynamics(s, [mv()] * 6, 3)
    assert [k for k, _ in events] == ["patch_dead"] * 6 + ["collapse"]
    assert s.collapse_round == 3 and harvest.residual(s) == 0.0


# -- allelopathic -----------------------------------------------------------------------------
def _field(planted: list[int], ripe: list[float]) -> allelopathic.AllelopathicState:
    return allelopathic.AllelopathicState(list(planted), list(ripe), ["red", "green", "blue"] * 2)


def test_allelopathic_ripe_three_six_demands_of_three_half_each() -> None:
    s = _field([20, 20, 20], [3.0, 6.0, 6.0])
    out = allelopathic.resolve(s, [mv(eat=3, eat_color="red")] * 6, 0)
    assert out.extracted == [approx(0.5)] * 6 and s.ripe[0] == 0.0
    # slots 0 and 3 favour red: 2.0 a berry; the others 1.0
    assert out.gains == [approx(1.0), approx(0.5), approx(0.5)] * 2


def test_allelopathic_one_blue_unit_from_an_even_field() -> None:
    s = _field([20, 20, 20], [6.0] * 3)
    allelopathic.resolve(s, [mv(plant=1, plant_color="blue")] + [mv()] * 5, 0)
    assert s.planted == [19, 20, 21]


def test_allelopathic_planting_caps_the_source_ripe() -> None:
    s = _field([5, 50, 5], [5.0, 6.0, 3.0])
    out = allelopathic.resolve(s, [mv(plant=1, plant_color="green")] + [mv()] * 5, 0)
    assert s.planted == [4, 51, 5] and s.ripe[0] == 4.0 and out.effort[0] == 1


def test_allelopathic_no_source_unit_is_void_but_counts_as_effort() -> None:
    s = _field([0, 60, 0], [0.0, 6.0, 0.0])
    out = allelopathic.resolve(s, [mv(plant=1, plant_color="green")] + [mv()] * 5, 0)
    assert s.planted == [0, 60, 0] and out.effort[0] == 1
    assert [(k, d["cause"]) for k, d in out.events] == [("void", "no_source")]


@pytest.mark.parametrize(("planted", "gain"), [([20, 20, 20], 10.0), ([60, 0, 0], 30.0)])
def test_allelopathic_ripening_from_empty(planted: list[int], gain: float) -> None:
    s = _field(planted, [0.0, 0.0, 0.0])
    events = allelopathic.dynamics(s, [mv()] * 6, 0)
    assert sum(s.ripe) == approx(gain)
    assert [k for k, _ in events] == ["barren"] and s.barren


# -- mushrooms -------------------------------------------------------------------------------
def test_mushrooms_one_of_each_colour_from_eight() -> None:
    s = mushrooms.initial_state(6)
    moves = [mv(eat=1, eat_color="red"), mv(eat=1, eat_color="green"),
             mv(eat=1, eat_color="blue")] + [mv()] * 3
    out = mushrooms.resolve(s, moves, 0)
    assert out.gains[0] == approx(1 + 2 / 6 + 3 / 5)
    assert out.gains[1] == approx(2 / 6 + 3 / 5)
    assert out.gains[2] == approx(2 / 6)
    assert out.gains[3:] == [approx(2 / 6 + 3 / 5)] * 3
    assert sum(out.gains) == approx(6.0)
    assert out.effort == [0, 1, 1, 0, 0, 0]
    mushrooms.dynamics(s, moves, 0)
    assert s.counts == [8.0, 8.0, 8.0]


def test_mushrooms_eating_three_in_round_two_digests_through_round_four() -> None:
    s = mushrooms.initial_state(6)
    eat3 = [mv(eat=3, eat_color="red")] + [mv()] * 5
    mushrooms.resolve(s, eat3, 2)
    assert s.frozen_until[0] == 5
    for r in (3, 4):
        out = mushrooms.resolve(s, eat3, r)
        assert out.gains[0] == 0.0 and [k for k, _ in out.events] == ["digesting"]
    assert mushrooms.resolve(s, eat3, 5).gains[0] == 3.0


@pytest.mark.parametrize(("eaten", "spawn"), [([0.0, 0.0, 0.0], [1, 1, 1]),
                                               ([2.0, 0.0, 0.0], [2, 1, 0])])
def test_mushrooms_spawn_weights(eaten: list[float], spawn: list[int]) -> None:
    assert mushrooms.spawn(eaten) == spawn


def test_mushrooms_equal_weights_grow_eight_to_nine() -> None:
    s = mushrooms.initial_state(6)
    mushrooms.dynamics(s, [mv()] * 6, 0)
    assert s.counts == [9.0, 9.0, 9.0]


def test_mushrooms_caps_per_colour_then_total() -> None:
    s = mushrooms.MushroomsState([14.0, 14.0, 2.0], [0.0] * 3, [0] * 6)
    mushrooms.dynamics(s, [mv()] * 6, 0)
    assert s.counts == [12.0, 15.0, 3.0]
