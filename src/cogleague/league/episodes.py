"""Episode specs and their stable ids.

An episode is identified by (league, game, variant, seed, line-up) and nothing else: the same
league definition always yields the same ids, so a resumed run can skip what is finished and a
stored result can be matched to its spec whatever backend or worker played it.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cogleague.core import jsonio
from cogleague.core.rng import RANDOM_SEED_BELOW

ID_HEX_CHARS = 20
"""80 bits of SHA-256: collisions are out of reach for any league this machine can play."""

SEED_SPACE = RANDOM_SEED_BELOW
"""Episode seeds lie below `core.rng.RANDOM_SEED_BELOW`, a range every game's `seed`
accepts."""


def episode_id(league: str, game: str, variant: str | None, seed: int,
               lineup: Sequence[str]) -> str:
    """The stable id of one episode: a hash of its identity, nothing about how it ran."""
    doc = {"league": league, "game": game, "variant": variant, "seed": seed,
           "lineup": list(lineup)}
    return hashlib.sha256(jsonio.dumps(doc).encode()).hexdigest()[:ID_HEX_CHARS]


def derive_seed(base_seed: int, game: str, variant: str | None, block: int) -> int:
    """The seed of one rotation block: every seat rotation of a base line-up shares it, so each
    policy meets the same deal from every seat (a duplicate-bridge style comparison)."""
    key = f"{base_seed}:{game}:{variant or ''}:{block}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % SEED_SPACE


@dataclass(frozen=True)
class SeatRef:
    """How one seat is filled: the league policy it belongs to and its seat string for
    `seats.factory.make_seat` (a baseline name, ``llm:PROMPT`` or ``MODULE:CLASS``)."""

    policy: str
    seat_ref: str
    model: Mapping[str, Any] | None = None  # ModelOptions fields for model seats


@dataclass(frozen=True)
class EpisodeSpec:
    """Everything a worker needs to play one episode, picklable and JSON-friendly."""

    league: str
    game: str
    variant: str | None
    seed: int
    seats: tuple[SeatRef, ...]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    python_path: tuple[str, ...] = ()
    index: int = 0  # position in the league's schedule (display order only)
    game_module: str | None = None  # a game outside the registry (`config.resolve_game`)
    source: str = "league"  # ``evaluation``: against the held-out pool (`heldout.py`)

    @property
    def lineup(self) -> list[str]:
        """Policy names by seat; duplicates carry a ``#2``, ``#3`` … mark."""
        return mark_duplicates(self.policies)[0]

    @property
    def policies(self) -> list[str]:
        return [s.policy for s in self.seats]

    @functools.cached_property
    def id(self) -> str:
        """Hashed once per spec (the schedule's pending filter, the worker and the record all
        ask; a cached value travels with the pickled spec)."""
        return episode_id(self.league, self.game, self.variant, self.seed, self.lineup)


@dataclass(frozen=True)
class Chunk(Sequence[EpisodeSpec]):
    """Episodes a worker plays in one task; with `kernel`, all of one game, variant, options
    and seat count, stepped together through the game's batch kernel (`league/batch.py`)."""

    specs: tuple[EpisodeSpec, ...]
    kernel: bool = False

    def __len__(self) -> int:
        return len(self.specs)

    def __getitem__(self, i: Any) -> Any:
        return self.specs[i]

    def __iter__(self) -> Iterator[EpisodeSpec]:
        return iter(self.specs)


def mark_duplicates(policies: Sequence[str]) -> tuple[list[str], list[int]]:
    """Line-up labels and copy indexes: the second seat of ``tft`` is ``tft#2`` (copy 1)."""
    seen: dict[str, int] = {}
    labels: list[str] = []
    copies: list[int] = []
    for name in policies:
        copy = seen.get(name, 0)
        seen[name] = copy + 1
        copies.append(copy)
        labels.append(name if copy == 0 else f"{name}#{copy + 1}")
    return labels, copies


STATUS_OK, STATUS_FAILED, STATUS_INFRA = EPISODE_STATUSES = ("ok", "failed", "infra_error")
"""``ok``: played and ranked. ``failed``: did not play to an end (a worker crashed, a game
bug); retried by the next `league run`. ``infra_error``: played to the end, but a decision
fell back for a platform reason (transport, rate budget, a disabled provider — never the
policy's fault): stored and shown, left out of rankings, rerun by ``league run
--retry-infra``."""


@dataclass
class EpisodeRecord:
    """One played (or failed) episode as the store keeps it (`status`: see
    `EPISODE_STATUSES`). Only ``ok`` episodes are ranked. `series` holds small per-round curves
    for the report (see `gamestats`)."""

    id: str
    league: str
    game: str
    variant: str | None
    seed: int
    policies: list[str]
    status: str = "ok"
    results: dict[str, Any] | None = None
    series: dict[str, Any] | None = None
    error: str | None = None
    source: str = "league"
    duration_s: float | None = None
    attempts: int = 1
    index: int = 0

    @property
    def lineup(self) -> list[str]:
        return mark_duplicates(self.policies)[0]

    @property
    def scores(self) -> list[float]:
        if not self.results:
            return []
        return [float(s) for s in self.results.get("scores", [])]

    @property
    def reason(self) -> str | None:
        return None if not self.results else self.results.get("reason")

    def encoded(self) -> EncodedRecord:
        """This outcome as the store's columns, its documents already canonical JSON."""
        return EncodedRecord(
            id=self.id, league=self.league, source=self.source, game=self.game,
            variant=self.variant, seed=self.seed, lineup=jsonio.dumps(list(self.policies)),
            policies=tuple(self.policies), status=self.status, reason=self.reason,
            results=None if self.results is None else jsonio.dumps(self.results, sort_keys=True),
            series=None if self.series is None else jsonio.dumps(self.series, sort_keys=True),
            error=self.error, attempts=self.attempts, index=self.index,
            duration_s=self.duration_s,
            scores=tuple(self.scores) if self.status == STATUS_OK else ())


def encoded_ok(spec: EpisodeSpec, results: Mapping[str, Any], series: Mapping[str, Any] | None,
               duration_s: float) -> EncodedRecord:
    """A finished episode's row straight from its documents, each encoded once: the text
    `EpisodeRecord.encoded` writes for the same documents once they have been through JSON
    (documents made of JSON's own types: string keys, lists, numbers, strings)."""
    policies = tuple(spec.policies)
    return EncodedRecord(
        id=spec.id, league=spec.league, source=spec.source, game=spec.game,
        variant=spec.variant, seed=spec.seed, lineup=jsonio.dumps(list(policies)),
        policies=policies, status=STATUS_OK, reason=results.get("reason"),
        results=jsonio.dumps(results, sort_keys=True),
        series=None if series is None else jsonio.dumps(series, sort_keys=True), error=None,
        attempts=1, index=spec.index, duration_s=duration_s,
        scores=tuple(float(s) for s in results.get("scores", ())))


@dataclass(frozen=True, slots=True)
class EncodedRecord:
    """One outcome as the driver stores it: the store's columns, documents as JSON text.

    Workers send these back instead of `EpisodeRecord`s: the encoding happens where the episode
    was played (in parallel), the pickle is a few strings rather than nested dicts, and the
    driver — the one writer, whose time per episode bounds how many workers it can keep fed —
    only inserts them."""

    id: str
    league: str
    source: str
    game: str
    variant: str | None
    seed: int
    lineup: str  # JSON list of policy names by seat
    policies: tuple[str, ...]
    status: str
    reason: str | None
    results: str | None
    series: str | None
    error: str | None
    attempts: int
    index: int
    duration_s: float | None
    scores: tuple[float, ...]  # one per seat of an ``ok`` episode (its seat rows)
