"""A baseline's copies: several distinct house agents of one scripted policy.

A standing season seats distinct agents at a table, and its only agents besides the entrants
are its baselines; a game of more seats than baselines + 1 (Ledger: eight seats, five
baselines) would leave a lone entrant waiting for others. ``copies = N`` on a baseline
``[[policies]]`` table makes N policies of it, named ``NAME``, ``NAME-2`` … ``NAME-N``: each
is its own agent, rated on its own (its rating is what it did at its own seats, never pooled
with its twins'), and the first keeps the plain name, so a season that had the baseline keeps
its agent and rating when copies are added. A restart with fewer copies retires the others
(not deleted: their results and ratings stay) and more bring them back, the same agents
(`LeagueRuntime._retire_house`). The offline league plays them as the same distinct policies
(one config model).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cogleague.core.config import check_int
from cogleague.core.errors import ConfigError
from cogleague.league.policies import NAME_MAX, Policy, parse_policy

COPIES_MAX = 16
"""More than any built-in game seats (Commons: twelve); a copy beyond a table's seats never
sits beside all its twins, and each is an agent the matchmaker weighs at every tick."""


def parse_copies(doc: Any, where: str, base_dir: Path) -> list[Policy]:
    """One ``[[policies]]`` table → its policy, or a baseline's `copies` of it."""
    if not isinstance(doc, Mapping) or "copies" not in doc:
        return [parse_policy(doc, where, base_dir)]
    copies = check_int(f"{where}.copies", doc["copies"], 1, COPIES_MAX)
    policy = parse_policy({k: v for k, v in doc.items() if k != "copies"}, where, base_dir)
    if policy.kind != "baseline":
        raise ConfigError(f"{where}.copies", f"{where}.copies applies to baseline policies "
                          f"only (the season's house agents); {policy.name} is a "
                          f"{policy.kind} policy")
    last = copy_name(policy.name, copies)
    if len(last) > NAME_MAX:
        raise ConfigError(f"{where}.copies", f"{where}.copies: the copy name {last!r} is "
                          f"longer than {NAME_MAX} characters; shorten {where}.name")
    return [dataclasses.replace(policy, name=copy_name(policy.name, k))
            for k in range(1, copies + 1)]


def copy_name(name: str, k: int) -> str:
    """The k-th copy's name (1: the plain name)."""
    return name if k == 1 else f"{name}-{k}"
