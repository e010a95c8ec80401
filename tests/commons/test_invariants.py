"""Invariants over generated inputs (hypothesis): clamping never fails and yields a legal,
stable decision; any line-up and seed keeps the books consistent and the replay verifiable."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio
from cogleague.core.verify import verify_replay
from cogleague.games.commons.actions import Validator
from cogleague.games.commons.baselines import BASELINES
from cogleague.games.commons.config import make_config
from cogleague.games.commons.descriptor import GAME
from cogleague.games.commons.modules import MODULES
from cogleague.games.commons.modules.common import COLORS

from .support import play


def verify(doc: Any) -> Any:
    """The one verifier (core/verify.py) with this game's descriptor."""
    return verify_replay(doc, GAME)

ALIASES = ["Cog-A", "Cog-B", "Cog-C", "Cog-D", "Cog-E", "Cog-F"]
anything = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                     st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                     st.sampled_from([*COLORS, " Blue ", "GREEN", *ALIASES, " Cog-B "]),
                     st.lists(st.integers(), max_size=2))
replies = st.dictionaries(st.sampled_from(["harvest", "clean", "patch", "eat", "eat_color",
                                           "plant", "plant_color", "sanction", "message",
                                           "note", "other"]), anything, max_size=11)


@settings(max_examples=300, deadline=None)
@given(module=st.sampled_from(list(MODULES)), raw=replies, sanctions=st.booleans())
def test_clamping_always_gives_a_legal_stable_decision(module: str, raw: dict[str, Any],
                                                       sanctions: bool) -> None:
    v = Validator(make_config(None, {"module": module, "sanctions_enabled": sanctions}),
                  ALIASES)
    move, _ = v.clamp(raw, "Cog-A")
    for key in ("harvest", "clean", "eat", "plant"):
        assert type(move[key]) is int and 0 <= move[key] <= 3
    assert move["harvest"] + move["clean"] <= 3 and move["eat"] + move["plant"] <= 3
    assert move["eat_color"] in ((None,) if module in ("cleanup", "harvest") else COLORS)
    assert move["patch"] is None or 0 <= move["patch"] <= 5
    assert move["sanction"] in (None, *ALIASES[1:]) and (sanctions or move["sanction"] is None)
    assert v.clamp(move, "Cog-A") == (move, False)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["cleanup", "harvest-open", "harvest-closed",
                                "harvest-partnership", "allelopathic", "mushrooms"]),
       lineup=st.lists(st.sampled_from(list(BASELINES)), min_size=2, max_size=8),
       seed=st.integers(0, 2**63 - 1), rounds=st.integers(1, 8))
def test_any_lineup_keeps_consistent_books_and_a_verifiable_replay(
        variant: str, lineup: list[str], seed: int, rounds: int) -> None:
    game, outcome = play(variant, lineup, {"rounds": rounds}, seed=seed)
    assert outcome.results["rounds"] == rounds
    for rec in game.records:
        assert all(g >= 0 for g in rec["gains"]) and all(x >= 0 for x in rec["extracted"])
    assert game.welfare() == sum(game.scores) + MODULES[game.config.module].residual(game.state)
    verify(json.loads(jsonio.dumps(game.replay_document(outcome.log), sort_keys=True)))
