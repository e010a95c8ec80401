"""The default backend: this process (1 worker) or a pool of worker processes over chunks.

The workers start once, when the pool opens, and stay for the whole run. Each holds the run's
chunks (a forked worker shares the driver's, a spawned one receives them once as it starts),
takes the index of its next chunk from its own pipe and sends back that chunk's encoded rows.
Messages to a worker are a few bytes, so the driver never waits on a worker to read. A reader
thread takes the workers' rows as they arrive and hands the worker its next chunk at once, so a
worker never waits on the driver's commit either: not for its next chunk (a run's tail is chunks
of a millisecond or two, a commit takes several) and not to send its rows (each worker's socket
buffer holds a chunk's rows, so its send returns while the driver's reader waits for the GIL).
`concurrent.futures`' pool moves each chunk through a management thread and a queue feeder
besides, and pickles its specs: in a league of a few hundred episodes that costs the pool about
a tenth of its CPU, more than the driver's store.

Workers are forked when the driver runs a single thread (then nothing can hold a lock across
the fork). A forked worker starts with none of the driver's database engines (`store` forgets
them in the child, never closing the driver's connections, so the driver keeps its own) and
with every module already imported, where a spawned one re-imports the package, the games and
SQLAlchemy first — about a second of CPU per worker, which in a league of a few
thousand episodes was as much as the episodes themselves. With other threads running (a
server) the pool forks its workers from a fork server that imported the worker's modules once
(a preloaded pool); where neither exists, workers are spawned. The CLI's progress bar draws
from the driver's own thread, so it never stands in the way of fork.

At most `IN_FLIGHT_PER_WORKER` chunks per worker are in flight, so memory stays flat for any
league size. If a worker process dies (the out-of-memory killer, a segfault, a bot's
`os._exit`), the platform failed, not the policies: the chunk it was playing is stored as
``infra_error`` (never ranked, played again by ``league run --retry-infra``), the chunks it
never started go back to the queue (each worker writes the index of the chunk it plays to a
shared-memory value: the driver knows which one that was without a message per chunk), and
a replacement worker takes its place — from the fork server or spawned while the reader
threads run (`default_method`), so no fork copies a thread.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.popen_fork  # imported with the pool, not while its first worker waits
import multiprocessing.sharedctypes
import os
import queue
import signal
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from cogleague.league.backends import HeldRows, OnChunk
from cogleague.league.episodes import STATUS_INFRA, EncodedRecord, EpisodeSpec
from cogleague.league.worker import error_text, failed_records, play_chunk

IN_FLIGHT_PER_WORKER = 2  # one playing, one waiting in its pipe
REPLY_BUFFER = 4 << 20  # a worker's socket send buffer (the kernel caps it at net.core.wmem_max)
START_METHODS = ("fork", "spawn", "forkserver")
PRELOAD = ("cogleague.league.worker", "cogleague.games.registry")
STOP_GRACE_S = 5.0  # how long a finished worker may take to exit before it is terminated

IDLE = -1
"""A worker's `playing` value between chunks."""

Reply = tuple[int, list[EncodedRecord] | None, str | None]
"""What a worker sends for a chunk: its index, and its rows or why it could not play it."""


def default_method() -> str:
    """fork from a single-threaded driver, else a preloaded fork server, else spawn."""
    available = multiprocessing.get_all_start_methods()
    if "fork" in available and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in available else "spawn"


def serve(chunks: Sequence[Sequence[EpisodeSpec]], conn: Connection, playing: Any,
          inherited: Sequence[int] = ()) -> None:
    """A worker process: play the chunk whose index arrives and send back its rows, until the
    driver sends None or goes away. `playing` (shared memory, `IDLE` between chunks) names
    the chunk it plays, for the driver to read if it dies. `inherited`: the driver's ends of
    the pipes, which a forked worker holds too and closes first — else its own pipe would
    never end when the driver is killed, and it would wait for ever. Ctrl-C is the driver's
    to handle: it stops the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for fd in inherited:
        with contextlib.suppress(OSError):
            os.close(fd)
    try:
        while (index := conn.recv()) is not None:
            playing.value = index
            reply: Reply
            try:
                reply = (index, play_chunk(chunks[index]), None)
            except Exception as exc:  # play_chunk records an episode's or kernel's failure
                reply = (index, None, error_text(exc))
            conn.send(reply)
            playing.value = IDLE  # sent first: a death in between is read after this reply
        conn.close()  # the driver's reader sees the end now, not after this process's exit
    except (EOFError, OSError):  # the driver is gone: nobody is left to play for
        return


class LocalBackend:
    name = "local"
    min_chunk = 2  # a chunk costs the pool a few bytes down a pipe and its rows back

    def __init__(self, workers: int = 1, start_method: str | None = None) -> None:
        self.workers = max(1, workers)
        if start_method is not None and start_method not in START_METHODS:
            raise ValueError(f"start_method must be one of {', '.join(START_METHODS)} "
                             f"(got {start_method!r})")
        self.start_method = start_method

    def _context(self, method: str | None = None) -> multiprocessing.context.BaseContext:
        method = method or self.start_method or default_method()
        context = multiprocessing.get_context(method)
        if method == "forkserver":
            # the fork server imports these once; every worker is forked from it ready to play
            context.set_forkserver_preload(list(PRELOAD))
        return context

    def run(self, chunks: Sequence[Sequence[EpisodeSpec]], on_chunk: OnChunk) -> None:
        with frozen_heap():
            if self.workers == 1:
                for chunk in chunks:
                    on_chunk(play_chunk(chunk))
                return
            chunks = list(chunks)
            if not chunks:
                return
            context = self._context()
            # a replacement for a dead worker: never forked while the pool's readers run
            replacement = ((lambda: self._context(default_method()))
                           if context.get_start_method() == "fork" else (lambda: context))
            with _Pool(context, min(self.workers, len(chunks)), chunks, replacement) as pool:
                pool.play(on_chunk)


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """For a run: everything alive when it starts (the package, the config, the run's specs)
    moves to the garbage collector's permanent generation, so no collection during the run
    walks it again — a full one took 30 ms of a 0.26 s league in one process — and a forked
    worker's collections never write to the objects it inherited: the driver's heap stays
    shared instead of being copied page by page into each worker (about 70 % of the workers'
    page faults in a 600-episode league)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class _Pool:
    """Worker processes, each with its own pipe, and the threads that read their replies (one
    for the first workers, one more for each replacement)."""

    def __init__(self, context: multiprocessing.context.BaseContext, workers: int,
                 chunks: list[Sequence[EpisodeSpec]],
                 replacement: Callable[[], multiprocessing.context.BaseContext]) -> None:
        self.chunks = chunks
        self.replacement = replacement
        self.todo = deque(range(len(chunks)))
        self.conns: list[Connection] = []
        self.procs: list[Any] = []
        self.playing: list[Any] = []  # each worker's chunk at play (shared memory), or IDLE
        self.dead: set[Connection] = set()
        self.stopped: set[Connection] = set()  # told to exit: nothing was left for them
        self.in_flight: dict[Connection, deque[int]] = {}
        self.replies: queue.SimpleQueue[tuple[Connection, Reply | None]] = queue.SimpleQueue()
        self.taken: deque[tuple[Connection, Reply | None]] = deque()  # out of it, not handled
        self.readers: list[threading.Thread] = []
        self.replaced = 0
        self.left = len(chunks)  # chunks not yet back (as rows, or stored as infra)
        # todo and in_flight: the readers hand out chunks, the driver's thread takes them back
        # from a dead worker; a reply is queued before its chunk leaves in_flight's count
        self.lock = threading.Lock()
        try:
            for _ in range(workers):
                self._start(context)  # it plays while the next worker starts
        except BaseException:
            self.close(graceful=False)
            raise
        self._listen(self.conns)  # started after the last fork: no worker inherits a thread

    def __enter__(self) -> _Pool:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.close(graceful=kind is None)

    def _start(self, context: multiprocessing.context.BaseContext) -> Connection:
        """A worker and its pipe, given its first chunks."""
        mine, theirs = context.Pipe()
        _widen(theirs)
        playing = context.RawValue("q", IDLE)  # the chunk it plays, read if it dies
        forked = context.get_start_method() == "fork"  # a copy of every open descriptor
        inherited = tuple(c.fileno() for c in [*self.conns, mine]) if forked else ()
        # every concrete context has Process; typeshed's BaseContext does not say so
        proc = context.Process(  # type: ignore[attr-defined]
            target=serve, args=(self.chunks, theirs, playing, inherited), daemon=True)
        proc.start()
        theirs.close()  # the worker's end lives in the worker: its exit is our EOF
        self.conns.append(mine)
        self.procs.append(proc)
        self.playing.append(playing)
        with self.lock:
            self.in_flight[mine] = deque()
            self._give(mine)
        return mine

    def _listen(self, conns: Sequence[Connection]) -> None:
        reader = threading.Thread(target=self._read, args=(list(conns),),
                                  name="league-pool-reader", daemon=True)
        reader.start()
        self.readers.append(reader)

    def _read(self, live: list[Connection]) -> None:
        """Take every reply as it arrives and give its worker the next chunk (a worker never
        waits on the driver's commit); None after a worker's pipe closes (it exited or died).
        A worker that has nothing left to play is told to stop at once, so it exits while the
        others finish and the driver stores the last rows, not after; once every chunk is back
        the reader is done."""
        while live:
            for conn in wait(live):
                assert isinstance(conn, Connection)
                try:
                    reply: Reply = conn.recv()
                except (EOFError, OSError):
                    live.remove(conn)
                    self.replies.put((conn, None))
                    continue
                with self.lock:
                    self.replies.put((conn, reply))
                    self.in_flight[conn].remove(reply[0])
                    if reply[2] is None:  # a worker that failed a chunk gets no more
                        self._give(conn)
                    if not self.todo and not self.in_flight[conn]:
                        self._stop(conn)
                    if not self.todo and not any(self.in_flight.values()):
                        return  # every chunk is back

    def _give(self, conn: Connection) -> None:
        """Send `conn`'s worker chunks until it holds its share (with `lock` held)."""
        queued = self.in_flight[conn]
        while self.todo and len(queued) < IN_FLIGHT_PER_WORKER:
            index = self.todo.popleft()
            try:
                conn.send(index)
            except OSError:  # the worker is gone: the end of its pipe, read next, replaces it
                self.todo.appendleft(index)
                return
            queued.append(index)

    def _stop(self, conn: Connection) -> None:
        """Tell `conn`'s worker to exit, once (with `lock` held)."""
        if conn not in self.stopped:
            self.stopped.add(conn)
            with contextlib.suppress(OSError):  # already gone
                conn.send(None)

    def play(self, on_chunk: OnChunk) -> None:
        """Hand out every chunk and store what comes back (`HeldRows`: what is back, in one
        transaction, once enough is held or it has waited long enough). An interrupted run
        still stores every row that came back."""
        held = HeldRows(on_chunk)
        try:
            while self.left:
                taken = self.taken
                with contextlib.suppress(queue.Empty):
                    taken.append(self.replies.get(timeout=held.wait_s()))
                    while True:
                        taken.append(self.replies.get_nowait())
                while taken:
                    conn, reply = taken.popleft()
                    if reply is None:  # its pipe closed: the worker exited
                        self._lost(held, conn)
                        continue
                    _, rows, error = reply
                    if error is not None:
                        raise RuntimeError(f"league worker failed on a chunk: {error}")
                    assert rows is not None
                    held.add(rows)
                    self.left -= 1
                if held.due() or not self.left:
                    held.flush()
        finally:
            self._drain(held)
            held.flush()

    def _drain(self, held: HeldRows) -> None:
        """Hold the rows of every reply back that the driver has not handled (an interrupted
        run stores what came back instead of playing it again)."""
        with contextlib.suppress(queue.Empty):
            while True:
                self.taken.append(self.replies.get_nowait())
        for _, reply in self.taken:
            if reply is not None and reply[1] is not None:
                held.add(reply[1])
        self.taken.clear()

    def _lost(self, held: HeldRows, dead: Connection) -> None:
        """A worker died: the chunk it was playing (its `playing` value, if that is one it
        did not send back) is stored as infra_error; the ones it never started — waiting in
        its pipe, or all of them when it died between chunks or before its first — go back to
        the queue, and a replacement takes its place — at most one per chunk, after which what
        no worker is left to play is infra_error too."""
        self.dead.add(dead)
        if dead in self.stopped or (not self.in_flight[dead] and not self.todo):
            return  # it was told to exit, or had nothing left to do (a reader gives only to
            # a live pipe)
        slot = self.conns.index(dead)
        proc = self.procs[slot]
        proc.join(1.0)
        why = f"worker process died (exit code {proc.exitcode})"
        with self.lock:
            queued = self.in_flight[dead]
            playing = self.playing[slot].value
            if playing in queued:  # a chunk it sent back is no longer queued: not at play
                queued.remove(playing)
                self._infra(held, playing, why)
            self.todo.extendleft(reversed(queued))
            queued.clear()
        if self.todo and self.replaced < len(self.chunks):
            self.replaced += 1
            self._listen([self._start(self.replacement())])
        with self.lock:
            for conn in self.conns:  # a live worker left idle takes its share of the rest
                if conn not in self.dead and conn not in self.stopped:
                    self._give(conn)
            if self.todo and not any(self.in_flight.values()):
                for index in self.todo:
                    self._infra(held, index, why)
                self.todo.clear()

    def _infra(self, held: HeldRows, index: int, why: str) -> None:
        """Chunk `index`, lost with its worker: stored as infra_error, never played here."""
        held.add(failed_records(self.chunks[index], why, STATUS_INFRA))
        self.left -= 1

    def close(self, *, graceful: bool) -> None:
        """Stop the workers: told to finish after a clean run, terminated otherwise. A worker
        that was told closes its pipe and exits on its own; the driver waits neither for that
        nor for its exit (a few milliseconds of waking up and tearing down its memory, on the
        run's clock), multiprocessing reaps it."""
        if graceful:
            with self.lock:  # a replacement's reader may still be telling its worker
                for conn in self.conns:
                    self._stop(conn)  # those the readers have not told yet
            for reader in self.readers:
                # done once every chunk was back; a replacement's reader, when its worker's
                # pipe closes
                reader.join(STOP_GRACE_S)
            graceful = not any(reader.is_alive() for reader in self.readers)
        if not graceful:
            for proc in self.procs:
                if proc.is_alive():
                    proc.terminate()
                proc.join()
            for reader in self.readers:
                reader.join()  # the workers' pipes closed with them
        for conn in self.conns:
            conn.close()


def _widen(conn: Connection) -> None:
    """Let a worker's socket hold a whole chunk's rows (`REPLY_BUFFER`), so its send returns
    at once: the driver's reader then takes them when it next holds the GIL, which a commit can
    keep for a few milliseconds. A pipe that is not a socket (Windows) is left as it is."""
    try:
        sock = socket.socket(fileno=conn.fileno())
    except OSError:
        return
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, REPLY_BUFFER)
    except OSError:
        pass
    finally:
        sock.detach()
