"""The Ledger kernel keeps one round's widened schedule between the baselines and the step;
episodes stepped in turn through one kernel (each switch a new schedule, the same round) play
exactly as each played alone."""

from __future__ import annotations

import numpy as np

from cogleague.core.batch import batch_of, play_lineup
from cogleague.games import registry
from cogleague.games.ledger.kernel import LedgerKernel

LINEUP = ["mirror", "shark", "grim", "saint", "opportunist", "mirror", "grim", "opportunist"]


def test_interleaved_episodes_play_as_alone() -> None:
    kernel = batch_of(registry.get("ledger")).kernel("standard", {}, 8)
    assert isinstance(kernel, LedgerKernel)
    seeds = [list(range(0, 40)), list(range(500, 540))]
    alone = [kernel.scores(play_lineup(kernel, s, LINEUP)[0]) for s in seeds]
    policies = [kernel.policy(name, seat) for seat, name in enumerate(LINEUP)]
    states = [kernel.reset(s) for s in seeds]
    for _ in range(kernel.steps_per_episode):
        moves = [np.stack([p.act(st) for p in policies], axis=1) for st in states]
        states = [kernel.step(st, m)[0] for st, m in zip(states, moves, strict=True)]
    for state, want in zip(states, alone, strict=True):
        assert kernel.scores(state).tolist() == want.tolist()
