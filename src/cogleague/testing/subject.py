"""The game under test: its descriptor, the suite's settings, and the episodes played once and
shared by every check."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from cogleague.core import jsonio
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.game import Game
from cogleague.testing.episodes import Episode, new_game, play, standard_episodes


class ConformanceError(AssertionError):
    """A game broke a rule of the Game protocol; the message says which check and where."""


@dataclass
class Played:
    """One finished episode: the live game, the runner's outcome, its log and replay (JSON)."""

    episode: Episode
    game: Game
    outcome: EpisodeOutcome
    entries: list[dict[str, Any]]
    doc: dict[str, Any]
    text: str
    """The replay document as the game writes it (`jsonio.dumps` with its sort order)."""


class Subject:
    """`seeds`: mixed episodes every check shares; `examples`: hypothesis examples of random
    play; `ref`: ``module:NAME`` of the descriptor for child processes (found when omitted)."""

    def __init__(self, desc: GameDescriptor, *, seeds: int = 3, examples: int = 20,
                 ref: str | None = None) -> None:
        self.desc = desc
        self.seeds = seeds
        self.examples = examples
        self.ref = ref

    @cached_property
    def played(self) -> list[Played]:
        episodes = standard_episodes(self.desc, self.seeds)
        if not episodes:
            raise ConformanceError(f"{self.desc.name}: no variant accepts a mixed line-up on "
                                   f"seeds 1..{self.seeds}")
        return [self.play(ep) for ep in episodes]

    def play(self, ep: Episode) -> Played:
        game, outcome = play(self.desc, ep)
        if not game.done:
            raise ConformanceError(f"{ep.label()}: the runner returned but the game is not done")
        entries = json.loads(jsonio.dumps(outcome.log.to_json()))
        text = self.dumps(self.desc.replay_document(game, outcome.log))
        return Played(ep, game, outcome, entries, json.loads(text), text)

    def fresh(self, ep: Episode) -> Game:
        return new_game(self.desc, ep)

    def dumps(self, doc: Any) -> str:
        return jsonio.dumps(doc, sort_keys=self.desc.replay_sort_keys)


def plain_json(value: Any, where: str, *, strict: bool = True) -> None:
    """`value` serializes as canonical JSON (no NaN, no foreign types); with `strict`, also
    every object key is a string (a dump would quietly turn ``1`` into ``"1"``)."""
    try:
        jsonio.dumps(value)
    except (TypeError, ValueError) as exc:
        _path_of_trouble(value, where)
        raise ConformanceError(f"{where}: not JSON ({exc})") from None
    if strict:
        stack = [value]
        while stack:
            item = stack.pop()
            kind = type(item)
            if kind is dict:
                if not all(type(k) is str for k in item):
                    _path_of_trouble(value, where)
                stack.extend(item.values())
            elif kind is list or kind is tuple:
                stack.extend(item)


def strict_json(value: Any, where: str) -> None:
    """`plain_json` with `strict`."""
    plain_json(value, where, strict=True)


def _path_of_trouble(value: Any, where: str) -> None:
    """Raise `ConformanceError` naming where `value` stops being plain JSON: str keys, finite
    numbers, lists, objects, strings, booleans and null (tuples pass: written as lists)."""
    if value is None or isinstance(value, bool | str | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConformanceError(f"{where}: {value!r} is not a JSON number")
        return
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _path_of_trouble(item, f"{where}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ConformanceError(f"{where}: key {key!r} is not a string")
            _path_of_trouble(item, f"{where}.{key}")
        return
    raise ConformanceError(f"{where}: a {type(value).__name__} is not JSON")
