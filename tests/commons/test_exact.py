"""Exact rules (issue 12 item 8): every threshold and tie is decided on exact values, each
tested with a case built to sit exactly on it — one where float arithmetic decides wrongly."""

from __future__ import annotations

import math

import pytest

from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.baselines.steward import steward_move
from cogleague.games.commons.baselines.view import RoundView, SeatView, views_of_observation
from cogleague.games.commons.modules import cleanup, mushrooms
from cogleague.games.commons.modules.common import pro_rata

from .support import mv, remote_game, step


def test_pro_rata_shares_summed_one_by_one_drift_but_the_colour_total_does_not() -> None:
    shares, left = pro_rata([2, 3, 1], 1.0)
    running = 0.0
    for k in shares:
        running += k
    assert running == 0.9999999999999999 and left == 0.0  # why the total is booked at once
    state = mushrooms.initial_state(6)
    state.counts = [1.0, 8.0, 8.0]
    moves = [mv(eat=2, eat_color="red"), mv(eat=3, eat_color="red"), mv(eat=1, eat_color="red"),
             mv(eat=1, eat_color="green"), mv(eat=3, eat_color="blue"),
             mv(eat=2, eat_color="blue")]
    mushrooms.resolve(state, moves, 0)
    assert state.eaten_total == [1.0, 1.0, 5.0]


def test_equal_fractional_parts_tie_canonically() -> None:
    # weights 2, 2, 5: quotas 2/3, 2/3, 5/3 -> blue's floor, then the two leftovers to the
    # largest fractional parts, all exactly 2/3: red and green (canonical order)
    assert mushrooms.spawn([1.0, 1.0, 4.0]) == [1, 1, 1]
    # in floats blue's part is an ulp larger, and the old rule spawned blue twice
    q = [3 * w / 9 for w in (2.0, 2.0, 5.0)]
    assert q[2] - math.floor(q[2]) > q[1] - math.floor(q[1])


def test_a_round_on_the_tie_spawns_the_canonical_colour() -> None:
    game = remote_game("mushrooms")
    game.start()
    game.state.counts = [1.0, 8.0, 8.0]
    step(game, [{"eat": 2, "eat_color": "red"}, {"eat": 3, "eat_color": "red"},
                {"eat": 1, "eat_color": "red"}, {"eat": 1, "eat_color": "green"},
                {"eat": 3, "eat_color": "blue"}, {"eat": 1, "eat_color": "blue"}])
    # eaten 1 / 1 / 4 (red's exactly 1, not 0.999…9): weights 2/2/5 spawn one of each
    assert game.state.eaten_total == [1.0, 1.0, 4.0]
    assert game.state.counts == [1.0, 8.0, 5.0]


def test_pollution_drift_never_decides_the_stewards_cleaning() -> None:
    pollution = cleanup.INITIAL_POLLUTION
    for cleaned in (0, 0, 0, 0, 15):
        pollution = cleanup.next_pollution(pollution, cleaned)
    assert pollution == 0.15000000000000002  # exactly 0.15 on the 0.01 lattice
    game = remote_game("cleanup")
    for cleaned in ([0] * 6, [0] * 6, [0] * 6, [0] * 6, [3, 3, 3, 3, 3, 0]):
        step(game, [{"harvest": 0, "clean": k} for k in cleaned])
    game.open_round()
    obs = game.observe(0)
    assert obs["module_state"]["pollution"] == pollution
    assert c.pollution_centi(obs) == 15
    v, me = views_of_observation(obs)
    assert steward_move(v, me, 0, v.quota)["clean"] == 0  # 0.15 is not above 0.15


def _round_view(module: str, num_players: int, **kw: object) -> RoundView:
    aliases = [f"Cog-{chr(65 + i)}" for i in range(num_players)]
    return RoundView(module=module, round=0, num_players=num_players, sanctions=False,
                     chat=False, chat_max=140, aliases=aliases, ledger=None, last_total=None,
                     **kw)  # type: ignore[arg-type]


def test_a_quota_on_a_whole_number_is_not_floored_below_it() -> None:
    # pollution 0.2 and seven cogs: 0.35 × 0.8 × 100 / 4 = 7 -> exactly 1 each
    v = _round_view("cleanup", 7, pollution=0.2)
    regrowth = cleanup.effective_regrowth(0.2) * cleanup.CAPACITY / 4
    assert math.floor(regrowth / 7) == 0  # the float product lands just below 7
    assert v.sustainable == (35 * 80, 400)
    assert v.quota == 1
    me = SeatView("Cog-A", None, None, frozenset(), "red", True)
    assert c.fair_share_quota(v, me) == 1  # floor(7) split seven ways


def test_allelopathic_quota_is_the_exact_ripening_sum() -> None:
    v = _round_view("allelopathic", 5, planted=[20, 20, 20])
    assert v.sustainable == (1200, 120)  # 10 berries: 2 each for five cogs
    assert v.quota == 2


def test_the_whole_number_spawn_split_is_the_fraction_split() -> None:
    totals = [0.0, 1.0, 2.0, 4.0, 7.0, 15.0, 29.0, 60.0, 200.0]
    for red in totals:
        for green in totals:
            for blue in totals:
                eaten = [red, green, blue]
                assert mushrooms.spawn(eaten) == mushrooms.spawn_fractions(eaten)
    assert mushrooms.spawn([0.5, 0.25, 2.0]) == mushrooms.spawn_fractions([0.5, 0.25, 2.0])


def _float_split(eaten_total: list[float]) -> list[int]:
    """The spawn split on float quotas, as the engine had it before quotas became exact: the
    reference for what exactness changed (docs/commons.md lists the line-ups)."""
    w = [1 + e for e in eaten_total]
    q = [3 * x / sum(w) for x in w]
    out = [math.floor(x) for x in q]
    for col in sorted(range(3), key=lambda k: (-(q[k] - out[k]), k))[:3 - sum(out)]:
        out[col] += 1
    return out


def _welfare(variant: str, lineup: list[str]) -> float:
    from .support import play

    game, _ = play(variant, lineup)
    return game.welfare()


def test_spawn_quotas_compare_exact_fractions_so_a_tie_is_a_real_tie() -> None:
    # six green eaters' first round: weights 1/7/1, quotas 1/3, 7/3, 1/3 — every fractional part
    # exactly 1/3, so the leftover goes to red (canonical); floats gave green an ulp more
    assert mushrooms.spawn([0.0, 6.0, 0.0]) == [1, 2, 0]
    assert _float_split([0.0, 6.0, 0.0]) == [0, 3, 0]


def test_the_lineups_whose_welfare_exact_quotas_changed_are_the_documented_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/commons.md "Exact thresholds and ties": the §9/§14 baseline line-ups in every
    playable variant, played with the exact split and with the float one."""
    from cogleague.games.commons.baselines import BASELINES
    from cogleague.games.commons.config import VARIANTS

    lineups = {f"six {b}": [b] * 6 for b in BASELINES}
    lineups["3 steward + 3 free_rider"] = ["steward"] * 3 + ["free_rider"] * 3
    lineups["3 deterrable + 3 punisher"] = ["deterrable"] * 3 + ["punisher"] * 3
    lineups["mixed"] = ["steward", "steward", "cleaner", "punisher", "free_rider", "random"]
    played = [(v, name) for v in VARIANTS if v != "certification" for name in lineups]
    exact = {key: _welfare(key[0], lineups[key[1]]) for key in played}
    monkeypatch.setattr(mushrooms, "spawn", _float_split)
    floats = {key: _welfare(key[0], lineups[key[1]]) for key in played}
    moved = [key for key in played if abs(floats[key] - exact[key]) > 1e-9]
    assert {variant for variant, _ in moved} == {"mushrooms"}  # the only module that spawns
    changed = {name: (round(floats[(v, name)], 3), round(exact[(v, name)], 3))
               for v, name in moved}
    assert changed == {"six steward": (149.0, 148.0), "six cleaner": (214.0, 212.0),
                       "six punisher": (-307.0, -308.0), "six reciprocator": (126.0, 117.0)}
    # 3 steward + 3 free_rider changed with the exact eaten totals (113.0 -> 112.0): booked share
    # by share, red and green reached 12.999999999999998 and 13.000000000000002 in round 4, a
    # tie that floats split the other way
    assert exact[("mushrooms", "3 steward + 3 free_rider")] == 112.0
    assert mushrooms.spawn([13.0, 13.0, 0.0]) == [2, 1, 0]
    assert mushrooms.spawn_fractions([12.999999999999998, 13.000000000000002, 0.0]) == [1, 2, 0]
