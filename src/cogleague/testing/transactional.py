"""`apply` is transactional: on bad input it raises and the state is exactly as before.

At several steps of each shared episode the game is rebuilt from the log to just before the
step, a canonical snapshot is taken (phase, results, spectator state, the pending turns with
their legal actions and views), and a bad input is applied. If the game refuses it, the
snapshot must not have moved, and the true decisions applied next must continue the episode
exactly as it went. Calls out of phase (a second `start`, `open_round` mid-round, `apply`
between rounds) must be refused the same way. A game may accept odd input (e.g. clamp it):
that is its rules, and only refusals are held to the snapshot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cogleague.core.game import Decision, Game
from cogleague.core.replay import apply_entry
from cogleague.testing.subject import ConformanceError, Played, Subject
from cogleague.testing.walk import decisions_of, walk

PROBES_PER_EPISODE = 4
Bad = Callable[[dict[str, Decision]], dict[str, Decision]]


def _last(decisions: dict[str, Decision], make: Callable[[Decision], Decision]
          ) -> dict[str, Decision]:
    out = dict(decisions)
    if out:
        key = list(out)[-1]
        out[key] = make(out[key])
    return out


BAD_INPUTS: dict[str, Bad] = {
    "an unknown turn id": lambda ds: {**ds, "conformance:no-such-turn": Decision({"x": 1})},
    "a foreign object as the last action": lambda ds: _last(
        ds, lambda d: Decision({"conformance": ["not", {"an": "action"}]})),
    "a string as the last action": lambda ds: _last(
        ds, lambda d: Decision("conformance junk")),  # type: ignore[arg-type]
    "a negative timeout count": lambda ds: _last(
        ds, lambda d: Decision(d.action, d.source, d.cause, d.attempts, -1, d.clamped)),
    "an empty first action": lambda ds: {k: Decision({}) if i == 0 else d
                                          for i, (k, d) in enumerate(ds.items())},
}


def snapshot(game: Game, subject: Subject) -> str:
    turns = [[t.turn_id, t.seat, t.round, t.legal_actions, t.view] for t in game.pending()]
    return subject.dumps({"done": game.done, "between": game.between_rounds,
                          "rounds": game.rounds_played, "results": game.results(),
                          "spectator": game.spectator_state(), "pending": turns})


def check_transactional(subject: Subject) -> str:
    refused = 0
    for played in subject.played:
        applies = [i for i, e in enumerate(played.entries) if e["op"] == "apply"]
        step = max(1, len(applies) // PROBES_PER_EPISODE)
        for index in applies[::step][:PROBES_PER_EPISODE]:
            for name, bad in BAD_INPUTS.items():
                refused += _probe(subject, played, index, name, bad)
        refused += _out_of_phase(subject, played)
    if refused == 0:
        raise ConformanceError("no bad input was ever refused: apply accepts anything")
    return f"{refused} refusals left the state unchanged and the episode intact"


def _rebuilt(subject: Subject, played: Played, index: int) -> Game:
    return walk(subject.fresh(played.episode), played.entries, stop_at=index)


def _probe(subject: Subject, played: Played, index: int, name: str, bad: Bad) -> int:
    game = _rebuilt(subject, played, index)
    decisions = decisions_of(played.entries[index]) or {}
    before = snapshot(game, subject)
    try:
        game.apply(bad(decisions))
    except Exception as exc:
        _unchanged(subject, played, game, before, index, f"{name} ({type(exc).__name__})")
        return 1
    return 0


def _unchanged(subject: Subject, played: Played, game: Game, before: str, index: int,
               what: str) -> None:
    label = f"{played.episode.label()}, log[{index}]"
    if snapshot(game, subject) != before:
        raise ConformanceError(f"{label}: refusing {what} changed the state")
    expected = [e.to_json() for entry in played.outcome.log.entries[index:]
                for e in entry.events]
    got: list[Any] = []
    for entry in played.entries[index:]:
        events = apply_entry(game, entry["op"], decisions_of(entry), entry.get("reason"),
                             entry.get("detail"))
        got += [e.to_json() for e in events]
    if subject.dumps(got) != subject.dumps(expected) or \
            subject.dumps(game.results()) != subject.dumps(played.outcome.results):
        raise ConformanceError(f"{label}: after refusing {what} the episode went differently")


def _out_of_phase(subject: Subject, played: Played) -> int:
    """A second start, open_round mid-round and apply between rounds are refused cleanly."""
    refused = 0
    entries = played.entries
    opens = [i for i, e in enumerate(entries) if e["op"] == "open"]
    applies = [i for i, e in enumerate(entries) if e["op"] == "apply"]
    probes: list[tuple[int, str, Callable[[Game], Any]]] = [(1, "a second start", _start)]
    if opens:
        probes.append((opens[0], "apply between rounds", lambda g: g.apply({})))
    if applies:
        probes.append((applies[0], "open_round mid-round", lambda g: g.open_round()))
    for index, what, call in probes:
        game = _rebuilt(subject, played, index)
        before = snapshot(game, subject)
        try:
            call(game)
        except Exception:
            _unchanged(subject, played, game, before, index, what)
            refused += 1
            continue
        raise ConformanceError(f"{played.episode.label()}, log[{index}]: {what} was accepted")
    return refused


def _start(game: Game) -> Any:
    return game.start()
