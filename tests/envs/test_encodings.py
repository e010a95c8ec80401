"""Each game's encoding shows no more than the seat's own view, stays in its space, and its
masks, rewards and scores say what docs/rl.md says."""

from __future__ import annotations

import numpy as np
import pytest

from cogleague.core.episode import play_headless
from cogleague.core.game import Turn
from cogleague.envs import parallel_env, single_agent_env
from cogleague.envs.encoding import encoding_of
from cogleague.games import registry
from cogleague.seats.factory import make_seats
from envs.support import TEXTLESS, headless, through_env


class _Recorder:
    """A scripted seat that also encodes every turn both ways, while the turn is pending."""

    kind = "scripted"

    def __init__(self, inner: object, enc: object, pairs: list) -> None:
        self.inner, self.enc, self.pairs = inner, enc, pairs
        self.name = inner.name  # type: ignore[attr-defined]

    def decide_now(self, turn: Turn) -> object:
        fast = self.enc.features(self.game, turn)  # type: ignore[attr-defined]
        slow = self.enc.features_of_view(turn.view)  # type: ignore[attr-defined]
        assert len(fast) == self.enc.obs_size(self.game)  # type: ignore[attr-defined]
        self.pairs.append((turn.turn_id, fast, slow))
        return self.inner.decide_now(turn)  # type: ignore[attr-defined]


VIEW_TABLES = [*TEXTLESS.items(), ("commons", ("harvest-closed", {"rounds": 5},
                                                 ["steward"] * 6)),
               ("commons", ("allelopathic", {"rounds": 5}, ["random"] * 6)),
               ("commons", ("mushrooms", {"rounds": 5}, ["free_rider"] * 6))]


@pytest.mark.parametrize(("game_name", "table"), VIEW_TABLES,
                         ids=[f"{g}-{t[0]}" for g, t in VIEW_TABLES])
def test_fast_encoding_equals_the_encoding_of_the_protocol_view(game_name: str,
                                                                table: tuple) -> None:
    """`features` reads the live state; `features_of_view` only the view the seat is sent."""
    variant, options, names = table
    desc = registry.get(game_name)
    enc = encoding_of(desc)
    for seed in (1, 2):
        game = desc.make(variant, dict(options), seed, names, None)
        pairs: list = []
        seats = []
        for seat in make_seats(game, names):
            rec = _Recorder(seat, enc, pairs)
            rec.game = game  # type: ignore[attr-defined]
            seats.append(rec)
        play_headless(game, seats)
        assert pairs
        for turn_id, fast, slow in pairs:
            assert fast == slow, turn_id


@pytest.mark.parametrize("game_name", sorted(TEXTLESS))
def test_observations_lie_in_the_space_and_waiting_seats_say_so(game_name: str) -> None:
    variant, options, _ = TEXTLESS[game_name]
    env = parallel_env(game_name, variant=variant, **options)
    obs, infos = env.reset(seed=5)
    space = env.observation_space("seat_0")
    rng = np.random.default_rng(0)
    while env.agents:
        for agent in env.agents:
            assert space.contains(obs[agent])
            assert obs[agent][0] == float(infos[agent]["acting"])
            if infos[agent]["acting"]:
                assert "view" in infos[agent]
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"])))
                   for a in env.agents}
        obs, _, _, _, infos = env.step(actions)


@pytest.mark.parametrize("game_name", sorted(TEXTLESS))
def test_rewards_sum_to_the_tally_and_the_final_info_has_the_score(game_name: str) -> None:
    _, actions = headless(game_name, 4)
    _, totals = through_env(game_name, 4, actions)
    variant, options, names = TEXTLESS[game_name]
    desc = registry.get(game_name)
    game = desc.make(variant, dict(options), 4, names, None)
    results = play_headless(game, make_seats(game, names)).results
    tally = list(encoding_of(desc).tally(game))
    assert totals == pytest.approx(tally)
    if game_name != "ledger":  # Ledger scores the median of the payoffs, not their sum
        assert totals == pytest.approx(results["scores"], abs=1e-3)


def test_ledger_mask_is_the_meetings_legal_range_and_an_illegal_move_falls_back() -> None:
    env = parallel_env("ledger", variant="quickfire", views=True)
    _, infos = env.reset(seed=9)
    for agent in env.agents:
        legal = infos[agent]["view"]["meeting"]["legal"]
        assert np.flatnonzero(infos[agent]["action_mask"]).tolist() == list(
            range(legal["min"], legal["max"] + 1))
    env.step({a: 100 for a in env.agents})  # 100 is legal only for a TRUST trustee
    while env.agents:
        env.step({a: 0 for a in env.agents})
    doc = env.replay_document()
    first = [e for e in doc["events"] if e["kind"] == "meeting" and e["round"] == 0]
    assert first
    for m in first:
        for side in ("A", "B"):
            assert m[f"fallback{side}"] == (m["subgame"] != "TRUST" or side == "A")


def test_commons_mask_forbids_sanctions_only_when_they_are_off() -> None:
    on = parallel_env("commons", variant="cleanup", rounds=2)
    off = parallel_env("commons", variant="cleanup", rounds=2, sanctions_enabled=False)
    _, info_on = on.reset(seed=1)
    _, info_off = off.reset(seed=1)
    n = len(on.possible_agents)
    assert info_on["seat_0"]["action_mask"].all()
    by_target = info_off["seat_0"]["action_mask"].reshape(-1, n)
    assert by_target[:, 0].all() and not by_target[:, 1:].any()


def test_commons_decoded_actions_keep_the_effort_budget() -> None:
    env = parallel_env("commons", variant="allelopathic", rounds=2)
    env.reset(seed=2)
    enc = encoding_of(registry.get("commons"))
    turn = env.current_turn("seat_0")
    assert turn is not None
    for index in range(env.action_space("seat_0").n):
        action = enc.decode(env.game, turn, index)
        assert action["eat"] + action["plant"] <= 3
        assert enc.encode(env.game, turn, action) == index


def test_single_agent_pool_draws_opponents_per_seeded_reset() -> None:
    pool = ["tit_for_tat", "always_defect", "pavlov", "grim_trigger", "random"]
    env = single_agent_env("dilemma", pool=pool, rounds_total=3, seats=4)
    env.reset(seed=1)
    first = list(env.game.policy_names)
    env.reset(seed=1)
    assert env.game.policy_names == first
    assert first[0] == "rl:seat_0" and all(p in pool for p in first[1:])
    seen = set()
    for s in range(20):
        env.reset(seed=s)
        seen.update(env.game.policy_names[1:])
    assert len(seen) > 2


def test_a_variant_that_fixes_its_seed_plays_it_when_reset_draws_one() -> None:
    env = parallel_env("ledger", variant="certification", views=False)
    env.reset()
    assert env.game.seed == registry.get("ledger").new_game("certification", {}, None).seed
