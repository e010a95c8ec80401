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
from typing import Any, NamedTuple

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


def episode_ids(specs: Sequence[EpisodeSpec]) -> list[str]:
    """Each spec's `episode_id`, hashed from the same text spliced from parts encoded once per
    league, game and variant and once per line-up (a chunk has a handful of each and thousands
    of seeds); a seed that is not a plain int takes `EpisodeSpec.id`."""
    heads: dict[tuple[str, str, str | None], str] = {}
    tails: dict[int, str] = {}  # by the seats tuple: a schedule's specs of a line-up share one
    sha = hashlib.sha256
    out = []
    for spec in specs:
        if type(spec.seed) is not int:
            out.append(spec.id)
            continue
        key = (spec.league, spec.game, spec.variant)
        head = heads.get(key)
        if head is None:
            head = heads[key] = (f'{{"league":{jsonio.dumps(spec.league)},'
                                 f'"game":{jsonio.dumps(spec.game)},'
                                 f'"variant":{jsonio.dumps(spec.variant)},"seed":')
        tail = tails.get(id(spec.seats))
        if tail is None:
            lineup = mark_duplicates([s.policy for s in spec.seats])[0]
            tail = tails[id(spec.seats)] = f',"lineup":{jsonio.dumps(lineup)}}}'
        out.append(sha(f"{head}{spec.seed}{tail}".encode()).hexdigest()[:ID_HEX_CHARS])
    return out


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

    def like(self, seed: int, seats: tuple[SeatRef, ...], index: int, source: str
             ) -> EpisodeSpec:
        """This spec with another seed, line-up, index and source: a schedule makes one per
        episode, and the frozen dataclass's ``__init__`` sets its fields one by one through
        ``object.__setattr__`` (three times the cost of a copy of this one's fields)."""
        spec = object.__new__(EpisodeSpec)
        fields = spec.__dict__
        fields.update(self.__dict__)
        fields.pop("id", None)  # a cached id belongs to this spec only
        fields["seed"], fields["seats"], fields["index"], fields["source"] = (seed, seats, index,
                                                                              source)
        return spec

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
            error=self.error, attempts=self.attempts, schedule_index=self.index,
            duration_s=self.duration_s,
            scores=tuple(self.scores) if self.status == STATUS_OK else ())


def encoded_ok(specs: Sequence[EpisodeSpec],
               documents: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
               duration_s: float) -> list[EncodedRecord]:
    """Finished episodes' rows straight from their (results, series) documents, each encoded
    once and checked in bulk (`jsonio.dumps_many`): the text `EpisodeRecord.encoded` writes for
    the same documents once they have been through JSON (documents made of JSON's own types:
    string keys, lists, numbers, strings)."""
    results = jsonio.dumps_many([r for r, _ in documents], sort_keys=True)
    given = [s for _, s in documents if s is not None]
    encoded = iter(jsonio.dumps_many(given, sort_keys=True))
    series = [None if s is None else next(encoded) for _, s in documents]
    return encoded_rows(specs, list(zip(results, series, strict=True)),
                        [doc.get("reason") for doc, _ in documents],
                        [[float(x) for x in doc.get("scores", ())] for doc, _ in documents],
                        duration_s)


def encoded_rows(specs: Sequence[EpisodeSpec], texts: Sequence[tuple[str, str | None]],
                 reasons: Sequence[str | None], scores: Sequence[Sequence[float]],
                 duration_s: float) -> list[EncodedRecord]:
    """Finished episodes' rows from their (results, series) canonical texts (sorted keys), end
    reasons and scores. Ids are hashed and line-ups encoded in bulk, on the worker that played
    the chunk."""
    lineups: dict[int, tuple[str, tuple[str, ...]]] = {}  # by the seats tuple, as ids
    out = []
    for spec, eid, (text, curves), reason, score in zip(specs, episode_ids(specs), texts,
                                                         reasons, scores, strict=True):
        known = lineups.get(id(spec.seats))
        if known is None:
            policies = tuple([s.policy for s in spec.seats])
            known = lineups[id(spec.seats)] = (jsonio.dumps(list(policies)), policies)
        out.append(EncodedRecord(
            eid, spec.league, spec.source, spec.game, spec.variant, spec.seed, known[0],
            STATUS_OK, reason, text, curves, None, 1, spec.index, duration_s, known[1],
            tuple(score)))
    return out


class EncodedRecord(NamedTuple):
    """One outcome as the driver stores it: the store's columns, documents as JSON text.

    Workers send these back instead of `EpisodeRecord`s: the encoding happens where the episode
    was played (in parallel), the pickle is a few strings rather than nested dicts, and the
    driver — the one writer, whose time per episode bounds how many workers it can keep fed —
    only inserts them. The first `EPISODE_FIELDS` fields are the episode row's columns in the
    store's order (all but ``finished_at``, which the driver adds), so a row is a slice."""

    id: str
    league: str
    source: str
    game: str
    variant: str | None
    seed: int
    lineup: str  # JSON list of policy names by seat
    status: str
    reason: str | None
    results: str | None
    series: str | None
    error: str | None
    attempts: int
    schedule_index: int  # the spec's `index` (a field named index would hide tuple.index)
    duration_s: float | None
    policies: tuple[str, ...]
    scores: tuple[float, ...]  # one per seat of an ``ok`` episode (its seat rows)


EPISODE_FIELDS = 15
"""`EncodedRecord`'s leading fields that are episode columns (`store._EPISODE_COLUMNS`)."""
