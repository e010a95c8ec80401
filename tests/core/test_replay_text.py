"""Replays written as text spliced from encoded parts (`jsonio.quote` / `join_object`,
`LogEntry.json_text`, a game's `replay_bytes`) are the bytes the canonical encoder writes for
the document: hypothesis against the generic encoder, with both backends' reference.

The byte corpus (`test_corpus.py`) holds the spliced replay of every corpus episode to the
stored bytes; here the shapes the corpus lacks: any string, any action, fallbacks with their
causes, missing decisions, sorted keys."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cogleague
from cogleague.core import jsonio
from cogleague.core.game import Decision, Step, StepDecisions
from cogleague.core.replay import LogEntry

text = st.text(st.characters(codec="utf-8"), max_size=12)
scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(
    allow_nan=False, allow_infinity=False) | text
trees = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4)
                     | st.dictionaries(text, kids, max_size=4), max_leaves=20)


def reference(doc: Any, sort_keys: bool = False) -> str:
    return jsonio.dumps_reference(doc, sort_keys=sort_keys)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(text | st.text(max_size=30))
def test_quote_is_the_reference_string(s: str) -> None:
    assert jsonio.quote(s) == reference(s)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.dictionaries(text, trees | st.lists(trees, max_size=4), max_size=6), st.booleans())
def test_join_object_is_the_reference_object(doc: dict[str, Any], sort_keys: bool) -> None:
    items = [(k, [jsonio.dumps(x, sort_keys=sort_keys) for x in v] if isinstance(v, list)
              else jsonio.dumps(v, sort_keys=sort_keys)) for k, v in doc.items()]
    assert jsonio.join_object(items, sort_keys=sort_keys) == reference(doc, sort_keys)


actions = st.dictionaries(st.text(max_size=5), trees, max_size=3)
SHARED = {"action": "cooperate"}


def _step(ids: list[str]) -> Step:
    return Step.of([_Turn(i) for i in ids])


class _Turn:
    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id
        self.seat = 0
        self.context = None


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.lists(st.text(max_size=8), min_size=1, max_size=6, unique=True),
       st.lists(st.none() | actions | st.just(SHARED), min_size=6, max_size=6),
       st.sampled_from(["scripted", "model", 'odd "source"']), st.booleans(),
       st.dictionaries(st.integers(0, 5), st.sampled_from(["timeout", "illegal"]),
                       max_size=2),
       st.sampled_from([None, "deadline"]))
def test_log_entry_text_is_its_json_encoded(ids: list[str], acts: list[Any], source: str,
                                            sort_keys: bool, special: dict[int, str],
                                            reason: str | None) -> None:
    step = _step(ids)
    acts = acts[:len(ids)]
    fallbacks = {i: Decision(dict(acts[i] or {}), "fallback", cause=c, attempts=2)
                 for i, c in special.items() if i < len(ids)}
    decisions = StepDecisions(step, acts, source, fallbacks or None)
    entry = LogEntry("apply", [], decisions, reason=reason)
    expected = reference(entry.to_json(), sort_keys)
    assert entry.json_text(sort_keys=sort_keys) == expected
    assert entry.json_text(sort_keys=sort_keys) == expected  # cached action texts alike


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.lists(st.text(max_size=8), min_size=1, max_size=6, unique=True)
       | st.just(["r0s0", "r0s1", "%d", "%s%%", "@"]),
       st.sampled_from(["move", 'a "key"', "%d", "@", "\u2028"]),
       st.lists(st.integers(-(2**70), 2**70) | st.booleans() | st.sampled_from([0, 7, 100]),
                min_size=6, max_size=6),
       st.sampled_from(["scripted", "model", 'odd "source" %d @']), st.booleans(),
       st.sampled_from([None, "other"]))
def test_one_member_number_actions_are_their_json_encoded(
        ids: list[str], key: str, numbers: list[int], source: str, sort_keys: bool,
        second_key: str | None) -> None:
    """Each action ``{key: n}`` of a fresh dict (Ledger's moves: the numbered template), with
    bools, big integers and a second key or member now and then (the generic texts)."""
    acts: list[Any] = [{key: n} for n in numbers[:len(ids)]]
    if second_key is not None:
        acts[-1] = {second_key: numbers[0]} if len(acts) > 1 else {key: 1, second_key: 2}
    entry = LogEntry("apply", [], StepDecisions(_step(ids), acts, source))
    expected = reference(entry.to_json(), sort_keys)
    assert entry.json_text(sort_keys=sort_keys) == expected
    assert entry.json_text(sort_keys=sort_keys) == expected  # from the kept template


def test_a_mutated_shared_action_is_encoded_afresh() -> None:
    action = {"action": "cooperate"}
    entry = LogEntry("apply", [], StepDecisions(_step(["a", "b"]), [action, action]))
    first = entry.json_text()
    action["action"] = "defect"
    again = entry.json_text()
    assert first != again and again == reference(entry.to_json())


class _Flaky:
    """Answers `defect` with a note, times out every third turn, raises every fifth."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, turn: Any) -> dict[str, Any]:
        self.n += 1
        if self.n % 5 == 0:
            raise RuntimeError("bot broke")
        if self.n % 3 == 0:
            return {"action": "sideways"}  # illegal: the game's fallback
        return {"action": "defect", "message": "I will cooperate, promise."}


@pytest.mark.parametrize("promises", [False, True])
@pytest.mark.parametrize("seed", [1, 7])
def test_dilemma_replay_bytes_are_the_documents(seed: int, promises: bool) -> None:
    seats: list[Any] = ["tit_for_tat", "silver_tongue", _Flaky(), "promise_keeper"]
    result = cogleague.play("dilemma", seats, seed=seed, rounds_total=12, promises=promises)
    direct = result.replay_json
    assert direct == jsonio.dumpb(result.replay)
    assert json.loads(direct) == result.replay
    assert result.faults  # the flaky seat fell back: the slow path was taken too


BASELINES = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov",
             "generous_tit_for_tat", "random", "promise_keeper", "silver_tongue"]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(BASELINES), min_size=3, max_size=6),
       st.integers(0, 2**31), st.integers(1, 6), st.booleans())
def test_dilemma_row_templates_are_the_generic_encoding(lineup: list[str], seed: int,
                                                         rounds: int, promises: bool) -> None:
    result = cogleague.play("dilemma", lineup, seed=seed, rounds_total=rounds,
                            promises=promises)
    assert result.replay_json == jsonio.dumpb(result.replay)
