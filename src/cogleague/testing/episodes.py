"""How the conformance suite plays a game: line-ups, seats and episodes, from the descriptor.

A line-up names, per seat, a baseline (a scripted seat), ``RANDOM`` (a remote-like seat whose
replies come from the game's `Conformance.random_reply`, sometimes replaced by junk so that
`parse`, retries and fallbacks are exercised) or ``FAILING`` (a seat that always errors, so
the game's fallback plays every turn). Every episode goes through the real runner
(`core.episode.run_episode`) on a `FakeClock`; every random draw comes from a named stream.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cogleague.core import rng as streams
from cogleague.core.clock import FakeClock
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.episode import EpisodeOutcome, run_episode
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game, Turn
from cogleague.seats.scripted import ScriptedSeat

RANDOM = "conformance:random"
FAILING = "conformance:failing"
JUNK_SHARE = 0.1
JUNK: tuple[Any, ...] = ("¿no JSON here?", {"conformance-junk": [1, {"x": None}]}, 12345, [])


@dataclass(frozen=True)
class Episode:
    """One planned episode: variant, seed and a line-up (see the module docstring)."""

    variant: str | None
    seed: int
    lineup: tuple[str, ...]

    def label(self) -> str:
        return f"variant {self.variant}, seed {self.seed}, line-up {list(self.lineup)}"


class RandomSeat:
    """Replies drawn from the game's `random_reply`, or a baseline's move when it has none;
    one reply in ten is junk (text without JSON, an unknown object, a number, a list)."""

    kind = "bot"

    def __init__(self, desc: GameDescriptor, game: Game, seat: int, rng: random.Random) -> None:
        self.name = RANDOM
        self.rng = rng
        hooks = desc.conformance
        self.reply = hooks.random_reply if hooks is not None else None
        self.policy = None
        if self.reply is None:
            self.policy = game.make_baseline(rng.choice(list(desc.baselines)), seat)

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        if self.rng.random() < JUNK_SHARE:
            return JUNK[streams.below(self.rng, len(JUNK))]
        if self.reply is not None:
            return self.reply(turn, self.rng)
        assert self.policy is not None
        return self.policy.act(turn)


class FailingSeat:
    """Every attempt fails: the game's fallback plays every turn of this seat."""

    kind = "bot"
    name = FAILING

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        raise RuntimeError("conformance: this seat always fails")


def policy_names(desc: GameDescriptor, lineup: Sequence[str]) -> tuple[list[str], list[str]]:
    """(policy names, seat kinds) for `desc.make`: baselines are scripted seats, the rest
    remote seats named ``conformance-<i>``."""
    names, kinds = [], []
    for i, entry in enumerate(lineup):
        if entry in desc.baselines:
            names.append(entry)
            kinds.append(f"scripted:{entry}")
        else:
            names.append(f"conformance-{i}")
            kinds.append("remote")
    return names, kinds


def new_game(desc: GameDescriptor, ep: Episode) -> Game:
    names, kinds = policy_names(desc, ep.lineup)
    return desc.make(ep.variant, {}, ep.seed, names, kinds)


def seats_for(desc: GameDescriptor, game: Game, ep: Episode) -> list[Any]:
    seats: list[Any] = []
    for seat, entry in enumerate(ep.lineup):
        if entry == RANDOM:
            stream = streams.stream(f"conformance:{desc.name}:{ep.seed}:seat{seat}")
            seats.append(RandomSeat(desc, game, seat, stream))
        elif entry == FAILING:
            seats.append(FailingSeat())
        else:
            seats.append(ScriptedSeat(game.make_baseline(entry, seat), entry))
    return seats


def run(game: Game, seats: list[Any]) -> EpisodeOutcome:
    """Play `game` to its end through the real runner on virtual time."""
    return asyncio.run(run_episode(game, seats, clock=FakeClock()))


def play(desc: GameDescriptor, ep: Episode) -> tuple[Game, EpisodeOutcome]:
    """A fresh game of `ep`, played to its end by `ep`'s line-up."""
    game = new_game(desc, ep)
    return game, run(game, seats_for(desc, game, ep))


def mixed_lineup(desc: GameDescriptor, variant: str | None, seed: int) -> tuple[str, ...]:
    """Alternating baselines and random seats (at least one of each when there are two
    seats), the baselines drawn from the seed's stream."""
    n = desc.seats_of(variant, {})
    draw = streams.stream(f"conformance:{desc.name}:{seed}:lineup")
    baselines = list(desc.baselines)
    return tuple(RANDOM if i % 2 else baselines[streams.below(draw, len(baselines))]
                 for i in range(n))


def standard_episodes(desc: GameDescriptor, seeds: int) -> list[Episode]:
    """`seeds` mixed episodes on seeds 1, 2, …, cycling through the variants (a variant that
    refuses a seed or line-up, e.g. one with a fixed seed, is passed over for that seed)."""
    variants: list[str | None] = list(desc.variants) or [desc.default_variant]
    out = []
    for i in range(seeds):
        seed = i + 1
        for k in range(len(variants)):
            variant = variants[(i + k) % len(variants)]
            ep = Episode(variant, seed, mixed_lineup(desc, variant, seed))
            try:
                new_game(desc, ep)
            except ConfigError:
                continue
            out.append(ep)
            break
    return out
