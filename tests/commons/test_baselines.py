"""Scripted baselines (rules §10): legal on degenerate observations, and the §14 outcomes."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cogleague.core.episode import play_headless
from cogleague.core.game import Turn
from cogleague.games.commons import GAME
from cogleague.games.commons.actions import Validator
from cogleague.games.commons.baselines import BASELINES, make_baseline
from cogleague.games.commons.baselines.common import quota
from cogleague.games.commons.baselines.steward import Steward, steward_move
from cogleague.games.commons.baselines.view import views_of_observation
from cogleague.games.commons.config import make_config
from cogleague.games.commons.modules import allelopathic, cleanup, harvest, mushrooms
from cogleague.games.commons.modules.common import COLORS
from cogleague.seats.factory import make_seats

from .support import play

MODULES = ("cleanup", "harvest", "allelopathic", "mushrooms")
FUZZ_PER_MODULE = 400


def _ms(rng: random.Random, module: str, aliases: list[str], alias: str) -> tuple[dict, int]:
    """A degenerate but well-formed `module_state` (and the patch count it implies)."""
    if module == "cleanup":
        p = rng.choice([0.0, 0.15, 0.1500001, 0.5, 1.0, rng.random()])
        return {"apples": rng.choice([0.0, 1e-9, 9.99, 29.99, 30.0, 100.0, rng.random() * 100]),
                "capacity": cleanup.CAPACITY, "pollution": p,
                "effective_regrowth": cleanup.effective_regrowth(p),
                "collapse_threshold": 10.0, "silt_rate": 0.12, "clean_power": 0.05,
                "dead": rng.random() < 0.3, "cleaned_last_round": rng.randint(0, 36)}, 6
    if module == "harvest":
        count = rng.randint(1, 12)
        rights = rng.choice(harvest.PROPERTY_RIGHTS)
        patches = []
        for pid in range(count):
            dead = rng.random() < 0.4
            stock = 0.0 if dead else rng.choice([0.5, 1.0, 1.99, 2.0, 12.0, 20.0,
                                                rng.random() * 20])
            holders = [] if rights == "open" else sorted(rng.sample(aliases, rng.randint(1, 2)))
            patches.append({"id": pid, "stock": stock, "dead": dead, "holders": holders})
        mine = [] if rights == "open" else sorted(rng.sample(range(count), rng.randint(0, count)))
        return {"property_rights": rights, "patch_capacity": 20.0, "patch_regrowth": 0.4,
                "patches": patches, "dead_patches": [p["id"] for p in patches if p["dead"]],
                "your_patches": mine}, count
    if module == "allelopathic":
        a = rng.randint(0, 60)
        b = rng.randint(0, 60 - a)
        split = [a, b, 60 - a - b]
        rng.shuffle(split)
        if rng.random() < 0.2:
            split = rng.choice([[0, 60, 0], [60, 0, 0], [0, 0, 60], [20, 20, 20]])
        return {"planted": dict(zip(COLORS, split, strict=True)),
                "ripe": {c: rng.choice([0.0, rng.random() * n, float(n)])
                         for c, n in zip(COLORS, split, strict=True)},
                "field_size": 60, "ripen_base": 0.5, "favorite_bonus": 2.0,
                "barren": rng.random() < 0.2, "your_favorite": rng.choice(COLORS)}, 6
    counts = {c: rng.choice([0.0, 0.5, 1.0, 15.0, rng.random() * 15]) for c in COLORS}
    may_eat = rng.random() < 0.5
    return {"counts": counts, "eaten_total": {c: rng.random() * 50 for c in COLORS},
            "frozen_until": rng.randint(0, 30), "you_may_eat": may_eat,
            "capacity": mushrooms.CAPACITY, "color_cap": 15.0, "spawn_per_round": 3,
            "payoff": mushrooms.PAYOFF_TEXT}, 6


def degenerate_observation(rng: random.Random, module: str) -> tuple[dict[str, Any], dict]:
    """A fuzzed observation and the config overrides it implies."""
    n = rng.randint(2, 12)
    aliases = sorted("Cog-" + chr(65 + i) for i in range(n))
    alias = rng.choice(aliases)
    ms, patch_count = _ms(rng, module, aliases, alias)
    first = rng.random() < 0.3
    ledger_on = rng.random() < 0.7
    sanctions, chat = rng.random() < 0.6, rng.random() < 0.6
    chat_max = rng.choice([1, 2, 10, 140, 1000])
    obs: dict[str, Any] = {
        "type": "observation", "protocol": "commons-family.player.v1", "alias": alias,
        "aliases": aliases, "round": 0 if first else rng.choice([1, 2, 5, 19, 99]),
        "rounds": 100, "round_seconds": 20, "module": module, "num_players": n,
        "effort_budget": 3, "ledger_public": ledger_on, "sanctions_enabled": sanctions,
        "sanction_cost": 1.0, "sanction_burn": 3.0, "chat_enabled": chat,
        "chat_max_chars": chat_max, "norm_text": rng.choice(["", "x" * 400]),
        "score": rng.choice([0.0, -50.0, 123.4]),
        "your_last_gain": None if first else rng.choice([0.0, 3.0, 1.5]),
        "sanctions_received_last_round": None if first else rng.randint(0, 11),
        "last_round_total_extracted": None if first else rng.choice([0.0, 36.0, 7.5]),
        "messages_last_round": None if first else [], "your_note": "",
        "module_state": ms,
    }
    if ledger_on:
        obs["ledger"] = {a: {"total_extracted": rng.choice([0.0, 1e6, rng.random() * 60]),
                             "public_effort": rng.randint(0, 300),
                             "recent": [], "sanctions_given": rng.randint(0, 20),
                             "sanctions_received": rng.randint(0, 20)} for a in aliases}
    overrides = {"module": module, "num_players": n, "patch_count": patch_count,
                 "sanctions_enabled": sanctions, "chat_enabled": chat,
                 "chat_max_chars": chat_max, "ledger_public": ledger_on}
    return obs, overrides


class _Turn(Turn):
    def __init__(self, obs: dict[str, Any]) -> None:
        super().__init__("t", 0, None, lambda: obs)


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize("name", list(BASELINES))
def test_baselines_are_legal_and_unchanged_on_degenerate_observations(name: str,
                                                                      module: str) -> None:
    rng = random.Random(f"fuzz:{name}:{module}")
    for i in range(FUZZ_PER_MODULE):
        obs, overrides = degenerate_observation(rng, module)
        slot = rng.randint(0, obs["num_players"] - 1)
        policy = make_baseline(name, slot, i)
        raw = policy.act(_Turn(obs))
        validator = Validator(make_config(None, overrides), obs["aliases"])
        move, changed = validator.clamp(raw, obs["alias"])
        assert not changed, (name, module, i, raw, move)
        assert {k: move[k] for k in raw} == raw, (name, module, i, raw, move)
        taking = raw.get("harvest", raw.get("eat", 0))
        upkeep = raw.get("clean", raw.get("plant", 0))
        assert 0 <= taking <= 3 and 0 <= upkeep <= 3 - taking
        if not obs["sanctions_enabled"]:
            assert raw.get("sanction") is None
        if not obs["chat_enabled"]:
            assert "message" not in raw


class _ViewCheck:
    """A scripted seat that checks, before its baseline decides, that the engine's compact
    views equal the ones read off the seat's full observation."""

    kind = "scripted"

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.checked = 0

    def decide_now(self, turn: Turn) -> Any:
        assert turn.context.baseline_views(turn.seat) == views_of_observation(turn.view)
        self.checked += 1
        return self.inner.decide_now(turn)

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return self.decide_now(turn)


VIEW_VARIANTS = ("cleanup", "harvest-open", "harvest-closed", "harvest-partnership",
                 "allelopathic", "mushrooms")


@pytest.mark.parametrize("variant", VIEW_VARIANTS)
def test_the_engines_baseline_views_are_what_each_observation_shows(variant: str) -> None:
    names = list(BASELINES)
    for seed, overrides in ((1, {}), (2, {"chat_enabled": True, "sanctions_enabled": True}),
                            (3, {"ledger_public": False}), (4, {"num_players": 3})):
        n = overrides.get("num_players", 6)
        lineup = [names[(seed + i) % len(names)] for i in range(n)]
        game = GAME.new_game(variant, overrides, seed, lineup)
        seats = [_ViewCheck(s) for s in make_seats(game, lineup)]
        play_headless(game, seats)
        assert sum(s.checked for s in seats) == n * game.rounds_played > 0


def test_unknown_baseline_name_plays_steward_but_the_game_info_lists_eight() -> None:
    assert isinstance(make_baseline("no_such_policy", 0, 1), Steward)
    assert list(GAME.baselines) == ["steward", "free_rider", "cleaner", "punisher",
                                    "reciprocator", "deterrable", "random", "fair_share"]


def test_scripted_seats_draw_from_their_own_stream() -> None:
    a = make_baseline("random", 3, 42)
    assert a.rng.random() == random.Random(42 * 1000 + 3).random()


def test_fair_share_quotas_sum_to_the_sustainable_total_and_rotate() -> None:
    game, _ = play("mushrooms", ["fair_share"] * 6, {"rounds": 4})
    eaters = [[d["eat"] for d in rec["decisions"]] for rec in game.records]
    assert eaters[0].count(1) == 3  # three cogs eat per round, not none
    assert eaters[0] != eaters[1]


def test_punisher_sanctions_the_biggest_over_taker() -> None:
    game, _ = play("cleanup", ["punisher", "free_rider", "steward", "steward", "steward",
                               "steward"], {"rounds": 3})
    targets = [rec["decisions"][0]["sanction"] for rec in game.records]
    assert targets == [None, game.aliases[1], game.aliases[1]]


def test_deterrable_turns_steward_for_five_rounds_after_a_sanction() -> None:
    game, _ = play("cleanup", ["steward"] * 6, {"rounds": 1})
    obs = dict(game.observe(0))
    policy = make_baseline("deterrable", 0, 1)
    free = {"harvest": 3, "clean": 0}
    steward = steward_move(*views_of_observation(obs), 0, quota(obs))
    plays = []
    for received in [0, 1, 0, 0, 0, 0, 0, 0, 2, 0]:
        obs["sanctions_received_last_round"] = received
        plays.append(policy.decide(obs))
    assert plays == [free] + [steward] * 5 + [free, free] + [steward] * 2
    assert steward != free


def test_punishers_keep_a_free_rider_sanctioned_and_it_stays_deterred() -> None:
    game, _ = play("cleanup", ["deterrable", "punisher", "punisher", "steward", "steward",
                               "steward"], {"rounds": 8})
    takes = [rec["decisions"][0]["harvest"] for rec in game.records]
    assert takes[:2] == [3, 3] and all(t <= 1 for t in takes[2:])
    assert game.sanctions_received[0] > 0 and game.sanctions_given[3:] == [0, 0, 0]


# -- rules §14 reference outcomes --------------------------------------------------------------
ALL_VARIANTS = ("cleanup", "harvest-open", "harvest-closed", "harvest-partnership",
                "allelopathic", "mushrooms")


def effort_share(results: dict[str, Any]) -> float:
    return sum(results["public_effort"]) / (results["rounds"] * 6 * 3)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_six_stewards_keep_every_resource_alive(variant: str) -> None:
    game, outcome = play(variant, ["steward"] * 6)
    r = outcome.results
    assert r["rounds"] == 20 and r["reason"] == "complete"
    assert r["collapse_round"] is None and r["dead_patches"] == []
    assert not any(rec["collapsed"] for rec in game.records)
    assert r["residual_value"] > 0


def test_six_free_riders_collapse_the_orchard_by_round_three() -> None:
    _, outcome = play("cleanup", ["free_rider"] * 6)
    assert outcome.results["collapse_round"] == 3


def test_six_free_riders_kill_every_open_patch() -> None:
    _, outcome = play("harvest-open", ["free_rider"] * 6)
    assert outcome.results["dead_patches"] == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("variant", ["cleanup", "harvest-open", "harvest-closed",
                                     "harvest-partnership", "mushrooms"])
def test_six_cleaners_spend_exactly_a_third_on_maintenance(variant: str) -> None:
    _, outcome = play(variant, ["cleaner"] * 6)
    assert sum(outcome.results["public_effort"]) * 3 == 20 * 6 * 3
    assert effort_share(outcome.results) == pytest.approx(1 / 3, abs=0)


def test_six_cleaners_spend_less_in_allelopathic_once_the_field_is_full() -> None:
    game, outcome = play("allelopathic", ["cleaner"] * 6)
    assert effort_share(outcome.results) < 1 / 3
    assert max(game.records[-1]["state_before"]["planted"]) == allelopathic.FIELD_SIZE
    assert game.records[-1]["public_effort"] == 0  # planting stopped once the field filled
