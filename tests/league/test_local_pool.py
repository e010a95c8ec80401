"""The local pool's start method: fork when the driver is single-threaded, a preloaded fork
server otherwise; the episodes' stored results do not depend on it."""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cogleague.league import config as league_config
from cogleague.league import runner, store
from cogleague.league.backends.local import LocalBackend
from cogleague.league.episodes import EpisodeSpec, SeatRef
from cogleague.league.worker import play_chunk
from helpers.waiting import until

LINEUP = ("tit_for_tat", "pavlov", "always_defect", "grim_trigger")


def specs(n: int) -> list[EpisodeSpec]:
    return [EpisodeSpec(league="L", game="dilemma", variant="classic200", seed=s,
                        seats=tuple(SeatRef(p, p) for p in LINEUP),
                        overrides={"rounds_total": 5}, index=s) for s in range(n)]


def test_single_threaded_drivers_fork_and_threaded_ones_use_a_fork_server() -> None:
    alone = threading.active_count() == 1  # the test runner may run threads of its own
    threaded = "forkserver"
    assert LocalBackend(2)._context().get_start_method() == ("fork" if alone else threaded)
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait)
    helper.start()
    try:
        assert LocalBackend(2)._context().get_start_method() == threaded
    finally:
        stop.set()
        helper.join()
    assert LocalBackend(2, "spawn")._context().get_start_method() == "spawn"
    with pytest.raises(ValueError, match="start_method must be one of fork, spawn"):
        LocalBackend(2, "thread")


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_pools_store_what_one_process_computes(method: str) -> None:
    chunks = [specs(6)[i:i + 2] for i in range(0, 6, 2)]
    expected = sorted((r.id, r.results) for c in chunks for r in play_chunk(c))
    got: list[tuple[str, str | None]] = []
    LocalBackend(2, method).run(chunks, lambda recs: got.extend((r.id, r.results)
                                                               for r in recs))
    assert sorted(got) == expected and len(got) == 6  # the workers' encoded JSON, byte for byte
    assert all('"reason":"complete"' in (results or "") for _, results in got)


def test_a_dead_worker_is_an_infra_failure_of_its_chunk_and_the_pool_goes_on(
        write_league: Callable[..., Path]) -> None:
    """A worker process that dies (the out-of-memory killer, a segfault, `os._exit` in a bot)
    is the platform's failure, not the policies': the chunk it was playing is stored as
    infra_error (never ranked, rerun by `--retry-infra`), a replacement worker takes its place
    and every other chunk is played — the ones with the dying bot too, until each kills its
    worker in turn. The run's summary counts them as infra, not as failed."""
    dying = '[[policies]]\nname = "dying"\nbot = "leaguegames:DyingBot"\n'
    cfg = league_config.load(write_league(episodes=40, seats=2, extra_policies=dying))
    summary = runner.run(cfg, LocalBackend(2), chunk_size=2)
    episodes = store.load_episodes(cfg.store_url)
    assert len(episodes) == summary.played == 40
    infra = [e for e in episodes if e.status == store.STATUS_INFRA]
    assert infra and all("worker process died" in (e.error or "") for e in infra)
    assert (summary.failed, summary.infra) == (0, len(infra))
    # only a chunk with the dying bot can kill its worker: every episode without it played
    assert all(e.status == store.STATUS_OK for e in episodes if "dying" not in e.policies)
    assert any(e.status == "ok" and "dying" in e.policies for e in episodes)
    assert not runner.pending(cfg)[0]  # infra is kept by a plain rerun ...
    retry = {s.id for s in runner.pending(cfg, retry_infra=True)[0]}
    assert retry == {e.id for e in infra}  # ... and played again with --retry-infra


def test_small_chunks_are_stored_in_fewer_commits_and_none_is_lost() -> None:
    """The tail's small chunks come back one by one; the driver stores them together (up to
    COMMIT_ROWS rows, or COMMIT_AFTER_S after the oldest), never dropping one."""
    chunks = [specs(24)[i:i + 2] for i in range(0, 24, 2)]
    commits: list[list[str]] = []
    LocalBackend(2, "fork").run(chunks, lambda recs: commits.append([r.id for r in recs]))
    stored = [i for commit in commits for i in commit]
    assert sorted(stored) == sorted(s.id for c in chunks for s in c)
    assert len(stored) == len(set(stored)) == 24
    assert len(commits) < len(chunks)


def test_a_chunk_a_worker_cannot_play_stops_the_run_and_its_workers() -> None:
    """Anything `play_chunk` does not turn into failed records is a bug: the run stops with
    the worker's error, and no worker is left running."""
    broken: list[Any] = [specs(2), None]  # not a chunk: iterating it fails in the worker
    got: list[str] = []
    before = set(multiprocessing.active_children())  # other tests' workers may still be exiting
    with pytest.raises(RuntimeError, match="league worker failed on a chunk: TypeError"):
        LocalBackend(2, "fork").run(broken, lambda recs: got.extend(r.id for r in recs))
    assert not set(multiprocessing.active_children()) - before


def test_an_interrupted_pool_stops_its_workers() -> None:

    def interrupt(_: object) -> None:
        raise KeyboardInterrupt

    before = set(multiprocessing.active_children())
    with pytest.raises(KeyboardInterrupt):
        LocalBackend(2, "fork").run([specs(4)[i:i + 2] for i in range(0, 4, 2)] * 3,
                                    interrupt)
    assert not set(multiprocessing.active_children()) - before


def test_a_forked_worker_starts_without_the_drivers_engines_and_the_driver_keeps_them(
        tmp_path: Path) -> None:
    """The driver's pooled connections never cross a fork into use, and forking does not
    close them: the driver stores with the same engine after its pool ran."""
    url = store.sqlite_url(tmp_path / "s.db")
    engine = store.engine_for(url)
    chunks = [specs(4)[i:i + 2] for i in range(0, 4, 2)]
    LocalBackend(2, "fork").run(chunks, lambda recs: store.save_records(url, recs))
    assert store.engine_for(url) is engine
    assert len(store.load_episodes(url)) == 4
    read, write = multiprocessing.get_context("fork").Pipe(duplex=False)

    def child() -> None:
        write.send(url in store._ENGINES)

    proc = multiprocessing.get_context("fork").Process(target=child)
    proc.start()
    inherited = read.recv()
    proc.join()
    assert inherited is False and proc.exitcode == 0


def test_an_interrupted_pool_stores_every_chunk_that_came_back() -> None:
    """Ctrl-C while the driver stores: the chunks the workers sent back meanwhile (read by
    the pool's reader, not yet taken by the driver) are stored too, not played again."""
    import time

    chunks = [specs(200)[i:i + 2] for i in range(0, 200, 2)]
    stored: list[str] = []
    commits: list[int] = []

    def store_then_interrupt(recs: list[Any]) -> None:
        stored.extend(r.id for r in recs)
        commits.append(len(recs))
        if len(stored) == len(recs):  # the first commit: the workers finish what they hold
            time.sleep(1.0)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        LocalBackend(2, "fork").run(chunks, store_then_interrupt)
    first = commits[0]
    # each worker held IN_FLIGHT_PER_WORKER chunks of 2 episodes when the first commit began
    assert len(stored) >= first + 2 * 2 * 2, (first, len(stored))
    assert len(stored) == len(set(stored))


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_workers_dying_together_before_they_start_a_chunk_leave_no_infra_error(
        tmp_path: Path, method: str) -> None:
    """Both workers die at the same moment, each with two chunk indexes waiting in its pipe
    that it never read: no chunk was played, so none is the platform's failure. Every chunk
    goes back to the queue and the replacements play all of them."""
    from poolfaults import TrippingChunk

    chunks: list[Any] = [specs(8)[i:i + 2] for i in range(0, 8, 2)]
    chunks[-1] = TrippingChunk(chunks[-1], tmp_path, deaths=2)  # kills the first two to load
    got: dict[str, str] = {}
    LocalBackend(2, method).run(chunks, lambda recs: got.update((r.id, r.status)
                                                               for r in recs))
    assert len(got) == 8 and (tmp_path / "death1").exists()
    assert set(got.values()) == {store.STATUS_OK}, got


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_the_workers_of_a_killed_driver_exit(method: str) -> None:
    """A driver killed outright (kill -9, the out-of-memory killer) runs no clean-up: each
    worker learns it from its pipe (the driver's end closed) and exits after its chunk; none
    is left waiting for ever. A forked worker must not hold the driver's ends of the pipes
    itself, or its own pipe never ends."""
    import os
    import subprocess
    import sys
    import time

    from poolfaults import DRIVER

    here = str(Path(__file__).parent)
    code = DRIVER.format(path=[here, str(Path(here).parent)], method=method)
    # the workers inherit its stdout: read the one line, wait for the driver alone
    driver = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert driver.stdout is not None
    with driver.stdout:
        pids = [int(p) for p in driver.stdout.readline().split()]
    assert driver.wait(timeout=120) == -9 and len(pids) >= 2, pids

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):  # gone between open and read: ESRCH
            return False
        return state != "Z"

    deadline = time.monotonic() + 60  # a liveness bound, not a speed check: they exit at once
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    for pid in left:  # leave nothing behind, then fail
        with contextlib.suppress(ProcessLookupError):  # it may exit in between
            os.kill(pid, 9)
    assert not left, f"workers still running after their driver died: {left}"


def test_workers_get_their_next_chunks_while_the_driver_stores(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver's commit never holds up a worker: while the first commit is still running,
    every chunk of the run is handed out and played (a run's tail is chunks of a millisecond
    or two, a commit several)."""
    import os
    import select

    from cogleague.league import backends
    from cogleague.league.backends import local

    monkeypatch.setattr(backends, "COMMIT_ROWS", 1)  # the driver stores from the first reply
    played_read, played_write = os.pipe()

    def play_and_tell(chunk: Any) -> Any:
        rows = play_chunk(chunk)
        os.write(played_write, b".")
        return rows

    monkeypatch.setattr(local, "play_chunk", play_and_tell)  # the forked workers' too
    chunks = [specs(16)[i:i + 2] for i in range(0, 16, 2)]
    played_during_first_commit: list[int] = []

    def slow_store(_: list[Any]) -> None:
        if played_during_first_commit:
            return
        played = 0
        while played < len(chunks) and select.select([played_read], [], [], 30.0)[0]:
            played += len(os.read(played_read, 64))
        played_during_first_commit.append(played)

    try:
        LocalBackend(2, "fork").run(chunks, slow_store)
    finally:
        os.close(played_read)
        os.close(played_write)
    assert played_during_first_commit == [len(chunks)]


def test_a_worker_sends_a_chunks_rows_without_waiting_for_the_driver_to_read() -> None:
    """A worker's socket holds a large chunk's rows (about 1.3 KB an episode), so its send
    returns while the driver's reader waits for the GIL behind a commit."""
    from cogleague.league.backends.local import REPLY_BUFFER, _widen

    cap = int(Path("/proc/sys/net/core/wmem_max").read_text()) if Path(
        "/proc/sys/net/core/wmem_max").exists() else 0
    if cap < REPLY_BUFFER // 2:
        pytest.skip(f"net.core.wmem_max is {cap}: the kernel caps a socket's buffer below "
                    f"a chunk's rows")
    driver, worker = multiprocessing.get_context("fork").Pipe()
    _widen(worker)
    rows = b"x" * (REPLY_BUFFER // 4)  # a 800-episode kernel chunk's rows
    sent = threading.Thread(target=worker.send_bytes, args=(rows,), daemon=True)
    sent.start()
    sent.join(30.0)
    try:
        assert not sent.is_alive()  # nobody has read yet
        assert driver.recv_bytes() == rows
    finally:
        driver.close()
        worker.close()


def test_the_driver_goes_on_without_waiting_for_its_workers_to_stop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once every chunk is back and stored the run is over: the workers are told to stop and
    the driver returns while they are still closing their pipes (their exit is not on the
    run's clock); they then exit on their own, never terminated."""
    import os

    from cogleague.league.backends import local

    release_read, release_write = os.pipe()
    real_serve = local.serve

    def serve_slow_to_close(chunks: Any, conn: Any, playing: Any,
                            inherited: Any = ()) -> None:
        real_close = conn.close

        def close_when_released() -> None:
            os.read(release_read, 1)  # a worker slow to wake up and close its pipe
            real_close()

        conn.close = close_when_released
        real_serve(chunks, conn, playing, inherited)

    monkeypatch.setattr(local, "serve", serve_slow_to_close)  # what the forked workers run
    chunks = [specs(8)[i:i + 2] for i in range(0, 8, 2)]
    got: list[str] = []
    before = set(multiprocessing.active_children())  # other tests' workers may still be exiting
    try:
        LocalBackend(2, "fork").run(chunks, lambda recs: got.extend(r.id for r in recs))
        workers = [w for w in multiprocessing.active_children() if w not in before]
        assert len(got) == 8
        assert len(workers) == 2 and all(w.is_alive() for w in workers)
        assert not [t for t in threading.enumerate() if t.name == "league-pool-reader"]
    finally:
        os.write(release_write, b"..")
    for worker in workers:
        worker.join(30.0)
    assert [w.exitcode for w in workers] == [0, 0]  # exited on their own, not terminated
    os.close(release_read)
    os.close(release_write)


def test_a_worker_left_with_nothing_to_play_exits_while_the_others_finish(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A worker is told to stop as soon as nothing is left for it — not once every chunk is
    back — so its exit overlaps the other workers' last chunks and the driver's last commit.
    The run's last chunk waits until another worker has left its loop."""
    import os

    from cogleague.league.backends import local

    real_serve = local.serve

    def serve_and_say_so(chunks: Any, conn: Any, playing: Any, inherited: Any = ()) -> None:
        real_serve(chunks, conn, playing, inherited)
        (tmp_path / f"left-{os.getpid()}").touch()

    def play_last_after_another_left(chunk: Any) -> Any:
        if chunk[0].seed == 6:  # the last chunk: the first worker's two came back long ago
            seen = any(tmp_path.glob("left-*")) or until(
                lambda: any(tmp_path.glob("left-*")), "another worker to leave its loop")
            (tmp_path / f"saw-{bool(seen)}").touch()
        return play_chunk(chunk)

    monkeypatch.setattr(local, "serve", serve_and_say_so)  # what the forked workers run
    monkeypatch.setattr(local, "play_chunk", play_last_after_another_left)
    chunks = [specs(8)[i:i + 2] for i in range(0, 8, 2)]
    got: list[str] = []
    LocalBackend(2, "fork").run(chunks, lambda recs: got.extend(r.id for r in recs))
    assert len(got) == 8 and (tmp_path / "saw-True").exists()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_keeps_what_was_alive_at_its_start_out_of_its_collections(workers: int) -> None:
    """Collections during a run never walk the package, the config and the specs again (a
    full one was a tenth of a small league in one process): they are frozen for the run and
    thawed after it, whichever way it ends."""
    import gc

    assert gc.get_freeze_count() == 0
    frozen: list[int] = []
    LocalBackend(workers).run([specs(4)[:2], specs(4)[2:]],
                              lambda recs: frozen.append(gc.get_freeze_count()))
    assert len(frozen) >= 1 and all(n > 0 for n in frozen)
    assert gc.get_freeze_count() == 0

    def fail(recs: object) -> None:
        raise RuntimeError("the store is gone")

    with pytest.raises(RuntimeError, match="the store is gone"):
        LocalBackend(workers).run([specs(2)], fail)
    assert gc.get_freeze_count() == 0
