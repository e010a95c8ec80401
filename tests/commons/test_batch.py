"""The step-batch path (`core/game.py`) on Commons Family against the general per-turn path:
one runner, one rules engine, the same bytes.

`play_headless` with every seat a built-in baseline and nobody watching plays each round as
columns (each seat answers with `act_step`, the log keeps `StepDecisions` and a `RoundEvents`
renderer whose `to_json` the replay document reads). The same line-up played through the
general path — with an observer (how the server plays), or with seats that only answer turn by
turn — must give byte-identical results, logs and replay documents (with either JSON encoder),
and the batch replay must verify.
"""

from __future__ import annotations

import gc
import json
import weakref
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio
from cogleague.core.episode import EpisodeOutcome, play_headless
from cogleague.core.game import Action, Decision, Game, StepDecisions, Turn
from cogleague.core.verify import verify_replay
from cogleague.games import registry
from cogleague.games.commons.baselines import BASELINES, make_baseline
from cogleague.games.commons.config import VARIANTS
from cogleague.games.commons.game import CommonsGame, SeatContext
from cogleague.games.commons.round_events import RoundEvents
from cogleague.seats.factory import make_seats
from cogleague.seats.scripted import ScriptedSeat
from helpers.step_batch import is_compact, play_path
from helpers.step_batch import per_turn as turn_by_turn

DESC = registry.get("commons")
NAMES = sorted(BASELINES)



def _docs(g: Game, outcome: EpisodeOutcome) -> dict[str, bytes]:
    doc = g.replay_document(outcome.log)
    return {"results": jsonio.dumpb(outcome.results),
            "log": jsonio.dumpb(outcome.log.to_json()),
            "replay": jsonio.dumpb(doc, sort_keys=True),
            "replay_reference": jsonio.dumps_reference(doc, sort_keys=True).encode()}


def _game(variant: str, names: list[str], seed: int, **options: Any) -> CommonsGame:
    g = DESC.new_game(variant, options, seed, names)
    assert isinstance(g, CommonsGame)
    return g


def _played(variant: str, names: list[str], seed: int, path: str,
            **options: Any) -> tuple[CommonsGame, EpisodeOutcome]:
    g = _game(variant, names, seed, **options)
    seats = make_seats(g, names)
    return g, play_path(g, seats, path)



def _assert_same(variant: str, names: list[str], seed: int, **options: Any) -> None:
    g, batch = _played(variant, names, seed, "batch", **options)
    assert is_compact(batch)
    expected = _docs(g, batch)
    assert expected["replay"] == expected["replay_reference"]
    for path in ("observed", "per_turn"):
        g2, general = _played(variant, names, seed, path, **options)
        assert not is_compact(general)
        assert _docs(g2, general) == expected, (variant, path)
        # the materialized log reads the same as the one built per turn
        assert batch.log.decisions == general.log.decisions
        assert batch.log.events == general.log.events
    replay = json.loads(expected["replay"])
    assert verify_replay(replay, DESC) == replay["results"]


def test_every_module_gives_the_same_bytes_on_both_paths() -> None:
    lineup = ["steward", "free_rider", "cleaner", "punisher", "reciprocator", "random"]
    for variant in VARIANTS:
        for seed in (0, 1, 7, 2**40 + 3):
            _assert_same(variant, lineup, seed)


lineups = st.lists(st.sampled_from(NAMES), min_size=6, max_size=6)


@settings(max_examples=25, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), names=lineups, seed=st.integers(0, 2**31 - 1),
       rounds=st.integers(1, 20), chat=st.booleans(), sanctions=st.booleans(),
       ledger=st.booleans())
def test_batch_and_general_paths_give_the_same_bytes(variant: str, names: list[str], seed: int,
                                                     rounds: int, chat: bool, sanctions: bool,
                                                     ledger: bool) -> None:
    _assert_same(variant, names, seed, rounds=rounds, chat_enabled=chat,
                 sanctions_enabled=sanctions, ledger_public=ledger)


def test_the_benchmark_line_up_takes_the_batch_path_and_reads_lazily() -> None:
    names = ["steward", "free_rider", "cleaner", "punisher", "reciprocator", "random"]
    g, outcome = _played("mushrooms", names, 3, "batch")
    assert is_compact(outcome)
    entry = next(e for e in outcome.log.entries if e.op == "apply")
    assert entry._events is None and isinstance(entry._render, RoundEvents)
    # the replay's form straight from the renderer, nothing rendered or cached
    as_json = entry.events_json()
    assert entry._events is None
    assert as_json == [e.to_json() for e in entry._render()]
    decisions = entry.decisions
    assert decisions is not None and all(isinstance(d, Decision) for d in decisions.values())
    assert entry.events and entry._events is not None
    assert entry.events_json() == as_json  # once rendered, read off the events
    _, general = _played("mushrooms", names, 3, "observed")
    assert _docs(g, outcome)["log"] == jsonio.dumpb(general.log.to_json())


def test_apply_is_apply_step_on_the_mappings_columns() -> None:
    """`apply` (the general path, the server, replays) and `apply_step` are one engine: the
    same decisions through either give the same events and state."""
    names = ["random"] * 6
    a, b = _game("mushrooms", names, 11), _game("mushrooms", names, 11)
    policies = [make_baseline("random", s, a.policy_seed) for s in range(6)]
    for g in (a, b):
        g.start()
    while not a.done:
        a.open_round()
        b.open_round()
        turns = a.pending()
        actions: list[Action | None] = [policies[t.seat].act(t) for t in turns]
        actions[2] = None  # a missing decision: no submission
        events = a.apply({t.turn_id: Decision(dict(x), "scripted")
                          for t, x in zip(turns, actions, strict=True) if x is not None})
        render = b.apply_step(StepDecisions(b.step(), actions, "scripted"))
        assert render() == events
        assert a.state.to_json() == b.state.to_json() and a.scores == b.scores
    assert a.results() == b.results()
    assert any(e.kind == "no_submission" for e in events)


def test_every_baselines_step_answers_equal_its_per_turn_answers() -> None:
    """Two instances of each baseline (same seat, same seed) follow one episode: every round
    one answers with `act_step` on its seat context, the other with `act` on its turn."""
    for variant in VARIANTS:
        for names in (NAMES[:6], NAMES[2:]):
            g = _game(variant, names, 5, sanctions_enabled=True)
            batch = [make_baseline(n, s, g.policy_seed) for s, n in enumerate(names)]
            single = [make_baseline(n, s, g.policy_seed) for s, n in enumerate(names)]
            g.start()
            while not g.done:
                g.open_round()
                turns = g.pending()
                step = g.step()
                decisions: dict[str, Decision] = {}
                for (seat, contexts), t in zip(step.groups, turns, strict=True):
                    assert all(isinstance(c, SeatContext) for c in contexts)
                    answers = batch[seat].act_step(contexts)
                    per_turn = [single[seat].act(t)]
                    assert answers == per_turn, (variant, names[seat], g.round)
                    decisions[t.turn_id] = Decision(per_turn[0], "scripted")
                g.apply(decisions)


class _RaisesInRound:
    """A seat's own program that fails in one round (in both of its entry points)."""

    def __init__(self, bad_round: int) -> None:
        self.bad_round = bad_round
        self.round = 0

    def act(self, turn: Turn) -> Action:
        if turn.round == self.bad_round:
            raise RuntimeError("boom")
        return {"eat": 1, "eat_color": "green"}

    def act_step(self, contexts: list[SeatContext]) -> list[Action]:
        r, self.round = self.round, self.round + 1
        if r == self.bad_round:
            raise RuntimeError("boom")
        return [{"eat": 1, "eat_color": "green"} for _ in contexts]


def test_fallbacks_on_the_batch_path_match_the_general_path() -> None:
    names = ["steward", "raises", "random", "punisher", "free_rider", "cleaner"]

    def seats(g: CommonsGame, per_turn: bool) -> list[Any]:
        out: list[Any] = [
            ScriptedSeat(_RaisesInRound(3), n) if n == "raises"  # type: ignore[arg-type]
            else ScriptedSeat(make_baseline(n, s, g.policy_seed), n)
            for s, n in enumerate(names)]
        return turn_by_turn(out) if per_turn else out

    g1 = CommonsGame(_game("mushrooms", ["steward"] * 6, 3).config, names)
    batch = play_headless(g1, seats(g1, False))
    g2 = CommonsGame(_game("mushrooms", ["steward"] * 6, 3).config, names)
    general = play_headless(g2, seats(g2, True))
    assert is_compact(batch) and not is_compact(general)
    assert _docs(g1, batch) == _docs(g2, general)
    assert batch.faults == general.faults == [{}, {"error": 1}, {}, {}, {}, {}]


def test_a_finished_game_is_freed_without_the_cycle_collector() -> None:
    """The seat contexts and the step hold the engine weakly: dropping the game and its
    outcome frees it by reference counting alone."""
    gc.disable()
    try:
        g, outcome = _played("cleanup", ["steward"] * 6, 2, "batch")
        ref = weakref.ref(g)
        del g, outcome
        assert ref() is None
    finally:
        gc.enable()
