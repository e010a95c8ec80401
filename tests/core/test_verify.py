"""The one replay verifier (core/verify.py) on every built-in game: an honest replay verifies,
and every kind of tampering — with events, results, the log's decisions or their metadata —
is refused with a message naming where."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from cogleague.core import jsonio
from cogleague.core.errors import ReplayError
from cogleague.core.verify import verify_replay
from cogleague.games import registry
from cogleague.testing.episodes import FAILING, RANDOM, Episode, play

Doc = dict[str, Any]
GAMES = ["ledger", "commons", "dilemma"]


def _doc(name: str) -> Doc:
    desc = registry.get(name)
    n = desc.seats_of(desc.default_variant, {})
    baseline = desc.baselines[0]
    lineup = (baseline, RANDOM, FAILING, *([baseline, RANDOM] * n))[:n]
    game, outcome = play(desc, Episode(desc.default_variant, 3, lineup))
    return json.loads(jsonio.dumps(desc.replay_document(game, outcome.log),
                                   sort_keys=desc.replay_sort_keys))


@pytest.fixture(scope="module", params=GAMES)
def replay(request: pytest.FixtureRequest) -> tuple[str, Doc]:
    return request.param, _doc(request.param)


def _decisions(doc: Doc, source: str) -> list[dict[str, Any]]:
    return [d for e in doc["log"] if e["op"] == "apply" for d in e["decisions"].values()
            if d["source"] == source]


def _first_apply(doc: Doc) -> dict[str, Any]:
    return next(e for e in doc["log"] if e["op"] == "apply")


TAMPERS: dict[str, tuple[Callable[[Doc], None], str]] = {
    "no log": (lambda d: d.pop("log"), "log must be the runner's list"),
    "an unknown op": (lambda d: d["log"][0].update(op="rewind"), r"log\[0\]\.op must be one"),
    "a dropped operation": (lambda d: d["log"].pop(), "first difference at"),
    "attempts beyond the retries": (
        lambda d: _decisions(d, "seat")[0].update(attempts=7), "attempts, the game allows"),
    "an undocumented cause": (
        lambda d: _decisions(d, "fallback")[0].update(cause="bored"), "cause must be one of"),
    "a timeout fallback without timeouts": (
        lambda d: _decisions(d, "fallback")[0].update(cause="timeout", timeouts=0),
        "at least one timeout"),
    "more timeouts than attempts": (
        lambda d: _decisions(d, "seat")[0].update(timeouts=5), "timeouts <= attempts"),
    "a scripted reply with a retry": (
        lambda d: _decisions(d, "scripted")[0].update(attempts=2), "one attempt"),
    "a cause on a seat's own reply": (
        lambda d: _decisions(d, "seat")[0].update(cause="parse"), "cause must be null"),
    "an unknown source": (
        lambda d: _decisions(d, "seat")[0].update(source="oracle"), "source must be one of"),
    "an extra decision key": (
        lambda d: _decisions(d, "seat")[0].update(bonus=1), "must have exactly the keys"),
    "a decision for no turn": (
        lambda d: _first_apply(d)["decisions"].update(nobody=_decisions(d, "seat")[0]),
        "the game does not ask for"),
    "a fallback the game would not play": (
        lambda d: _decisions(d, "fallback")[0].update(
            action=_decisions(d, "seat")[0]["action"] | {"conformance": 1}),
        "the game's fallback plays"),
    "the results": (lambda d: d["results"]["scores"].__setitem__(0, 1e6),
                    r"first difference at \$\.results"),
    "a format": (lambda d: d.update(format="nope"), "format must be"),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_tampering_is_refused_where_it_happened(replay: tuple[str, Doc], name: str) -> None:
    game, doc = replay
    desc = registry.get(game)
    verify_replay(copy.deepcopy(doc), desc)
    tampered = copy.deepcopy(doc)
    tamper, message = TAMPERS[name]
    tamper(tampered)
    with pytest.raises(ReplayError, match=message):
        verify_replay(tampered, desc)


def test_a_scripted_move_must_be_its_baselines(replay: tuple[str, Doc]) -> None:
    game, doc = replay
    desc = registry.get(game)
    tampered = copy.deepcopy(doc)
    for entry in tampered["log"]:
        scripted = [d for d in (entry.get("decisions") or {}).values()
                    if d["source"] == "scripted"]
        others = [d for d in (entry.get("decisions") or {}).values() if d["source"] == "seat"]
        changed = next(((s, o) for s in scripted for o in others if s["action"] != o["action"]),
                       None)
        if changed is not None:
            changed[0]["action"] = changed[1]["action"]
            break
    else:
        pytest.fail("the episode has no scripted and seat decisions that differ")
    with pytest.raises(ReplayError, match=r"baseline .* plays"):
        verify_replay(tampered, desc)


def test_a_non_document_is_refused() -> None:
    desc = registry.get("ledger")
    for junk in (None, [], "ledger", {"format": desc.replay_format}):
        with pytest.raises(ReplayError):
            verify_replay(junk, desc)


def test_ledger_frames_are_optional_but_must_re_derive() -> None:
    doc = _doc("ledger")
    desc = registry.get("ledger")
    without = {k: v for k, v in doc.items() if k != "frames"}
    assert verify_replay(without, desc) == doc["results"]
    doc["frames"][3]["round"] = 99
    with pytest.raises(ReplayError, match=r"\$\.frames\[3\]"):
        verify_replay(doc, desc)
