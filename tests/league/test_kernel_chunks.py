"""Kernel chunks in the league: the default engine's batch episodes go to the backend's workers
like any other chunk, and a pool stores, byte for byte, what one process and the rules engine
store; chunks never mix games, variants, options or seat counts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leaguefiles import KERNEL_LEAGUE, stored_rows

from cogleague.league import batch, runner, store
from cogleague.league import config as league_config
from cogleague.league.backends import OnChunk
from cogleague.league.backends.local import LocalBackend
from cogleague.league.episodes import Chunk, EpisodeSpec, SeatRef, episode_ids


class Recording(LocalBackend):
    """The local backend, keeping the chunks it was handed."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.chunks: list[Sequence[EpisodeSpec]] = []

    def run(self, chunks: Sequence[Sequence[EpisodeSpec]], on_chunk: OnChunk) -> None:
        self.chunks = list(chunks)
        super().run(chunks, on_chunk)


def _load(tmp_path: Path, name: str, episodes: int = 12) -> league_config.LeagueConfig:
    path = tmp_path / f"{name}.toml"
    path.write_text(KERNEL_LEAGUE.format(episodes=episodes), encoding="utf-8")
    return league_config.load(path)


def test_auto_engine_kernel_chunks_on_a_pool_store_what_one_process_stores(
        tmp_path: Path) -> None:
    pool, one, rules = Recording(2), Recording(1), Recording(2)
    runs = {name: _load(tmp_path, name) for name in ("pool", "one", "rules")}
    for name, backend, engine in (("pool", pool, "auto"), ("one", one, "auto"),
                                  ("rules", rules, "rules")):
        summary = runner.run(runs[name], backend, engine=engine)
        assert summary.failed == 0 and summary.played == 12 * 2 + 6
    kernel = [c for c in pool.chunks if isinstance(c, Chunk) and c.kernel]
    # the pool's workers played the kernel chunks; promise_keeper seats went to the rules engine
    assert kernel and sum(len(c) for c in kernel) < 30
    assert not any(isinstance(c, Chunk) and c.kernel for c in rules.chunks)
    played = [s for c in kernel for s in c]
    assert all(s.seats and all(r.seat_ref != "promise_keeper" for r in s.seats) for s in played)
    assert stored_rows(runs["pool"].store_url) == stored_rows(runs["one"].store_url)
    assert stored_rows(runs["pool"].store_url) == stored_rows(runs["rules"].store_url)
    assert len(stored_rows(runs["pool"].store_url)) == 30


def test_kernel_chunks_hold_one_game_variant_and_seat_count_and_are_bounded(
        tmp_path: Path) -> None:
    specs = _load(tmp_path, "chunks", episodes=5000).schedule()
    fast, slow = batch.split(specs, "auto")
    assert fast and slow
    chunks = batch.chunks(fast, 2)
    assert sum(len(c) for c in chunks) == len(fast)
    assert sorted(s.id for c in chunks for s in c) == sorted(s.id for s in fast)
    for chunk in chunks:
        assert chunk.kernel
        assert len({(s.game, s.variant, len(s.seats)) for s in chunk}) == 1
        assert len(chunk) <= batch.CHUNK
    for variant in ("standard", "classic200"):
        group = [c for c in chunks if c[0].game == "dilemma" and c[0].variant == variant]
        # more than two minimum chunks' worth: cut so both workers play, none tiny
        assert sum(len(c) for c in group) > 2 * batch.MIN_CHUNK
        assert len(group) >= 2 and all(len(c) >= batch.MIN_CHUNK for c in group[:-1])


@pytest.mark.parametrize("engine", ["auto", "batch"])
def test_a_resumed_kernel_league_plays_only_the_rest(tmp_path: Path, engine: str) -> None:
    cfg = _load(tmp_path, f"resume-{engine}")
    if engine == "batch":
        with pytest.raises(Exception, match="promise_keeper"):
            runner.run(cfg, LocalBackend(2), engine=engine)
        return
    first = runner.run(cfg, LocalBackend(2), engine=engine, limit=10)
    rest = runner.run(cfg, LocalBackend(2), engine=engine)
    assert (first.played, rest.skipped, rest.played) == (10, 10, 20)


def test_a_kernel_that_raises_fails_its_chunk_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Like a game bug in the rules engine: the chunk's episodes are stored as failed with the
    error (retried by the next run), the other chunks are stored as usual."""
    def broken(specs: Sequence[EpisodeSpec]) -> list[Any]:
        raise FloatingPointError("kernel overflow")

    monkeypatch.setattr(batch, "play_chunk", broken)
    cfg = _load(tmp_path, "broken")
    summary = runner.run(cfg, LocalBackend(1))
    fast, slow = batch.split(cfg.schedule(), "auto")
    assert (summary.played, summary.failed) == (30, len(fast)) and slow
    episodes = store.load_episodes(cfg.store_url)
    failed = [e for e in episodes if e.status == "failed"]
    assert len(failed) == len(fast)
    assert all((e.error or "").startswith("batch kernel: FloatingPointError: kernel overflow")
               for e in failed)
    assert sum(e.status == "ok" for e in episodes) == len(slow)
    monkeypatch.undo()
    again = runner.run(cfg, LocalBackend(1))
    assert (again.played, again.failed) == (len(fast), 0)


def test_an_interrupted_kernel_league_resumes_to_what_one_run_stores(tmp_path: Path) -> None:
    """Ctrl-C after the first stored chunk keeps it; the next run hashes ids again (the store
    is no longer empty), skips them and stores the rest, equal to one uninterrupted run."""
    cfg, fresh = _load(tmp_path, "cut", episodes=1200), _load(tmp_path, "whole", episodes=1200)

    def interrupt(done: int, failed: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.run(cfg, LocalBackend(1), progress=interrupt)
    kept = store.finished_ids(cfg.store_url)
    assert 0 < len(kept) < 1200 * 2 + 6
    rest = runner.run(cfg, LocalBackend(2))
    assert (rest.skipped, rest.failed) == (len(kept), 0)
    runner.run(fresh, LocalBackend(2))
    assert stored_rows(cfg.store_url) == stored_rows(fresh.store_url)


names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(names, st.none() | names, st.integers(0, 2**62),
                          st.lists(st.sampled_from(["a", 'q"', "é", "b\\"]), min_size=1,
                                   max_size=4)), min_size=1, max_size=8))
def test_bulk_hashed_ids_are_each_specs_id(rows: list[tuple[str, str | None, int,
                                                                list[str]]]) -> None:
    specs = [EpisodeSpec(league=league, game="g", variant=variant, seed=seed,
                         seats=tuple(SeatRef(p, "x") for p in lineup))
             for league, variant, seed, lineup in rows]
    assert episode_ids(specs) == [s.id for s in specs]
