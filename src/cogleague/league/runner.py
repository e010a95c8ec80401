"""Run a league: schedule, skip what is finished, play the rest on a backend, store as it goes.

Resumable by construction: every episode has a stable id, finished ids are read from the store
before anything runs, and what has come back is written in one transaction as it returns (one
process: each chunk; a pool or Ray: every chunk back, within a quarter of a second,
`backends.HeldRows`).
An interrupted run (Ctrl-C, a lost node) keeps everything already written; running it again
plays only the rest, and retries episodes that failed for infrastructure reasons.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import inspect, select, text

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError
from cogleague.league import identity, store
from cogleague.league.backends import Backend
from cogleague.league.config import LeagueConfig
from cogleague.league.episodes import EncodedRecord, EpisodeSpec
from cogleague.seats.faults import seat_fallbacks
from cogleague.server.sqlite_lock import DatabaseInUse, lock, sqlite_file

BACKENDS = ("local", "ray")
CHUNKS_PER_WORKER = 4
MAX_CHUNK = 64
MIN_CHUNK = 2
WORKERS_MAX = 1024
CHUNK_SIZE_MAX = 1_000_000
"""A chunk is held whole by one worker and sent back at once: this bounds its memory."""

Progress = Callable[[int, int], None]
"""Called after each stored chunk with (episodes done so far in this run, of which not ``ok``:
failed or infra_error)."""


@dataclass
class RunSummary:
    scheduled: int
    skipped: int  # already finished before this run
    played: int
    failed: int  # did not play to an end (retried by the next run)
    seconds: float
    infra: int = 0  # played, but the platform failed a seat (rerun with retry_infra)
    fallbacks: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per policy, its decisions in this run that the game's fallback played, by cause."""

    @property
    def rate(self) -> float:
        return self.played / self.seconds if self.seconds > 0 else 0.0


def make_backend(name: str, workers: int, ray_address: str | None = None) -> Backend:
    if name not in BACKENDS:
        raise ConfigError("backend", f"backend must be one of {', '.join(BACKENDS)} "
                                     f"(got {name!r})")
    if isinstance(workers, bool) or not 1 <= workers <= WORKERS_MAX:
        raise ConfigError("workers", f"workers must be an integer in 1..{WORKERS_MAX} "
                                     f"(got {workers!r})")
    if name == "ray":
        from cogleague.league.backends.ray_backend import RayBackend

        return RayBackend(workers, ray_address)
    if ray_address is not None:
        raise ConfigError("ray_address", "ray_address applies to the ray backend only")
    from cogleague.league.backends.local import LocalBackend

    return LocalBackend(workers)


def chunked(specs: Sequence[EpisodeSpec], workers: int, chunk_size: int | None = None,
            min_chunk: int = MIN_CHUNK) -> list[list[EpisodeSpec]]:
    """Chunks of at most MAX_CHUNK episodes (steady progress, bounded memory).

    One worker gets even chunks. A pool gets guided ones: each chunk is 1/(workers ×
    CHUNKS_PER_WORKER) of what remains, so chunks shrink towards the end (down to `min_chunk`,
    the backend's smallest worth a task) and the workers finish together — with even
    64-episode chunks one worker could still be playing a whole chunk (a quarter of a second or
    more) while the other sat idle."""
    if not specs:
        return []
    n = len(specs)
    if chunk_size or workers == 1:
        size = chunk_size or max(1, min(MAX_CHUNK, math.ceil(n / CHUNKS_PER_WORKER)))
        return [list(specs[i:i + size]) for i in range(0, n, size)]
    chunks: list[list[EpisodeSpec]] = []
    start = 0
    while start < n:
        size = max(min_chunk, min(MAX_CHUNK, (n - start) // (workers * CHUNKS_PER_WORKER)))
        chunks.append(list(specs[start:start + size]))
        start += size
    return chunks


def check_models(config: LeagueConfig) -> None:
    """Every model policy's provider, checked once before any episode is played: a missing
    key, a refused key or an unreachable endpoint is a `ConfigError` naming the policy."""
    from cogleague.seats.factory import ModelOptions
    from cogleague.seats.llm.preflight import check_provider

    seen: set[tuple[Any, ...]] = set()
    for policy in config.policies:
        options = config.model_options_for(policy)  # a pure replay skips the check
        if options is None or tuple(options.values()) in seen:
            continue
        seen.add(tuple(options.values()))
        try:
            check_provider(ModelOptions(**options))
        except ConfigError as exc:  # the provider check speaks of play's flag; a league has keys
            words = str(exc).replace("--base-url", "base_url = \"…\" in the policy")
            raise ConfigError(f"policies.{policy.name}", f"policy {policy.name}: {words}"
                              ) from exc


def game_options(config: LeagueConfig) -> dict[tuple[str, str | None], str]:
    """Each game and variant's overrides as canonical JSON."""
    return {(g.name, v): jsonio.dumps(dict(g.overrides), sort_keys=True)
            for g in config.games for v in g.variants}


def check_options(config: LeagueConfig) -> None:
    """A `ConfigError` naming ``games[i].overrides`` when the store played one of the league's
    games and variants with other options: episode ids hash no options, so its finished
    episodes would pass for episodes of these and never be played again. Likewise for another
    seed, other seats or a redefined policy (`identity.check`)."""
    stored = store.stored_options(config.store_url, config.name)
    options = game_options(config)
    for i, entry in enumerate(config.games):
        for variant in entry.variants:
            now = options[(entry.name, variant)]
            before = stored.get((entry.name, variant))
            if before is not None and before != now:
                raise ConfigError(
                    f"games[{i}].overrides",
                    f"games[{i}].overrides must stay {before} for {entry.name} "
                    f"{variant or 'default'} (got {now}): league {config.name!r} was played "
                    "with those in this store; restore them, or give the league a new "
                    "league.name or league.store")
    identity.check(config)


def check_season(config: LeagueConfig) -> None:
    """A `ConfigError` naming ``league.name`` when the store is a server's database hosting a
    season of that name: the server records each finished season table in the league tables
    under the season's id (`server/payouts.record_league`), so this run's episodes would count
    in the season's standings; likewise for ``server``, the league it records every other
    table under. A store without the server's tables is not read."""
    from cogleague.server.league_schema import seasons

    engine = store.engine_for(config.store_url)
    if not inspect(engine).has_table(seasons.name):
        return
    if config.name == store.SERVER_LEAGUE:
        raise ConfigError("league.name", f"league.name {config.name!r} is the league this server "
                                         "database records its tables under: its episodes "
                                         "would be ranked with the server's tables; give the "
                                         "league another league.name, or another league.store")
    with engine.connect() as conn:
        hosted = conn.execute(select(seasons.c.id).where(seasons.c.id == config.name)).first()
    if hosted is not None:
        raise ConfigError("league.name", f"league.name {config.name!r} is a season this server "
                                         "database hosts: its episodes would count in the "
                                         "season's standings; give the league another "
                                         "league.name, or another league.store")


def pending(config: LeagueConfig, *, retry_infra: bool = False
            ) -> tuple[list[EpisodeSpec], int]:
    """The specs still to play (with `retry_infra`, ``infra_error`` ones too), and the size of
    the whole schedule; refused (`check_options`) when the store played other options."""
    check_options(config)
    schedule = config.schedule()
    done = store.finished_ids(config.store_url, league=config.name, retry_infra=retry_infra)
    if not done:  # a new league: no id hashed here (workers hash theirs, in bulk)
        return schedule, len(schedule)
    return [s for s in schedule if s.id not in done], len(schedule)


def run(config: LeagueConfig, backend: Backend, *, progress: Progress | None = None,
        chunk_size: int | None = None, limit: int | None = None,
        retry_infra: bool = False, engine: str = "auto") -> RunSummary:
    """Play every unfinished episode of `config` (at most `limit` of them) on `backend`: those
    whose seats all have a batch twin in kernel chunks (`engine` auto or batch,
    `league/batch.py`), the rest through the rules engine; holding the store's one-writer
    lock (an SQLite file a server is writing is refused); refused (`check_season`) in a
    server's database that hosts a season of the league's name."""
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(
            chunk_size, int) or not 1 <= chunk_size <= CHUNK_SIZE_MAX):  # 0 was "automatic"
        raise ConfigError("chunk_size", f"chunk_size must be an integer in 1..{CHUNK_SIZE_MAX} "
                                        f"(got {chunk_size!r})")
    with writer_lock(config.store_url, config.name):  # first: check_season makes the store
        check_season(config)
        return _run(config, backend, progress, chunk_size, limit, retry_infra, engine)


@contextlib.contextmanager
def writer_lock(store_url: str, league: str) -> Iterator[None]:
    """For the length of a run: on SQLite the lock `cogleague serve` holds on its file
    (`server/sqlite_lock.py`), so two writers never share a file; on PostgreSQL, which serves
    many, a session advisory lock on the league's name, so two runs of one league never play
    and store the same episodes (it ends with its session, even on SIGKILL). Re-entrant in one
    process: the CLI holds it from its first read of the store, around `run`."""
    key = (store_url, league)
    if _HELD.get(key):
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    _HELD[key] = 1
    try:
        with _sqlite_lock(store_url) as held:
            if held:
                yield
            else:
                with _advisory_lock(store_url, league):
                    yield
    finally:
        del _HELD[key]


_HELD: dict[tuple[str, str], int] = {}
"""The writer locks this process holds, by store and league, with how deep they are nested."""


@contextlib.contextmanager
def _sqlite_lock(store_url: str) -> Iterator[bool]:
    """Hold an SQLite store's process lock (yields False for another database). A new file is
    made (empty, which SQLite reads as a new database) before the lock is taken, so the lock
    covers the file's identity from its first moment, not only the name it was given: a run on
    another name of the file (a hard link) is refused too."""
    file = sqlite_file(store_url)
    if file is not None:
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(file, os.O_RDONLY | os.O_CREAT, 0o644))  # an existing one: as is
        except OSError as exc:
            raise ConfigError("store", f"store: cannot make the SQLite database {file} "
                                       f"({exc.strerror or exc})") from None
    try:
        handle = lock(store_url)
    except DatabaseInUse as exc:
        raise ConfigError("store", f"store: {exc}") from None
    if handle is None:
        yield False
        return
    try:
        yield True
    finally:
        handle.close()


@contextlib.contextmanager
def _advisory_lock(store_url: str, league: str) -> Iterator[None]:
    """On PostgreSQL a session advisory lock on the league's name; elsewhere nothing."""
    engine = store.engine_for(store_url)
    if engine.dialect.name != "postgresql":
        yield
        return
    key = int.from_bytes(hashlib.sha256(f"cogleague league {league}".encode()).digest()[:8],
                         "big", signed=True)
    with engine.connect() as conn:
        if not conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar():
            raise ConfigError("store", f"store: league {league!r} is being run by another "
                                       "process on this database; wait for it or stop it")
        conn.commit()
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
            conn.commit()


def _run(config: LeagueConfig, backend: Backend, progress: Progress | None,
         chunk_size: int | None, limit: int | None, retry_infra: bool,
         engine: str) -> RunSummary:
    from cogleague.league import batch

    todo, scheduled = pending(config, retry_infra=retry_infra)
    if todo:  # first: a run refused here (a missing API key) records no options or facts
        check_models(config)  # that the fixed file would then contradict
    skipped = scheduled - len(todo)
    if limit is not None:
        todo = todo[:limit]
    fast, todo = batch.split(todo, engine)  # --engine batch refused: nothing recorded either
    store.save_policies(config.store_url, config.name,
                        [p.book_entry() for p in config.policies])
    store.save_options(config.store_url, config.name, game_options(config))
    store.save_facts(config.store_url, config.name, identity.facts(config))
    counts = {"done": 0, "failed": 0, "infra": 0}
    fallbacks: dict[str, dict[str, int]] = {}

    def on_chunk(records: list[EncodedRecord]) -> None:
        store.save_records(config.store_url, records)
        counts["done"] += len(records)
        counts["failed"] += sum(1 for r in records if r.status != store.STATUS_OK)
        counts["infra"] += sum(1 for r in records if r.status == store.STATUS_INFRA)
        for r in records:  # a results document keeps `faults` only when a seat fell back
            if r.results is not None and '"faults":' in r.results:
                _add_fallbacks(fallbacks, r.policies, json.loads(r.results))
        if progress is not None:
            progress(counts["done"], counts["failed"])

    started = time.perf_counter()
    # kernel chunks first (the largest), then the rules engine's, shrinking towards the end
    chunks: list[Sequence[EpisodeSpec]] = [*batch.chunks(fast, backend.workers),
                                           *chunked(todo, backend.workers, chunk_size,
                                                    backend.min_chunk)]
    backend.run(chunks, on_chunk)
    return RunSummary(scheduled=scheduled, skipped=skipped, played=counts["done"],
                      failed=counts["failed"] - counts["infra"],
                      seconds=time.perf_counter() - started, infra=counts["infra"],
                      fallbacks=fallbacks)


def _add_fallbacks(into: dict[str, dict[str, int]], policies: Sequence[str],
                   results: dict[str, Any]) -> None:
    """Add an episode's fallbacks (its results' ``faults``) to `into`, per policy and cause."""
    for policy, (causes, _) in zip(policies, seat_fallbacks(results), strict=False):
        mine = into.setdefault(policy, {})
        for cause, count in causes.items():
            mine[cause] = mine.get(cause, 0) + count
