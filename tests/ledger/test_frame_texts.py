"""Ledger's replay written as text (`frames.frame_texts`, `replay.replay_bytes`) is the bytes
of the document `replay_document(…, frames=True)` builds, with memos, gossip, illegal replies
and fallbacks in it (random replies from bot seats)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cogleague
from cogleague import TurnInfo
from cogleague.core import jsonio
from cogleague.games.ledger import frames
from cogleague.games.ledger.baselines import BASELINES
from cogleague.games.ledger.events import PLAIN_SIDES, meeting_json, meeting_parts
from cogleague.games.ledger.frames import frame_texts
from cogleague.games.ledger.replay import build_frames
from cogleague.games.ledger.schedule import draw_schedule


class _Random:
    """Random replies (memos, notes, refused moves) from a seeded stream: a bot, so it reads
    its turn as a `TurnInfo` and replies as the conformance suite's random seat does."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, info: TurnInfo) -> dict[str, Any]:
        if self.rng.random() < 0.1:
            return {"move": "nonsense"}  # refused: the game's fallback
        move = info.legal_actions["move"]
        reply: dict[str, Any] = {"move": self.rng.randint(move["min"], move["max"])}
        if info.visible_state["round"] > 1 and self.rng.random() < 0.3:
            reply["note"] = f'note "{self.rng.randrange(1000)}" \u00e9'
        if self.rng.random() < 0.3:
            reply["memo"] = f"memo {self.rng.randrange(1000)}\t\u2028"
        return reply


@pytest.mark.parametrize("seed", [0, 3, 11])
def test_replay_bytes_are_the_documents_with_frames(seed: int) -> None:
    seats: list[Any] = ["mirror", _Random(seed), "shark", _Random(seed + 1), "grim", "saint",
                        _Random(seed + 2), "opportunist"]
    result = cogleague.play("ledger", seats, seed=seed)
    direct = result.replay_json
    doc = result.replay
    assert direct == jsonio.dumpb(doc)
    assert json.loads(direct)["frames"] == doc["frames"]
    assert result.faults  # refused replies fell back: decisions off the common source
    meetings = [e for e in doc["events"] if e["kind"] == "meeting"]
    assert any(e.get("memoA") or e.get("memoB") for e in meetings)  # memos in the frames
    assert any(e["kind"] == "gossip" for e in doc["events"])  # and notes on the board


def test_frames_with_notes_on_the_board_are_the_built_ones() -> None:
    """Gossip and memos (text with quotes, control characters, non-ASCII) in every round:
    the board's window moves, every frame matches `build_frames`."""
    doc = cogleague.play("ledger", seed=5).replay
    events: list[dict[str, Any]] = []
    for e in doc["events"]:
        if e["kind"] == "meeting" and e["pair"] == 1:
            e = {**e, "memoA": f'memo "{e["round"]}" \u2028 \x01'}
        events.append(e)
        if e["kind"] == "meeting" and e["pair"] == 3:
            r = e["round"]
            for author in range(3):
                events.append({"kind": "gossip", "round": r, "author": author,
                               "subject": (author + r) % 8,
                               "text": f'note {r}: "sharp"\t\u00e9 \\ {author}'})
    doc = {**doc, "events": events}
    schedule = draw_schedule(doc["config"]["seed"], doc["config"]["rounds"])
    texts = frame_texts(doc["aliases"], doc["policyNames"], schedule, events)
    built = build_frames(doc)
    assert texts == [jsonio.dumps(f) for f in built]
    assert built[-1]["board"] and any(r["memo"] for r in built[-1]["seats"])


def test_frames_with_flagged_rings_are_the_built_ones() -> None:
    """Seats 0-3 paid richly among themselves and nothing outside: pairs are flagged and
    rings form as the episode goes (the corpus episodes flag none); every frame matches."""
    doc = cogleague.play("ledger", seed=2).replay
    events = []
    for e in doc["events"]:
        if e["kind"] == "meeting":
            inside = e["a"] < 4 and e["b"] < 4
            e = {**e, "payA": 10 if inside else 1, "payB": 9 if inside else 0}
        events.append(e)
    doc = {**doc, "events": events}
    schedule = draw_schedule(doc["config"]["seed"], doc["config"]["rounds"])
    built = build_frames(doc)
    texts = frame_texts(doc["aliases"], doc["policyNames"], schedule, events)
    assert texts == [jsonio.dumps(f) for f in built]
    assert any(f["rings"]["components"] for f in built)
    assert len({jsonio.dumps(f["rings"]) for f in built}) > 3  # the rings changed on the way


def _reference(doc: dict[str, Any], events: list[dict[str, Any]]) -> list[str]:
    """Every frame built from scratch as a dict by a fresh `Table` (`build_frames`), encoded."""
    return [jsonio.dumps(f) for f in build_frames({**doc, "events": events})]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1),
       lineup=st.lists(st.sampled_from(sorted(BASELINES)), min_size=8, max_size=8),
       rounds=st.integers(4, 21),
       ring=st.sets(st.integers(0, 7), max_size=5),
       pays=st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), min_size=1,
                     max_size=16),
       extras=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.booleans()),
                       min_size=1, max_size=16))
def test_incremental_frames_are_the_from_scratch_ones(
        seed: int, lineup: list[str], rounds: int, ring: set[int],
        pays: list[tuple[int, int]], extras: list[tuple[int, int, bool]]) -> None:
    """Random seeds and line-ups; meetings inside a drawn group repaid richly, the others
    from a drawn cycle (so pairs become flaggable, flagged, and unflagged again as the
    episode goes), with drawn fallbacks, timeouts and memos: every frame `frame_texts`
    writes incrementally is the one `build_frames` builds from scratch."""
    doc = cogleague.play("ledger", lineup, seed=seed, rounds=rounds).replay
    events: list[dict[str, Any]] = []
    for i, e in enumerate(doc["events"]):
        if e["kind"] == "meeting":
            pay_a, pay_b = pays[i % len(pays)]
            if e["a"] in ring and e["b"] in ring:
                pay_a, pay_b = pay_a + 8, pay_b + 8
            fallback, timeouts, memo = extras[i % len(extras)]
            e = {**e, "payA": pay_a, "payB": pay_b, "fallbackA": fallback == 1,
                 "timeoutsB": timeouts, "memoB": f"m{i}" if memo else ""}
        events.append(e)
    schedule = draw_schedule(seed, rounds)
    assert frame_texts(doc["aliases"], doc["policyNames"], schedule, events) == _reference(
        doc, events)


def test_frames_are_the_same_when_the_fragment_cache_is_full(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A full cache of row fragments is emptied and refilled: the frames do not change."""
    doc = cogleague.play("ledger", seed=9).replay
    schedule = draw_schedule(doc["config"]["seed"], doc["config"]["rounds"])
    monkeypatch.setattr(frames, "STATS_CACHED", 2)
    monkeypatch.setattr(frames, "_STATS", {})
    texts = frame_texts(doc["aliases"], doc["policyNames"], schedule, doc["events"])
    assert len(frames._STATS) <= 2
    assert texts == _reference(doc, doc["events"])


_TEXT = st.sampled_from(["", "memo", 'a "quoted" \\ memo', "tab\tand\u2028", "\u00e9t\u00e9"])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(head=st.tuples(st.integers(0, 60), st.integers(0, 3), st.integers(0, 7),
                      st.integers(0, 7), st.sampled_from(["DILEMMA", "TRUST", "ULTIMATUM"])),
       moves=st.tuples(*[st.integers(0, 100)] * 4),
       sides=st.tuples(*[st.booleans()] * 6, *[st.integers(0, 3)] * 2, _TEXT, _TEXT)
       | st.just(PLAIN_SIDES))
def test_a_meeting_text_is_its_json_encoded(
        head: tuple[Any, ...], moves: tuple[int, ...], sides: tuple[Any, ...]) -> None:
    """`meeting_parts` of fields of the game's types (plain sides or any) and their moves'
    text join to the encoded `meeting_json`, under either backend's encoder."""
    fields = (*head, *moves, *sides)
    move_a, move_b, pay_a, pay_b = moves
    text = "".join(meeting_parts(fields, f'"moveA":{move_a},"moveB":{move_b},"payA":{pay_a},'
                                         f'"payB":{pay_b}'))
    assert text == jsonio.dumps(meeting_json(fields)) == jsonio.dumps_reference(
        meeting_json(fields))
