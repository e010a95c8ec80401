"""Every fallback action is legal: `parse` accepts it unchanged (no refusal, no clamp) and
`apply` takes it, and an episode where every seat always fails plays to its end on
fallbacks alone."""

from __future__ import annotations

import copy
from typing import Any

from cogleague.core import jsonio
from cogleague.core.errors import IllegalAction
from cogleague.core.game import Game, Turn
from cogleague.testing.episodes import FAILING, RANDOM, Episode, play, run, standard_episodes
from cogleague.testing.subject import ConformanceError, Subject


class FallbackReplySeat:
    """Replies with the game's own fallback for the turn, after checking `parse` takes it."""

    kind = "bot"
    name = "conformance:fallback-reply"

    def __init__(self, game: Game, problems: list[str]) -> None:
        self.game = game
        self.problems = problems
        self.turns = 0

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        action = self.game.fallback(turn)
        self.turns += 1
        try:
            jsonio.dumps(action)
            parsed = self.game.parse(turn, copy.deepcopy(action))
        except (IllegalAction, TypeError, ValueError) as exc:
            self.problems.append(f"turn {turn.turn_id}: parse refuses the fallback "
                                 f"{action!r}: {exc}")
            return action
        if parsed.clamped:
            self.problems.append(f"turn {turn.turn_id}: the fallback {action!r} needs clamping")
        return action


def check_fallbacks(subject: Subject) -> str:
    desc = subject.desc
    turns = 0
    for ep in standard_episodes(desc, min(2, subject.seeds)):
        n = len(ep.lineup)
        problems: list[str] = []
        game = subject.fresh(Episode(ep.variant, ep.seed, (RANDOM,) * n))
        seats = [FallbackReplySeat(game, problems) for _ in range(n)]
        outcome = run(game, seats)
        if problems:
            raise ConformanceError(f"{ep.label()}: {problems[0]}")
        fell_back = [d for ds in outcome.log.decisions for d in ds.values() if d.is_fallback]
        if fell_back:
            raise ConformanceError(f"{ep.label()}: a seat replying with the game's fallback "
                                   f"fell back ({fell_back[0].cause}): apply refused it")
        turns += sum(s.turns for s in seats)
        failing = Episode(ep.variant, ep.seed, (FAILING,) * n)
        game, outcome = play(desc, failing)
        decisions = [d for ds in outcome.log.decisions for d in ds.values()]
        if not game.done or not decisions or not all(d.is_fallback for d in decisions):
            raise ConformanceError(f"{failing.label()}: an all-failing table did not play to "
                                   "its end on fallbacks")
    return f"{turns} fallback replies parse unchanged; all-failing tables finish"
