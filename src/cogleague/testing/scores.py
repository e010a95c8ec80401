"""Scores agree with the payoffs the game's own events report: for each shared episode, every
seat's result score must equal `Conformance.score_of` (default: the sum) of the payoffs that
`Conformance.step_payoffs` reads from the events, in order. A score that forgets a rule the
events show (a bonus, a penalty, a round) fails here even when it is deterministic and
well-formed."""

from __future__ import annotations

import math
from typing import Any

from cogleague.core.game import Event, Game
from cogleague.testing.subject import ConformanceError, Subject
from cogleague.testing.walk import walk

TOLERANCE = 1e-9


def check_scores(subject: Subject) -> str:
    hooks = subject.desc.conformance
    if hooks is None or hooks.step_payoffs is None:
        return "skipped: the descriptor declares no Conformance.step_payoffs"
    step_payoffs, score_of = hooks.step_payoffs, hooks.score_of or math.fsum
    reported = 0
    for played in subject.played:
        payoffs: list[list[float]] = [[] for _ in range(played.game.num_seats)]

        def after(i: int, g: Game, op: str, events: list[Event],
                  payoffs: list[list[float]] = payoffs) -> None:
            for event in events:
                found = step_payoffs(event)
                for seat, value in (found or {}).items():
                    if not 0 <= seat < len(payoffs):
                        raise ConformanceError(f"log[{i}] {event.kind}: step_payoffs names seat "
                                               f"{seat} of {len(payoffs)}")
                    payoffs[seat].append(float(value))

        walk(subject.fresh(played.episode), played.entries, after=after)
        scores: list[Any] = list(played.outcome.results["scores"])
        for seat, (score, steps) in enumerate(zip(scores, payoffs, strict=True)):
            expected = float(score_of(steps))
            if not math.isclose(float(score), expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
                raise ConformanceError(
                    f"{played.episode.label()}: seat {seat} scores {score}, but the "
                    f"{len(steps)} payoffs its events report make {expected:g} "
                    f"(step_payoffs, score_of): the score ignores what the events show")
        reported += sum(map(len, payoffs))
    if reported == 0:
        raise ConformanceError("step_payoffs found no payoff in any event of the shared "
                               "episodes")
    return (f"scores of {len(subject.played)} episodes equal the {reported} payoffs their "
            "events report")
