"""The fourth game's rules, in-process: the exact threshold, refunds, replies, transactional
apply, stops, config errors, determinism and random legal play."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.core.errors import ConfigError, IllegalAction, ReplayError, SeatInputRejected
from cogleague.core.game import Decision, Turn
from cogleague.core.verify import verify_replay
from cogleague.seats.scripted import ScriptedSeat
from plugin.support import need_plugin

need_plugin()

from cogleague_threshold import GAME, ThresholdGame  # noqa: E402


def new(variant: str = "standard", seats: int = 4, **overrides: Any) -> ThresholdGame:
    game = GAME.make(variant, overrides, 5, ["fair_share"] * seats, None)
    assert isinstance(game, ThresholdGame)
    game.start()
    return game


def step(game: ThresholdGame, amounts: list[int]) -> list[dict[str, Any]]:
    if game.between_rounds:
        game.open_round()
    turns = game.pending()
    key = next(iter(turns[0].legal_actions))
    events = game.apply({t.turn_id: Decision({key: a}) for t, a in zip(turns, amounts,
                                                                        strict=True)})
    return [e.to_json() for e in events]


def settle(game: ThresholdGame, gave: list[int]) -> dict[str, Any]:
    if game.config.pledges:
        step(game, [0] * game.num_seats)
    return step(game, gave)[0]


def test_the_threshold_is_met_exactly_at_the_threshold_and_missed_one_below() -> None:
    game = new()
    assert game.config.threshold == 20 and game.config.fair_share == 5
    met = settle(game, [5, 5, 5, 5])
    assert met["kind"] == "round_settled" and met["total"] == 20 and met["met"]
    assert met["payoffs"] == [20, 20, 20, 20]
    missed = settle(game, [5, 5, 5, 4])
    assert missed["total"] == 19 and not missed["met"]
    assert missed["payoffs"] == [5, 5, 5, 6]
    assert game.scores == [25, 25, 25, 26]


def test_refund_returns_contributions_only_when_the_threshold_is_missed() -> None:
    game = new("refund")
    assert settle(game, [10, 9, 0, 0])["payoffs"] == [10, 10, 10, 10]
    assert settle(game, [10, 10, 0, 0])["payoffs"] == [15, 15, 25, 25]


def test_odd_thresholds_round_up_and_the_fair_share_covers_them() -> None:
    game = new(seats=3, endowment=7)
    assert game.config.threshold == 11 and game.config.fair_share == 4  # ceil(21/2), ceil(11/3)
    assert settle(game, [4, 4, 3])["met"] and not settle(game, [4, 3, 3])["met"]


def test_pledges_are_public_cheap_talk_and_silent_games_have_none() -> None:
    game = new()
    game.open_round()
    assert [next(iter(t.legal_actions)) for t in game.pending()] == ["pledge"] * 4
    (pledges,) = step(game, [5, 5, 5, 5])
    assert pledges == {"kind": "pledges", "round": 0, "pledges": [5, 5, 5, 5]}
    assert game.pending()[0].view["pledges"] == [5, 5, 5, 5]
    assert step(game, [0, 0, 0, 0])[0]["met"] is False  # pledges bind no one
    silent = new("silent")
    silent.open_round()
    assert next(iter(silent.pending()[0].legal_actions)) == "contribute"


def test_parse_clamps_refuses_and_reads_model_text() -> None:
    game = new()
    game.open_round()
    turn = game.pending()[0]
    assert game.parse(turn, {"pledge": 3}).action == {"pledge": 3}
    assert game.parse(turn, {"pledge": 11}).clamped and game.parse(turn, {"pledge": 11}
                                                                   ).action == {"pledge": 10}
    assert game.parse(turn, {"pledge": -2}).action == {"pledge": 0}
    assert game.parse(turn, '{"pledge": 4}').action == {"pledge": 4}
    assert game.parse(turn, 'I will pledge {"pledge": 6} now').action == {"pledge": 6}
    for bad in ({"pledge": True}, {"pledge": 2.5}, {"contribute": 3}, "pledge 4", None):
        with pytest.raises(IllegalAction) as refused:
            game.parse(turn, bad)
        assert '{"pledge": N}' in refused.value.hint


def _snapshot(game: ThresholdGame) -> str:
    return jsonio.dumps([game.phase, game.scores, game.pledges, game.spectator_state(),
                         [t.turn_id for t in game.pending()]])


def test_apply_is_transactional_on_bad_input_and_missing_turns_give_nothing() -> None:
    game = new()
    game.open_round()
    turns = game.pending()
    before = _snapshot(game)
    bad = {t.turn_id: Decision({"pledge": 5}) for t in turns}
    bad[turns[2].turn_id] = Decision({"pledge": 11})
    with pytest.raises(SeatInputRejected) as rejected:
        game.apply(bad)
    assert rejected.value.turn_id == turns[2].turn_id and _snapshot(game) == before
    (pledges,) = game.apply({turns[0].turn_id: Decision({"pledge": 7})})
    assert pledges.data["pledges"] == [7, 0, 0, 0]
    contribute = game.pending()[1]
    assert game.fallback(contribute) == {"contribute": 0}


def test_stop_ends_once_and_a_stopped_round_does_not_count() -> None:
    game = new()
    settle(game, [5, 5, 5, 5])
    game.open_round()
    step(game, [5, 5, 5, 5])  # pledges in, contributions not
    (over,) = game.stop("deadline")
    assert over.data == {"reason": "deadline", "scores": [20, 20, 20, 20], "rounds_played": 1}
    assert game.done and game.stop("deadline") == [] and game.pending() == []
    assert game.results()["reason"] == "deadline"


@pytest.mark.parametrize(("overrides", "message"), [
    ({"threshold": 41}, "threshold must be an integer in 1..40"),
    ({"rounds": 0}, "rounds must be an integer in 1..50"),
    ({"refund": 1}, "refund must be true or false"),
    ({"seats": 5}, "seats is 5 but the line-up names 4 policies"),
    ({"colour": "red"}, "colour is not a threshold config setting"),
])
def test_config_errors_name_the_field_and_range(overrides: dict[str, Any], message: str
                                                ) -> None:
    with pytest.raises(ConfigError) as bad:
        GAME.make(None, overrides, 1, ["keeper"] * 4, None)
    assert message in str(bad.value)
    with pytest.raises(ConfigError, match="variant must be one of standard, refund"):
        GAME.make("nope", {}, 1, ["keeper"] * 4, None)
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\.2147483647"):
        GAME.make(None, {}, -1, ["keeper"] * 4, None)


def _episode(seed: int, lineup: list[str], variant: str = "standard") -> dict[str, Any]:
    game = GAME.make(variant, {}, seed, lineup, None)
    seats = [ScriptedSeat(game.make_baseline(n, i), n) for i, n in enumerate(lineup)]
    outcome = play_headless(game, seats)
    return GAME.replay_document(game, outcome.log)


def test_baselines_play_as_described() -> None:
    doc = _episode(3, ["fair_share", "reciprocator", "altruist", "free_rider"])
    settled = [e["event"] for e in doc["events"] if e["event"]["kind"] == "round_settled"]
    assert len(settled) == 10
    assert all(e["contributions"] == [5, 5, 10, 0] and e["met"] for e in settled)
    assert doc["results"]["scores"] == [200, 200, 150, 250]  # the free rider wins
    doc = _episode(3, ["reciprocator", "keeper", "keeper", "matcher"])
    settled = [e["event"] for e in doc["events"] if e["event"]["kind"] == "round_settled"]
    # matcher: the others pledged 5 + 0 + 0, so it would need 15 > 10 and gives nothing.
    assert settled[0]["contributions"] == [5, 0, 0, 0]
    assert settled[1]["contributions"] == [0, 0, 0, 0]  # the reciprocator quits after a miss


def test_same_seed_same_bytes_and_verify_catches_an_edited_scripted_move() -> None:
    lineup = ["random", "matcher", "reciprocator", "random", "free_rider"]
    a, b = _episode(17, lineup), _episode(17, lineup)
    assert jsonio.dumps(a) == jsonio.dumps(b)
    assert jsonio.dumps(_episode(18, lineup)) != jsonio.dumps(a)
    verify_replay(a, GAME)
    tampered = copy.deepcopy(a)
    entry = next(e for e in tampered["log"] if e["op"] == "apply")
    first = next(iter(entry["decisions"]))
    key = next(iter(entry["decisions"][first]["action"]))
    entry["decisions"][first]["action"][key] = 11 - entry["decisions"][first]["action"][key]
    with pytest.raises(ReplayError, match="baseline random plays"):
        verify_replay(tampered, GAME)
    tampered = copy.deepcopy(a)
    tampered["results"]["scores"][0] += 1
    with pytest.raises(ReplayError, match=r"\$\.results\.scores"):
        verify_replay(tampered, GAME)
    assert GAME.game_from_replay is not None
    with pytest.raises(ReplayError, match="format must be"):
        GAME.game_from_replay({**a, "format": "x"})


class _Legal:
    """Any legal amount, drawn by hypothesis, for every turn."""

    kind = "scripted"
    name = "legal"

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def decide_now(self, turn: Turn) -> dict[str, int]:
        (key, (lo, hi)), = turn.legal_actions.items()
        return {key: self.data.draw(st.integers(lo, hi))}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), seats=st.integers(3, 8),
       variant=st.sampled_from(["standard", "refund", "silent", "quick"]), data=st.data())
def test_random_legal_play_never_crashes_and_scores_add_up(seed: int, seats: int, variant: str,
                                                            data: st.DataObject) -> None:
    game = GAME.make(variant, {"rounds": 4}, seed, [f"drawn{i}" for i in range(seats)], None)
    assert isinstance(game, ThresholdGame)
    outcome = play_headless(game, [_Legal(data) for _ in range(seats)])
    res = outcome.results
    assert res["reason"] == "complete" and res["rounds_played"] == 4
    payoffs = [e.data["payoffs"] for e in outcome.log.events if e.kind == "round_settled"]
    assert len(payoffs) == 4
    assert res["scores"] == [sum(p[s] for p in payoffs) for s in range(seats)]
    assert all(0 <= p <= game.config.endowment + game.config.bonus for row in payoffs
               for p in row)
    verify_replay(json.loads(jsonio.dumps(GAME.replay_document(game, outcome.log))), GAME)


def test_a_refused_value_is_quoted_briefly() -> None:
    """The example plugin authors copy: a refusal quotes the value with `core.brief.brief`, so
    an in-process bot's value nested past the recursion limit or a 5,000-digit integer in a
    list is refused (IllegalAction, the runner's retry and fallback) instead of raising
    RecursionError / ValueError out of parse, and a megabyte stays out of the reason."""
    game = new()
    game.open_round()
    turn = game.pending()[0]
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    for bad in (deep, [10**5000], "x" * 1_000_000):
        with pytest.raises(IllegalAction) as refused:
            game.parse(turn, {"pledge": bad})
        assert len(str(refused.value)) < 120
