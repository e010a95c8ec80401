"""Brute force on tiny configs agrees with the planner (rules §15).

The brute force walks every joint decision of every round through the engine's own pieces,
merging identical states (same state, same future) — exhaustive, yet small enough to run.
Its best plan is then replayed through the full engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.games.commons.config import make_config
from cogleague.games.commons.planner import compute_optimum
from cogleague.games.commons.planner.enumerate import all_joint
from cogleague.games.commons.planner.stepper import Stepper
from cogleague.games.commons.simulate import simulate


def brute_force(config: Any) -> tuple[float, list[list[dict[str, Any]]]]:
    st = Stepper(config)
    joints = all_joint(config.module, config.patch_count, config.num_players)
    layer: dict[str, tuple[float, Any, list[Any]]] = {"": (0.0, st.initial(), [])}
    for r in range(config.rounds):
        nxt: dict[str, tuple[float, Any, list[Any]]] = {}
        for banked, state, path in layer.values():
            for joint in joints:
                new, gain = st.step(state, joint, r)
                key = repr(new.to_json())
                total = banked + gain
                if key not in nxt or total > nxt[key][0]:
                    nxt[key] = (total, new, [*path, joint])
        layer = nxt
    best = max(layer.values(), key=lambda x: x[0] + st.residual(x[1]))
    return best[0] + st.residual(best[1]), best[2]


TINY = [
    ("cleanup", {"num_players": 2, "rounds": 2}),
    ("cleanup", {"num_players": 2, "rounds": 3}),
    ("harvest", {"num_players": 2, "rounds": 2, "patch_count": 1, "property_rights": "open"}),
    ("harvest", {"num_players": 2, "rounds": 2, "patch_count": 2,
                 "property_rights": "closed"}),
    ("harvest", {"num_players": 2, "rounds": 2, "patch_count": 2,
                 "property_rights": "partnership"}),
    ("harvest", {"num_players": 2, "rounds": 2, "patch_count": 3,
                 "property_rights": "partnership"}),
    ("mushrooms", {"num_players": 2, "rounds": 2}),
    ("mushrooms", {"num_players": 2, "rounds": 3}),
    ("allelopathic", {"num_players": 2, "rounds": 1}),
]


@pytest.mark.parametrize(("module", "overrides"), TINY)
def test_planner_agrees_with_brute_force(module: str, overrides: dict[str, Any],
                                         tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGLEAGUE_CACHE_DIR", str(tmp_path))
    config = make_config(None, {"module": module, **overrides})
    best, plan = brute_force(config)
    assert simulate(config, plan).welfare == pytest.approx(best, abs=1e-9)
    opt = compute_optimum(config)
    assert opt["optimum_achieved"] == pytest.approx(best, abs=1e-9)
    assert opt["exact"]
    assert opt["upper_bound"] == pytest.approx(best, abs=1e-9)
