"""Held-out opponents: a pool of policies seated only in evaluation episodes and named only
after the season, so a prompt tuned to the published opponents shows as a gap.

An evaluation episode seats one public policy (the *subject*) with held-out policies in every
other seat; the subject's seat rotates. Evaluation episodes are stored with source
``evaluation`` and never enter the public rankings. Per game and variant the standings then
show each public policy's mean score against the public pool (its public episodes) and
against the held-out pool (its evaluation episodes), the difference (held-out − public) and a
95% percentile bootstrap interval of the difference (both samples resampled independently).
A policy is held out when it plays evaluation episodes and no public episode; until the
season ends (every scheduled episode stored ``ok``: ``failed`` and ``infra_error`` ones are
played again) its name reads ``held-out #k``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cogleague.core.errors import ConfigError
from cogleague.league.episodes import EpisodeRecord

SOURCE = "evaluation"
BLOCK_OFFSET = 1 << 40
"""Evaluation blocks derive seeds from block numbers far above any public block."""


def evaluation_lineups(public: Sequence[str], held: Sequence[str], seats: int, count: int,
                       duplicates: bool, where: str) -> list[tuple[int, tuple[str, ...]]]:
    """`count` (block, line-up) pairs: subject i mod |public| in seat (i div |public|) mod
    seats, held-out policies cycled through the other seats."""
    if not public:
        raise ConfigError(f"{where}.policies", f"{where}.policies: every policy is held out; "
                                                "an evaluation needs at least one public policy")
    if len(held) < seats - 1 and not duplicates:
        raise ConfigError("seating.duplicates", f"seating.duplicates is false but {where} has "
                          f"{len(held)} held-out policies for {seats - 1} evaluation seats")
    out = []
    for i in range(count):
        subject = public[i % len(public)]
        others = [held[(i + j) % len(held)] for j in range(seats - 1)]
        seat = (i // len(public)) % seats
        lineup = (*others[:seat], subject, *others[seat:])
        out.append((BLOCK_OFFSET + i, lineup))
    return out


def held_out_names(episodes: Sequence[EpisodeRecord]) -> list[str]:
    """Policies seen in evaluation episodes and in no public one, in first-seen order."""
    public = {p for ep in episodes if ep.source != SOURCE for p in ep.policies}
    seen: dict[str, None] = {}
    for ep in episodes:
        if ep.source == SOURCE:
            for p in ep.policies:
                if p not in public:
                    seen.setdefault(p, None)
    return list(seen)


def masks(names: Sequence[str], reveal: bool) -> dict[str, str]:
    """How held-out names read: themselves once revealed, else ``held-out #k`` (sorted)."""
    return {n: n if reveal else f"held-out #{k}" for k, n in enumerate(sorted(names), 1)}


def _scores(episodes: Sequence[EpisodeRecord], skip: set[str]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = defaultdict(list)
    for ep in episodes:
        seats: dict[str, list[float]] = defaultdict(list)
        for p, s in zip(ep.policies, ep.scores, strict=True):
            if p not in skip:
                seats[p].append(s)
        for p, values in seats.items():
            out[p].append(sum(values) / len(values))
    return out


def difference_interval(a: Sequence[float], b: Sequence[float], *, resamples: int,
                        seed: int) -> tuple[float | None, float | None]:
    """A 95% percentile bootstrap interval of mean(b) − mean(a); None below two of each."""
    if len(a) < 2 or len(b) < 2:
        return None, None
    rng = np.random.default_rng(seed)
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    da = xa[rng.integers(0, len(xa), size=(resamples, len(xa)))].mean(axis=1)
    db = xb[rng.integers(0, len(xb), size=(resamples, len(xb)))].mean(axis=1)
    low, high = np.percentile(db - da, [2.5, 97.5])
    return float(low), float(high)


def section(public: Sequence[EpisodeRecord], evaluation: Sequence[EpisodeRecord],
            held: Sequence[str], *, resamples: int, seed: int) -> dict[str, Any] | None:
    """The held-out comparison of one game and variant, or None without evaluation episodes."""
    if not evaluation:
        return None
    skip = set(held)
    vs_public = _scores(public, skip)
    vs_held = _scores(evaluation, skip)
    rows = []
    for policy in sorted(set(vs_public) | set(vs_held)):
        a, b = vs_public.get(policy, []), vs_held.get(policy, [])
        mean_a = sum(a) / len(a) if a else None
        mean_b = sum(b) / len(b) if b else None
        diff = mean_b - mean_a if mean_a is not None and mean_b is not None else None
        low, high = difference_interval(a, b, resamples=resamples, seed=seed)
        rows.append({"policy": policy, "vs_public": mean_a, "public_games": len(a),
                     "vs_held_out": mean_b, "held_out_games": len(b), "difference": diff,
                     "low": low, "high": high,
                     "shows_gap": low is not None and high is not None
                     and (high < 0 or low > 0)})
    rows.sort(key=lambda r: (r["difference"] is None, r["difference"] or 0.0, r["policy"]))
    return {"episodes": len(evaluation), "rows": rows}


def mask_failures(failures: list[dict[str, Any]], names: Mapping[str, str]) -> None:
    for f in failures:
        f["lineup"] = [names.get(p.split("#")[0], p) for p in f["lineup"]]
