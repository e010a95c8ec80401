"""Hidden information by non-interference.

Take a logged episode and one seat's decision at one step. The game's
`Conformance.sealed_variants` gives replies that differ from it only in what the rules keep
from the other seats, and for how long. Both the original and each variant are parsed by the
game and applied in a rebuilt episode (every other decision as logged); what every *other*
seat can observe — its turns' views, legal actions and prompts, and every event as
`Event.view_for` gives it to that seat — must stay byte-identical:

- ``"round"``: from that step until the round holding it closes (the events of the closing
  step are the reveal and are not compared);
- ``"never"``: until the end of the episode.
"""

from __future__ import annotations

import random
from typing import Any

from cogleague.core import rng as streams
from cogleague.core.errors import IllegalAction
from cogleague.core.game import Decision, Event, Game, Turn
from cogleague.testing.subject import ConformanceError, Played, Subject
from cogleague.testing.walk import StopWalk, walk

TARGETS_PER_EPISODE = 6
UNTIL = ("round", "never")
Trace = dict[int, list[tuple[int, str, Any]]]
"""Per other seat: (log index, what, JSON) in the order the seat would observe them."""


def check_hidden(subject: Subject) -> str:
    hooks = subject.desc.conformance
    if hooks is None or hooks.sealed_variants is None:
        return "skipped: the descriptor declares no Conformance.sealed_variants"
    compared = 0
    for played in subject.played:
        rng = streams.stream(f"conformance:{subject.desc.name}:{played.episode.seed}:hidden")
        for index, turn_id in _targets(played, rng):
            compared += _target(subject, played, index, turn_id, rng)
    if compared == 0:
        raise ConformanceError("sealed_variants offered no variation to compare")
    return f"{compared} sealed variations leave every other seat's observations unchanged"


def _targets(played: Played, rng: random.Random) -> list[tuple[int, str]]:
    steps = [(i, sorted(e["decisions"])) for i, e in enumerate(played.entries)
             if e["op"] == "apply" and e["decisions"]]
    picks = []
    for _ in range(min(TARGETS_PER_EPISODE, len(steps))):
        index, ids = steps[streams.below(rng, len(steps))]
        picks.append((index, ids[streams.below(rng, len(ids))]))
    return sorted(set(picks))


def _target(subject: Subject, played: Played, index: int, turn_id: str,
            rng: random.Random) -> int:
    hooks = subject.desc.conformance
    assert hooks is not None and hooks.sealed_variants is not None
    action = played.entries[index]["decisions"][turn_id]["action"]
    probe = walk(subject.fresh(played.episode), played.entries, stop_at=index)
    turn = next(t for t in probe.pending() if t.turn_id == turn_id)
    variants = list(hooks.sealed_variants(turn, dict(action), rng))
    for _, until in variants:
        if until not in UNTIL:
            raise ConformanceError(f"sealed_variants: until must be one of {UNTIL} "
                                   f"(got {until!r})")
    if not variants:
        return 0
    forever = any(until == "never" for _, until in variants)
    base = _trace(subject, played, index, turn, action, forever)
    for raw, until in variants:
        varied = _trace(subject, played, index, turn, raw, until == "never")
        try:
            _compare(played, index, turn, until, base, varied)
        except ConformanceError as leak:
            _same_game_twice(subject, played, index, turn, forever, base, leak)
            raise
    return len(variants)


def _same_game_twice(subject: Subject, played: Played, index: int, turn: Turn, forever: bool,
                     base: dict[str, Any], leak: ConformanceError) -> None:
    """Before calling a difference a leak: replay the logged decision itself once more. If
    that differs too, the game draws randomness outside its seed into what seats observe —
    say so, rather than blame the sealed reply."""
    action = played.entries[index]["decisions"][turn.turn_id]["action"]
    again = _trace(subject, played, index, turn, action, forever)
    try:
        _compare(played, index, turn, "never", base, again)
    except ConformanceError as noise:
        detail = str(noise).split(": ", 1)[-1].replace("sees the sealed reply (never)",
                                                        "observes something else")
        raise ConformanceError(
            f"randomness in a view, not a leak: replaying {played.episode.label()} twice with "
            f"the same decisions already differs ({detail}); what seats observe must come "
            "from the game's seeded streams (cogleague.core.rng)") from leak


def _trace(subject: Subject, played: Played, index: int, target: Turn, raw: Any,
           forever: bool) -> dict[str, Any]:
    """Replay with `raw` (parsed by the game) as the decision of `target` at `index`; record
    every other seat's observations from that step on (to the end with `forever`, else to the
    round's close), and where the round closes."""
    observed: Trace = {}
    closes: list[int] = []
    turn_id, mover = target.turn_id, target.seat

    def see(seat: int, where: int, what: str, value: Any) -> None:
        observed.setdefault(seat, []).append((where, what, subject.dumps(value)))

    def before(i: int, g: Game, turns: list[Turn], ds: dict[str, Decision]) -> None:
        if i == index:
            turn = next(t for t in turns if t.turn_id == turn_id)
            try:
                parsed = g.parse(turn, raw)
            except IllegalAction as exc:
                raise ConformanceError(f"log[{i}] turn {turn_id}: parse refuses the sealed "
                                       f"variant {raw!r}: {exc}") from None
            ds[turn_id] = Decision(parsed.action, "seat", clamped=parsed.clamped)
        if i >= index:
            for t in turns:
                if t.seat != mover:
                    see(t.seat, i, f"turn {t.turn_id}",
                        [t.turn_id, t.legal_actions, t.view, t.prompt_text])

    def after(i: int, g: Game, op: str, events: list[Event]) -> None:
        if i < index:
            return
        for seat in range(g.num_seats):
            views = [v for v in (e.view_for(seat) for e in events) if v is not None]
            if views and seat != mover:
                see(seat, i, f"events of log[{i}] ({op})", views)
        if not closes and (g.between_rounds or g.done):
            closes.append(i)
            if not forever:
                raise StopWalk

    walk(subject.fresh(played.episode), played.entries, before=before, after=after)
    return {"observed": observed, "closes": closes[0] if closes else None}


def _compare(played: Played, index: int, target: Turn, until: str,
             base: dict[str, Any], varied: dict[str, Any]) -> None:
    closes, seat = base["closes"], target.seat
    label = f"{played.episode.label()}, log[{index}] turn {target.turn_id} (seat {seat})"
    if until == "round" and closes != varied["closes"]:
        raise ConformanceError(f"{label}: varying a sealed reply changes when the round closes")
    for other in sorted(set(base["observed"]) | set(varied["observed"])):

        def kept(items: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
            if until == "never" or closes is None:
                return items
            return [x for x in items if x[0] < closes
                    or (x[0] == closes and x[1].startswith("turn "))]

        a = kept(base["observed"].get(other, []))
        b = kept(varied["observed"].get(other, []))
        for x, y in zip(a, b, strict=False):
            if x != y:
                raise ConformanceError(f"{label}: seat {other} sees the sealed reply ({until}) "
                                       f"in {x[1]}: {x[2][:300]} vs {y[2][:300]}")
        if len(a) != len(b):
            raise ConformanceError(f"{label}: seat {other} observes {len(a)} vs {len(b)} "
                                   f"things when the sealed reply ({until}) varies")
