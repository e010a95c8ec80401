"""The grader (rules §8): a social-planner view of one Commons Family replay.

`grade(doc)` recomputes the planner optimum from the replay's own config (seed included:
harvest ownership, pairs and favourites depend on it) and reports welfare against it, plus
the behavioural figures the Observatory shows. It reads the full-precision round records, not
the 3-decimal results, so `welfare` equals the engine's Σ scores + residual.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from cogleague.core.errors import ConfigError, ReplayError
from cogleague.games.commons.config import CommonsConfig, make_config
from cogleague.games.commons.modules import MODULES, new_state
from cogleague.games.commons.modules.common import EFFORT_BUDGET
from cogleague.games.commons.planner import plan_optimum
from cogleague.games.commons.replay import FORMAT
from cogleague.games.commons.setup import deal

EXTRACTIVE_FIELD = {"cleanup": "harvest", "harvest": "harvest", "allelopathic": "eat",
                    "mushrooms": "eat"}
"""The decision field whose equality counts as acting in synchrony (rules §8)."""


def gini(values: Sequence[float]) -> float | None:
    """ΣᵢΣⱼ|xᵢ−xⱼ| / (2·N·Σx); None when nothing was extracted."""
    total = sum(values)
    if total == 0:
        return None
    diff = sum(abs(x - y) for x in values for y in values)
    return diff / (2 * len(values) * total)


def synchrony(rounds: Sequence[Mapping[str, Any]], field: str) -> float | None:
    """Mean over rounds and seat pairs of equal extractive demand; None with no pair."""
    same = pairs = 0
    for rec in rounds:
        demands = [d[field] for d in sorted(rec["decisions"], key=lambda d: d["slot"])]
        for a, b in combinations(demands, 2):
            pairs += 1
            same += a == b
    return same / pairs if pairs else None


def _config(doc: Mapping[str, Any]) -> CommonsConfig:
    if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
        got = doc.get("format") if isinstance(doc, Mapping) else type(doc).__name__
        raise ReplayError(f"format must be {FORMAT} (got {got!r})")
    cfg = doc.get("config")
    if not isinstance(cfg, Mapping):
        raise ReplayError("config: missing from the replay")
    try:
        return make_config(None, dict(cfg))
    except ConfigError as exc:
        raise ReplayError(f"config: {exc}") from exc


def _welfare(config: CommonsConfig, rounds: Sequence[Mapping[str, Any]]) -> float:
    if not rounds:  # nothing played: the untouched resource, all-zero scores
        setup = deal(config.seed, config.num_players, config.patch_count)
        return float(MODULES[config.module].residual(new_state(config, setup)))
    last = rounds[-1]
    return float(sum(last["scores"])) + float(last["series"]["total"])


def grade(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The grader's figures for one replay document (rules §8). Raises `ReplayError` on a
    document that is not a Commons Family replay."""
    config = _config(doc)
    try:
        rounds = list(doc["rounds"])
        results = doc["results"]
        welfare = _welfare(config, rounds)
        n = config.num_players
        extracted = [0.0] * n
        effort = 0
        for rec in rounds:
            for s, x in enumerate(rec["extracted"]):
                extracted[s] += x
            effort += rec["public_effort"]
        sync = synchrony(rounds, EXTRACTIVE_FIELD[config.module])
        collapse = results.get("collapse_round")
        dead = list(results.get("dead_patches") or [])
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise ReplayError(f"replay rounds/results are malformed: {type(exc).__name__}: "
                          f"{exc}") from exc
    opt = plan_optimum(config)
    optimum = opt["optimum_achieved"]
    return {
        "module": config.module, "variant": config.variant, "seed": config.seed,
        "welfare": welfare,
        "optimum": optimum, "optimum_welfare": optimum,
        "score": welfare / optimum if optimum else 0.0,
        "scale": opt["method"], "upper_bound": opt["upper_bound"], "exact": opt["exact"],
        "survived": collapse is None and not dead,
        "collapse_round": collapse, "dead_patches": dead,
        "synchrony_same_action_rate": sync,
        "harvest_gini": gini(extracted),
        "public_effort_share": (effort / (len(rounds) * n * EFFORT_BUDGET) if rounds
                                else None),
        "rounds_played": len(rounds),
    }


__all__ = ["gini", "grade", "synchrony"]
