"""The step-batch path (`core/game.py`) against the general per-turn path: one runner, one rules
engine, the same bytes.

`play_headless` with every seat a built-in baseline and nobody watching plays each step as
columns (each seat answers its turns in one `act_step` call, the log keeps `StepDecisions` and a
renderer of the events). The same line-up played through the general path — with an observer
(how the server plays), or with seats that only answer turn by turn — must give byte-identical
results, logs and replay documents, and the batch replay must verify.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio
from cogleague.core.episode import EpisodeOutcome, play_headless
from cogleague.core.game import Action, Decision, Game, Turn
from cogleague.core.verify import verify_replay
from cogleague.games import registry
from cogleague.games.dilemma import DilemmaGame
from cogleague.games.dilemma.baselines import NAMES, make_baseline
from cogleague.games.dilemma.state import TurnContext
from cogleague.seats.factory import make_seats
from cogleague.seats.scripted import ScriptedSeat
from helpers.step_batch import is_compact, play_path
from helpers.step_batch import per_turn as turn_by_turn

from .support import game

DESC = registry.get("dilemma")



def _docs(g: Game, outcome: EpisodeOutcome) -> dict[str, bytes]:
    return {"results": jsonio.dumps(outcome.results).encode(),
            "log": jsonio.dumps(outcome.log.to_json()).encode(),
            "replay": jsonio.dumps(g.replay_document(outcome.log),
                                   sort_keys=DESC.replay_sort_keys).encode()}


def _played(names: list[str], seed: int, path: str, **options: Any) -> tuple[DilemmaGame,
                                                                              EpisodeOutcome]:
    g = game(names, seed, **options)
    seats = make_seats(g, names)
    return g, play_path(g, seats, path)



lineups = st.lists(st.sampled_from(NAMES), min_size=3, max_size=6)


@settings(max_examples=30, deadline=None)
@given(names=lineups, seed=st.integers(0, 2**31 - 1), rounds=st.integers(1, 12),
       promises=st.booleans())
def test_batch_and_general_paths_give_the_same_bytes(names: list[str], seed: int, rounds: int,
                                                     promises: bool) -> None:
    options = {"rounds_total": rounds, "promises": promises}
    g, batch = _played(names, seed, "batch", **options)
    assert is_compact(batch)
    expected = _docs(g, batch)
    for path in ("observed", "per_turn"):
        g2, general = _played(names, seed, path, **options)
        assert not is_compact(general)
        assert _docs(g2, general) == expected, path
        # the materialized log reads the same as the one built per turn
        assert batch.log.decisions == general.log.decisions
        assert batch.log.events == general.log.events
    replay = json.loads(expected["replay"])
    assert verify_replay(replay, DESC) == replay["results"]


def test_the_benchmark_line_up_takes_the_batch_path_and_reads_lazily() -> None:
    names = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov"]
    g, outcome = _played(names, 1, "batch", rounds_total=30, promises=False)
    assert is_compact(outcome)
    entry = next(e for e in outcome.log.entries if e.op == "apply")
    assert entry._events is None  # nothing rendered until read
    decisions = entry.decisions
    assert decisions is not None and all(isinstance(d, Decision) for d in decisions.values())
    assert entry.events and entry._events is not None
    _, general = _played(names, 1, "observed", rounds_total=30, promises=False)
    assert _docs(g, outcome)["log"] == jsonio.dumps(general.log.to_json()).encode()


def _step_contexts(turns: list[Turn], seat: int) -> list[TurnContext]:
    return [t.context for t in turns if t.seat == seat]


def test_every_baselines_step_answers_equal_its_per_turn_answers() -> None:
    """Two instances of each baseline (same seat, same seed) follow one match: at every step one
    answers all of its turns with `act_step`, the other turn by turn with `act`."""
    for promises, names in ((False, NAMES[:8]), (True, NAMES[-8:])):  # at most 8 seats
        g = game(names, 5, rounds_total=25, promises=promises)
        batch = [make_baseline(n, s, g.config) for s, n in enumerate(names)]
        single = [make_baseline(n, s, g.config) for s, n in enumerate(names)]
        g.start()
        while not g.done:
            if g.between_rounds:
                g.open_round()
                continue
            turns = g.pending()
            decisions: dict[str, Decision] = {}
            for seat in range(len(names)):
                mine = [t for t in turns if t.seat == seat]
                answers = batch[seat].act_step(_step_contexts(turns, seat))  # type: ignore[attr-defined]
                per_turn = [single[seat].act(t) for t in mine]
                assert answers == per_turn, (names[seat], g.round)
                decisions.update({t.turn_id: Decision(a, "scripted")
                                  for t, a in zip(mine, per_turn, strict=True)})
            g.apply(decisions)


class _RaisesInRound:
    """A seat's own program that fails in one round (in both of its entry points)."""

    def __init__(self, bad_round: int) -> None:
        self.bad_round = bad_round

    def act(self, turn: Turn) -> Action:
        if turn.round == self.bad_round:
            raise RuntimeError("boom")
        return {"action": "defect"}

    def act_step(self, contexts: list[TurnContext]) -> list[Action]:
        return [self.act_context(c) for c in contexts]

    def act_context(self, ctx: TurnContext) -> Action:
        if ctx.round == self.bad_round:
            raise RuntimeError("boom")
        return {"action": "defect"}


class _SpeaksAtASilentTable:
    """Replies with a message at a table without promises: the game refuses it (illegal)."""

    def act(self, turn: Turn) -> Action:
        return self.act_step([turn.context])[0]

    def act_step(self, contexts: list[TurnContext]) -> list[Action]:
        return [{"action": "cooperate", "message": "hi"} if c.round == 2 and c.opponent == 0 else
                {"action": "cooperate"} for c in contexts]


def test_fallbacks_on_the_batch_path_match_the_general_path() -> None:
    names = ["tit_for_tat", "raises", "speaks", "pavlov"]

    def seats(g: DilemmaGame, per_turn: bool) -> list[Any]:
        out: list[Any] = [ScriptedSeat(make_baseline("tit_for_tat", 0, g.config), "tit_for_tat"),
                          ScriptedSeat(_RaisesInRound(3), "raises"),  # type: ignore[arg-type]
                          ScriptedSeat(_SpeaksAtASilentTable(), "speaks"),  # type: ignore[arg-type]
                          ScriptedSeat(make_baseline("pavlov", 3, g.config), "pavlov")]
        return turn_by_turn(out) if per_turn else out

    g1 = DESC.new_game(None, {"rounds_total": 5, "promises": False}, 3, names)
    batch = play_headless(g1, seats(g1, False))
    g2 = DESC.new_game(None, {"rounds_total": 5, "promises": False}, 3, names)
    general = play_headless(g2, seats(g2, True))
    assert is_compact(batch) and not is_compact(general)
    assert _docs(g1, batch) == _docs(g2, general)
    assert batch.faults == general.faults
    assert batch.faults[1] == {"error": 3} and batch.faults[2] == {"illegal": 1}
