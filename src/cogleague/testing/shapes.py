"""Results and events are indexed by seat, and everything a host serializes is plain JSON.

Indexed by seat: ``results["scores"]`` has one number per seat; every declared results column
and standings column resolves for every seat; aliases and policy names number the seats;
event audiences and restricted fields name seats ``0..n-1``;
a step's turns come in ascending seat order with distinct turn ids.

Plain JSON (`strict_json`): every event, as stored and as every seat and a spectator see it,
every turn's view (and prompt, for games with model prompts), results, the spectator state
after every operation, the public config, each seat's system text, and the replay.
"""

from __future__ import annotations

from typing import Any

from cogleague.core.descriptor import GameDescriptor, per_seat
from cogleague.core.errors import ConfigError
from cogleague.core.game import Decision, Event, Game, Turn
from cogleague.core.options import validate_options
from cogleague.testing.subject import ConformanceError, Played, Subject, plain_json, strict_json
from cogleague.testing.walk import walk

STRICT_EVERY = 10
"""Views are built and checked on one step in `STRICT_EVERY` and on the first and last
(a game's views can be its most expensive part); events are all checked."""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_results(desc: GameDescriptor, game: Game, results: Any, label: str) -> None:
    n = game.num_seats
    if not isinstance(results, dict) or "reason" not in results:
        raise ConformanceError(f"{label}: results must be an object with a reason")
    scores = results.get("scores")
    if not isinstance(scores, list) or len(scores) != n or not all(map(_number, scores)):
        raise ConformanceError(f"{label}: results.scores must list one number per seat "
                               f"({n}), got {scores!r}")
    if len(game.aliases) != n or len(set(game.aliases)) != n or len(game.policy_names) != n:
        raise ConformanceError(f"{label}: aliases and policy names must number the {n} seats")
    for column in desc.result_columns:
        listed = results.get(column.key)
        nested = results.get("seats")
        ok = (isinstance(listed, list) and len(listed) == n) or (
            isinstance(nested, list) and len(nested) == n
            and all(isinstance(r, dict) and column.key in r for r in nested))
        if not ok:
            raise ConformanceError(f"{label}: results column {column.key!r} is not indexed by "
                                   "seat (results[key][seat] or results.seats[seat][key])")
        for seat in range(n):
            per_seat(results, column.key, seat)
    if desc.seat_extras is not None:
        wanted = {c.key for c in desc.standings_columns}
        for seat in range(n):
            extras = desc.seat_extras(results, seat)
            if not wanted.issubset(extras):
                raise ConformanceError(f"{label}: seat_extras for seat {seat} lacks "
                                       f"{sorted(wanted - set(extras))}")


def check_event(event: Event, n: int, where: str) -> None:
    seats = range(n)
    if event.audience is not None and not all(s in seats for s in event.audience):
        raise ConformanceError(f"{where}: audience {event.audience} names no seat of 0..{n - 1}")
    for key, who in (event.restricted or {}).items():
        if not all(s in seats for s in who):
            raise ConformanceError(f"{where}: restricted {key!r} names no seat of 0..{n - 1}")
    strict_json(event.to_json(), where)
    for seat in [None, *seats]:
        view = event.view_for(seat)
        if view is not None:
            strict_json(view, f"{where} as seat {seat} sees it")


def check_turns(desc: GameDescriptor, game: Game, turns: list[Turn], where: str,
                views: bool = True) -> None:
    seats = [t.seat for t in turns]
    if seats != sorted(seats) or not all(0 <= s < game.num_seats for s in seats):
        raise ConformanceError(f"{where}: pending turns must come in ascending seat order "
                               f"(seats {seats})")
    ids = [t.turn_id for t in turns]
    if len(set(ids)) != len(ids):
        raise ConformanceError(f"{where}: turn ids repeat ({ids})")
    for t in turns:
        plain_json(t.legal_actions, f"{where}, turn {t.turn_id} legal actions", strict=views)
        if not views:
            continue
        strict_json(t.view, f"{where}, turn {t.turn_id} view")
        if desc.model_prompts and not isinstance(t.prompt_text, str):
            raise ConformanceError(f"{where}, turn {t.turn_id}: no prompt text for models")


def check_human_config(desc: GameDescriptor) -> None:
    """The options a table for people takes (`human_config`) are options of the game, each
    of its type and range: the server validates them as a creator's (an integer option
    declared as ``20.0`` is refused there, so it is refused here first)."""
    try:
        validate_options(desc.options, desc.human_config, section=f"{desc.name} human_config")
    except ConfigError as exc:
        raise ConformanceError(f"human_config: {exc}") from None


def check_shapes(subject: Subject) -> str:
    desc = subject.desc
    check_human_config(desc)
    events = turns = 0
    for played in subject.played:
        label = played.episode.label()
        applies = [i for i, e in enumerate(played.entries) if e["op"] == "apply"]
        sampled = {*applies[::STRICT_EVERY], *applies[-1:]}
        game = subject.fresh(played.episode)
        n = game.num_seats
        strict_json(game.public_config(), f"{label}: public_config")
        for seat in range(n):
            if not isinstance(game.system_text(seat), str):
                raise ConformanceError(f"{label}: system_text({seat}) is not text")

        def before(index: int, g: Game, pending: list[Turn], ds: dict[str, Decision],
                   label: str = label, sampled: set[int] = sampled) -> None:
            nonlocal turns
            check_turns(desc, g, pending, f"{label}, log[{index}]", views=index in sampled)
            turns += len(pending)

        def after(index: int, g: Game, op: str, evs: list[Event], label: str = label,
                  n: int = n) -> None:
            nonlocal events
            for k, e in enumerate(evs):
                check_event(e, n, f"{label}, log[{index}] ({op}) event {k} ({e.kind})")
            events += len(evs)
            plain_json(g.spectator_state(), f"{label}, spectator state after log[{index}]",
                       strict=index % STRICT_EVERY == 0)

        walk(game, played.entries, before=before, after=after)
        _final(subject, played, game, label)
    return f"{events} events and {turns} turns indexed by seat and plain JSON"


def _final(subject: Subject, played: Played, game: Game, label: str) -> None:
    results = game.results()
    strict_json(results, f"{label}: results")
    check_results(subject.desc, game, results, label)
    strict_json(played.doc, f"{label}: replay")
