"""Spec §2–3: the payoff matrix, ranking with ties, cooperation rate, results indexed by seat."""

from __future__ import annotations

import pytest

from cogleague.core.episode import play_headless
from cogleague.core.game import Decision
from cogleague.games.dilemma.payoffs import competition_ranks, ranked_standings, standings
from dilemma.support import Scripted, game, play, seen_by


def _one_round(choices: dict[int, str], seats: int = 3, **overrides: object) -> dict:
    """Play one round where seat s always plays choices[s]; return the results."""
    g = game(["always_cooperate"] * seats, rounds_total=1, **overrides)
    seats_ = [Scripted(lambda t, c=choices[s]: {"action": c}) for s in range(seats)]
    return play_headless(g, seats_).results


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("cooperate", "cooperate", (3, 3)),
    ("cooperate", "defect", (0, 5)),
    ("defect", "cooperate", (5, 0)),
    ("defect", "defect", (1, 1)),
])
def test_payoff_matrix_per_round(a: str, b: str, expected: tuple[int, int]) -> None:
    g = game(["always_cooperate"] * 3, rounds_total=2)
    plays = {0: a, 1: b, 2: "cooperate"}
    seats = [Scripted(lambda t, c=plays[s]: {"action": c}) for s in range(3)]
    outcome = play_headless(g, seats)
    revealed = [e.data for e in outcome.log.events if e.kind == "choices_revealed"
                and e.data["seats"] == [0, 1]]
    assert [r["points"] for r in revealed] == [list(expected)] * 2  # both move orders
    assert revealed[-1]["totals"] == [2 * expected[0], 2 * expected[1]]
    assert revealed[0]["choices"] == [a, b]


def test_custom_payoffs_are_used_and_reported() -> None:
    pay = {"reward": 4, "punishment": 2, "temptation": 6, "sucker": 1}
    results = _one_round({0: "defect", 1: "cooperate", 2: "defect"}, payoffs=pay)
    # seat 0 vs 1: 6/1; 0 vs 2: 2/2; 1 vs 2: 1/6
    assert results["scores"] == [8, 2, 8]
    g = game(["pavlov"] * 3, payoffs=pay)
    g.start()
    g.open_round()
    assert g.pending()[0].view["payoffs"] == pay


def test_ranking_shares_ranks_competition_style() -> None:
    assert competition_ranks([10, 12, 12, 3]) == [3, 1, 1, 4]
    assert competition_ranks([5, 5, 5]) == [1, 1, 1]
    assert standings([10, 12, 12, 3]) == [{"seat": 1, "points": 12}, {"seat": 2, "points": 12},
                                          {"seat": 0, "points": 10}, {"seat": 3, "points": 3}]
    assert [(e["seat"], e["rank"]) for e in ranked_standings([10, 12, 12, 3])] == [
        (1, 1), (2, 1), (0, 3), (3, 4)]
    # 0 and 1 defect against everyone, 2 and 3 cooperate: 0/1 tie first, 2/3 tie third
    results = _one_round({0: "defect", 1: "defect", 2: "cooperate", 3: "cooperate"}, seats=4)
    assert results["scores"] == [11, 11, 3, 3]
    assert [s["rank"] for s in results["seats"]] == [1, 1, 3, 3]


def test_cooperation_rate_is_cooperations_over_choices() -> None:
    # seat 0 cooperates only in odd rounds: 2 of 3 rounds × 2 opponents
    g = game(["always_cooperate"] * 3, rounds_total=3)
    seats = [Scripted(lambda t: {"action": "cooperate" if t.round % 2 else "defect"}),
             Scripted(lambda t: {"action": "defect"}),
             Scripted(lambda t: {"action": "cooperate"})]
    results = play_headless(g, seats).results
    rates = [s["cooperation_rate"] for s in results["seats"]]
    assert rates == [pytest.approx(4 / 6), 0.0, 1.0]


def test_results_are_indexed_by_seat_and_follow_the_seat_not_the_order() -> None:
    names = ["always_defect", "tit_for_tat", "always_cooperate", "pavlov"]
    _, first = play(names, seed=9)
    rotated = names[1:] + names[:1]
    _, second = play(rotated, seed=9)
    r1, r2 = first.results, second.results
    assert r1["game"] == "dilemma" and r1["rules_version"] == "dilemma-0.1"
    assert r1["reason"] == "complete" and r1["rounds_played"] == 20
    assert [s["seat"] for s in r1["seats"]] == [0, 1, 2, 3]
    assert [s["policy"] for s in r1["seats"]] == names
    assert r1["scores"] == [s["points"] for s in r1["seats"]]
    by_policy = {s["policy"]: s["points"] for s in r1["seats"]}
    assert {s["policy"]: s["points"] for s in r2["seats"]} == by_policy
    assert r2["scores"] == [by_policy[n] for n in rotated]
    for s in r1["seats"]:
        assert set(s) == {"seat", "alias", "policy", "points", "rank", "cooperation_rate",
                          "timeouts", "promises_made", "promises_kept", "payout"}
        assert s["payout"] is None  # a free table


def test_aliases_are_distinct_seeded_and_policy_names_never_reach_seats() -> None:
    names = ["silver_tongue", "promise_keeper", "grim_trigger", "generous_tit_for_tat",
             "random", "always_defect", "pavlov", "tit_for_tat"]
    g, outcome = play(names, seed=4)
    assert len(set(g.aliases)) == 8
    assert game(names, seed=4).aliases == g.aliases
    assert game(names, seed=5).aliases != g.aliases
    assert [s["alias"] for s in outcome.results["seats"]] == g.aliases
    start = outcome.log.events[0]
    assert start.kind == "tournament_start" and start.data["aliases"] == g.aliases
    for seat in range(8):
        text = repr(seen_by(outcome.log.events, seat))
        assert not any(name in text for name in names)
    g2 = game(names, seed=4)
    g2.start()
    g2.open_round()
    for t in g2.pending():
        assert not any(name in repr(t.view) + (t.prompt_text or "") for name in names)


def test_apply_is_transactional_and_phases_are_enforced() -> None:
    from cogleague.core.errors import GameStateError, SeatInputRejected

    g = game(["always_cooperate"] * 3, rounds_total=1, promises=False)
    with pytest.raises(GameStateError):
        g.open_round()
    g.start()
    with pytest.raises(GameStateError):
        g.apply({})
    g.open_round()
    turns = g.pending()
    bad = {t.turn_id: Decision({"action": "cooperate"}, "scripted") for t in turns}
    bad[turns[1].turn_id] = Decision({"action": "cooperate", "message": "hi"}, "scripted")
    with pytest.raises(SeatInputRejected) as info:
        g.apply(bad)
    assert info.value.turn_id == turns[1].turn_id
    assert g.pending()[0].turn_id == turns[0].turn_id  # nothing moved on
    assert all(rec.current == [None, None] for rec in g.state.pairs)


def test_stop_ends_between_steps_voids_the_open_round_and_is_idempotent() -> None:
    g = game(["always_cooperate"] * 3, rounds_total=5)
    g.start()
    for _ in range(2):
        g.open_round()
        for _ in (0, 1):
            g.apply({t.turn_id: Decision({"action": "defect"}, "scripted") for t in g.pending()})
    g.open_round()
    g.apply({t.turn_id: Decision({"action": "cooperate"}, "scripted") for t in g.pending()})
    events = g.stop("aborted")
    assert [e.kind for e in events] == ["tournament_end"]
    assert events[0].data["reason"] == "aborted" and events[0].data["rounds_played"] == 2
    assert g.stop("deadline") == []
    assert g.done and g.pending() == []
    results = g.results()
    assert results["reason"] == "aborted" and results["rounds_played"] == 2
    assert results["scores"] == [4, 4, 4]  # the third, unfinished round paid nothing
    with pytest.raises(ValueError, match="reason must be one of deadline, aborted"):
        game(["pavlov"] * 3).stop("bored")


def test_spectator_state_and_public_config() -> None:
    g, _ = play(["pavlov", "random", "tit_for_tat"], seed=2, rounds_total=3)
    spec = g.spectator_state()
    assert spec["done"] and spec["rounds_played"] == 3
    assert spec["policies"] == ["pavlov", "random", "tit_for_tat"]
    assert "seed" not in g.public_config() and g.public_config()["rounds_total"] == 3
