"""The step-batch path (`core/game.py`) on Ledger against the general per-turn path: one
runner, one rules engine, the same bytes.

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
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import SeatInputRejected
from cogleague.core.game import Action, Decision, Game, StepDecisions, Turn
from cogleague.core.verify import verify_replay
from cogleague.games import registry
from cogleague.games.ledger.baselines import BASELINES, make_baseline
from cogleague.games.ledger.config import VARIANTS
from cogleague.games.ledger.context import TurnContext
from cogleague.games.ledger.events import RoundEvents
from cogleague.games.ledger.game import LedgerGame
from cogleague.seats.scripted import ScriptedSeat
from helpers.step_batch import is_compact, play_path

from .support import MIX, make_game

DESC = registry.get("ledger")
NAMES = sorted(BASELINES)



def _docs(g: Game, outcome: EpisodeOutcome) -> dict[str, bytes]:
    doc = g.replay_document(outcome.log)
    return {"results": jsonio.dumpb(outcome.results),
            "log": jsonio.dumpb(outcome.log.to_json()),
            "replay": jsonio.dumpb(doc),
            "replay_sorted": jsonio.dumpb(doc, sort_keys=True),
            "replay_reference": jsonio.dumps_reference(doc, sort_keys=True).encode()}


def _seats(g: LedgerGame, policies: Sequence[Any] | None = None) -> list[Any]:
    if policies is None:
        policies = [make_baseline(n, s) for s, n in enumerate(g.policy_names)]
    return [ScriptedSeat(p, n) for p, n in zip(policies, g.policy_names, strict=True)]


def _played(g: LedgerGame, path: str, policies: Sequence[Any] | None = None
            ) -> EpisodeOutcome:
    seats = _seats(g, policies)
    return play_path(g, seats, path)



def _assert_same(names: Sequence[str], seed: int, variant: str | None = None,
                 policies: Any = None, **overrides: Any) -> dict[str, bytes]:
    """`policies`: None (the baselines) or a function of the seat giving a fresh policy."""
    def fresh() -> list[Any] | None:
        return None if policies is None else [policies(s) for s in range(len(names))]

    g = make_game(seed, lineup=names, variant=variant, **overrides)
    batch = _played(g, "batch", fresh())
    assert is_compact(batch)
    expected = _docs(g, batch)
    assert expected["replay_sorted"] == expected["replay_reference"]
    for path in ("observed", "per_turn"):
        g2 = make_game(seed, lineup=names, variant=variant, **overrides)
        general = _played(g2, path, fresh())
        assert not is_compact(general)
        assert _docs(g2, general) == expected, path
        # the materialized log reads the same as the one built per turn
        assert batch.log.decisions == general.log.decisions
        assert batch.log.events == general.log.events
        assert batch.faults == general.faults
    replay = json.loads(expected["replay"])
    assert verify_replay(replay, DESC) == replay["results"]
    return expected


def test_every_variant_gives_the_same_bytes_on_both_paths() -> None:
    for variant in VARIANTS:
        if variant == "certification":
            continue  # its fixed line-up has model seats: never the batch path
        for seed in (0, 1, 7, 2**31 - 1):
            _assert_same(MIX, seed, variant)


lineups = st.lists(st.sampled_from(NAMES), min_size=8, max_size=8)


@settings(max_examples=25, deadline=None)
@given(names=lineups, seed=st.integers(0, 2**31 - 1), rounds=st.integers(4, 28))
def test_batch_and_general_paths_give_the_same_bytes(names: list[str], seed: int,
                                                     rounds: int) -> None:
    _assert_same(names, seed, rounds=rounds)


def test_the_benchmark_line_up_takes_the_batch_path_and_reads_lazily() -> None:
    g = make_game(3, lineup=DESC.default_lineup("standard"))
    outcome = _played(g, "batch")
    assert is_compact(outcome)
    applies = [e for e in outcome.log.entries if e.op == "apply"]
    entry = applies[-1]  # the last round: its meetings and the end
    assert entry._events is None and isinstance(entry._render, RoundEvents)
    as_json = entry.events_json()
    assert entry._events is None  # the replay's form straight from the renderer
    assert as_json == [e.to_json() for e in entry._render()]
    assert [list(d) for d in as_json] == [list(e.to_json()) for e in entry._render()]
    assert [e["kind"] for e in as_json] == ["meeting"] * 4 + ["end"]
    columns = entry._decisions
    assert isinstance(columns, StepDecisions)
    assert columns.step.contexts == () and columns.step.groups == ()  # released once settled
    decisions = entry.decisions
    assert decisions is not None and list(decisions) == [f"r13s{s}" for s in range(8)]
    assert decisions is not None and all(isinstance(d, Decision) for d in decisions.values())
    assert entry.events and entry._events is not None
    assert entry.events_json() == as_json  # once rendered, read off the events
    g2 = make_game(3, lineup=DESC.default_lineup("standard"))
    general = _played(g2, "observed")
    assert _docs(g, outcome) == _docs(g2, general)


def test_apply_is_apply_step_on_the_mappings_columns() -> None:
    """`apply` (the general path, the server, replays) and `apply_step` are one engine: the
    same decisions through either give the same events and state."""
    a, b = make_game(11), make_game(11)
    policies = [make_baseline(n, s) for s, n in enumerate(MIX)]
    for g in (a, b):
        g.start()
    events: list[Any] = []
    while not a.done:
        a.open_round()
        b.open_round()
        turns = a.pending()
        actions: list[Action | None] = [policies[t.seat].act(t) for t in turns]
        actions[2] = None  # a missing decision: the mirror's move, as no submission
        events = a.apply({t.turn_id: Decision(dict(x), "scripted")
                          for t, x in zip(turns, actions, strict=True) if x is not None})
        render = b.apply_step(StepDecisions(b.step(), actions, "scripted"))
        assert render() == events and render() == events  # the same on every call
        assert render.to_json() == [e.to_json() for e in events]
        assert a.table.frame() == b.table.frame()
    assert a.results() == b.results()
    assert a.table.fallbacks[2] == a.config.rounds  # the missing decisions, counted


def test_a_refused_step_leaves_the_state_unchanged() -> None:
    g = make_game(5)
    g.start()
    g.open_round()
    before = g.table.frame()
    step = g.step()
    actions: list[Action | None] = [{"move": 99}] + [{"move": 0}] * 7
    try:
        g.apply_step(StepDecisions(step, actions, "scripted"))
    except SeatInputRejected as rejected:
        assert rejected.turn_id == "r0s0"
    else:
        raise AssertionError("an out-of-range move must be refused")
    assert g.table.frame() == before and g.step() is step and len(g.pending()) == 8


def test_every_baselines_step_answers_equal_its_per_turn_answers() -> None:
    for names in (MIX, NAMES + NAMES[:3]):
        g = make_game(5, lineup=names)
        policies = [make_baseline(n, s) for s, n in enumerate(names)]
        g.start()
        while not g.done:
            g.open_round()
            turns = g.pending()
            step = g.step()
            decisions: dict[str, Decision] = {}
            for (seat, contexts), t in zip(step.groups, turns, strict=True):
                assert all(isinstance(c, TurnContext) for c in contexts)
                assert step.turn_ids()[seat] == t.turn_id and t.context is contexts[0]
                answers = policies[seat].act_step(contexts)
                assert answers == [policies[seat].act(t)], (names[seat], g.rounds_played)
                decisions[t.turn_id] = Decision(answers[0], "scripted")
            g.apply(decisions)


class _Writer:
    """A scripted policy of its own: the mirror's move with a memo, and a note from round 2;
    in round `bad` it answers an illegal move, in round `boom` it raises (both entry points)."""

    def __init__(self, seat: int, bad: int = 3, boom: int = 5) -> None:
        self.mirror = make_baseline("mirror", seat)
        self.bad, self.boom = bad, boom

    def _answer(self, ctx: TurnContext) -> Action:
        if ctx.round == self.boom:
            raise RuntimeError("boom")
        if ctx.round == self.bad:
            return {"move": 1000}
        action: Action = {"move": self.mirror.move(ctx), "memo": f"round {ctx.round}"}
        if ctx.round >= 1:
            action["note"] = "kept faith"
        return action

    def act(self, turn: Turn) -> Action:
        return self._answer(turn.context)

    def act_step(self, contexts: Sequence[TurnContext]) -> list[Action]:
        return [self._answer(c) for c in contexts]


def test_notes_memos_refusals_and_errors_match_the_general_path() -> None:
    writer = "policy:writer"
    names = [writer, "mirror", "shark", writer, "grim", "saint", "opportunist", "mirror"]

    def policy(seat: int) -> Any:
        if names[seat] == writer:  # refusals and errors in different rounds, one per step
            return _Writer(seat, 2 + seat, 8 + seat)
        return make_baseline(names[seat], seat)

    docs = _assert_same(names, 9, policies=policy)
    replay = json.loads(docs["replay"])
    kinds = [e["kind"] for e in replay["events"]]
    assert "gossip" in kinds
    sources = [d["source"] for e in replay["log"] if e["op"] == "apply"
               for d in e["decisions"].values()]
    assert sources.count("fallback") == 4  # two writers: an illegal move and an error each
    assert replay["results"]


def test_a_finished_game_is_freed_without_the_cycle_collector() -> None:
    """Nothing of the batch path holds the game in a cycle: dropping the game and its outcome
    frees it by reference counting alone."""
    gc.disable()
    try:
        g = make_game(2)
        outcome = _played(g, "batch")
        assert is_compact(outcome)
        ref = weakref.ref(g)
        del g, outcome
        assert ref() is None
    finally:
        gc.enable()
