"""Run an SDK `Bot` (or a plain callable ``turn -> action``) in-process as a seat (CLI, league,
Python API): the same class that plays on a server, held to the same rules as there.

Same deadline: the runner bounds every attempt by the game's decision timeout. A synchronous
`on_turn` runs on a daemon thread so that a slow one is cut off at the deadline like a remote
bot — the turn gets the game's timeout fallback (cause ``timeout``) and the late answer,
whenever the thread finishes, is thrown away. (Python cannot stop a running thread: a bot
stuck in a loop keeps its thread busy until the process exits, but it never delays the table.)
The threads are kept between turns (`_BotThreads`): a league plays millions of decisions, and
starting a thread for each cost more than many bots' decisions. An async `on_turn` is awaited
and cancelled at the deadline.

Same failures: an exception raised by the bot is the bot's own failure — cause ``error`` — with
its message and the traceback's last frames kept in `errors` (the results' ``faults`` section)
and shown once on stderr by the CLI.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import queue
import threading
import traceback
from collections.abc import Callable
from typing import Any

from cogleague.client.bot import Bot, TurnInfo
from cogleague.core.errors import SeatFailed
from cogleague.core.game import Game, Turn
from cogleague.core.seat import FallbackCause
from cogleague.core.text import cut_with_ellipsis

TRACEBACK_FRAMES = 3
"""How many of the traceback's last frames an `error` keeps."""
ERRORS_KEPT = 5
"""How many of a seat's exceptions the results keep (the fault counts cover every one)."""


MESSAGE_CHARS = 500
"""How much of an exception's message an `error` keeps (a bot's message may be megabytes)."""


def _message(exc: BaseException) -> str:
    """`str(exc)` cut to `MESSAGE_CHARS`; its type alone when it cannot be made (an integer
    past the 4,300-digit limit, a `__str__` that raises)."""
    try:
        text = str(exc)
    except Exception:
        return f"<{type(exc).__name__} message that cannot be shown>"
    return cut_with_ellipsis(text, MESSAGE_CHARS)


def _describe(exc: BaseException) -> str:
    """The message and the bot's own last frames (the seat's plumbing is left out)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    lines = traceback.format_list(frames[-TRACEBACK_FRAMES:])
    return f"{type(exc).__name__}: {_message(exc)}\n" + "".join(lines).rstrip()


class _CallableBot(Bot):
    """A plain function ``turn -> action`` as a bot."""

    def __init__(self, fn: Callable[[TurnInfo], Any]) -> None:
        self.fn = fn
        self.name = getattr(fn, "__name__", "callable")

    def on_turn(self, turn: TurnInfo) -> Any:
        return self.fn(turn)


def as_bot(obj: Any) -> Bot:
    """A `Bot` from a Bot instance, a Bot subclass (instantiated without arguments) or a plain
    callable taking a `TurnInfo`."""
    if isinstance(obj, Bot):
        return obj
    if isinstance(obj, type) and issubclass(obj, Bot):
        return obj()
    if callable(obj):
        return _CallableBot(obj)
    raise TypeError(f"a bot seat needs a cogleague.Bot, a Bot class or a callable (got {obj!r})")


def own_copy(value: Any) -> Any:
    """A JSON-ready value with fresh containers (dicts, lists, tuples) and its immutable
    leaves shared: what a program may edit freely (4x cheaper than `copy.deepcopy`)."""
    kind = type(value)
    if kind is dict:
        return {k: own_copy(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return kind(own_copy(v) for v in value)
    return value


def turn_info(turn: Turn, game: str, hint: str | None) -> TurnInfo:
    """What the bot reads, as its own copy: over the network each seat decodes its own JSON,
    and in process a bot that edits its view (or legal actions) must not reach the game's
    objects or another seat's view of the same round (a game may share them)."""
    return TurnInfo(turn_id=turn.turn_id, game=game, seat=turn.seat,
                    legal_actions=own_copy(turn.legal_actions),
                    visible_state=own_copy(turn.view), prompt_text=turn.prompt_text,
                    hint=hint)


class BotSeat:
    kind = "bot"  # a program, not a baseline: it gets the runner's timeouts and retries

    def __init__(self, bot: Bot, game: Game, seat: int, name: str) -> None:
        self.bot = bot
        self.game = game
        self.seat = seat
        self.name = name
        self.errors: list[dict[str, Any]] = []
        """Each exception the bot raised: ``{turn, error}`` (message + last frames)."""

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        info = turn_info(turn, self.game.name, hint)
        try:
            if inspect.iscoroutinefunction(self.bot.on_turn):
                return await self.bot.on_turn(info)
            reply = await _on_thread(self.bot.on_turn, info)
            if inspect.isawaitable(reply):
                reply = await reply
            return reply
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            detail = _describe(exc)
            if len(self.errors) < ERRORS_KEPT:
                self.errors.append({"turn": turn.turn_id, "error": detail})
            raise SeatFailed(FallbackCause.ERROR, detail) from exc


def _on_thread(fn: Callable[[TurnInfo], Any], info: TurnInfo) -> asyncio.Future[Any]:
    """Run `fn(info)` on a daemon thread; the future resolves on the event loop. Cancelling
    the future (the runner's deadline) abandons the thread's answer."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return  # cut off at the deadline: the late answer is discarded
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> Callable[[], None]:
        try:
            result = fn(info)
        except BaseException as exc:  # handed to the loop, raised there
            ok, value = False, exc
        else:
            ok, value = True, result

        def deliver() -> None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: the episode ended
                loop.call_soon_threadsafe(settle, ok, value)

        return deliver

    _THREADS.run(work)
    return future


IDLE_THREADS_KEPT = 64
"""How many idle bot threads a process keeps (more are started when that many bots decide at
once, and end when they are done)."""


Job = Callable[[], Callable[[], None]]
"""A bot's turn: it runs the bot and returns what hands its answer to the event loop."""


class _BotThreads:
    """Daemon threads that run bots' synchronous turns, each kept for the next turn once its
    call returns. A thread whose call is still running (a bot past its deadline, or stuck) is
    never given another; a process forked from this one starts with none (threads do not
    cross a fork)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: list[queue.SimpleQueue[Job]] = []

    def run(self, job: Job) -> None:
        with self.lock:
            jobs = self.idle.pop() if self.idle else None
        if jobs is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(jobs,), name="cogleague-bot",
                             daemon=True).start()
        jobs.put(job)

    def _serve(self, jobs: queue.SimpleQueue[Job]) -> None:
        while True:
            deliver = jobs.get()()
            with self.lock:  # idle before the answer is out: the bot's next turn finds it
                kept = len(self.idle) < IDLE_THREADS_KEPT
                if kept:
                    self.idle.append(jobs)
            deliver()
            if not kept:
                return

    def forget(self) -> None:
        """In a forked child: the parent's threads are not there, nor is its lock's holder."""
        self.lock = threading.Lock()
        self.idle = []


_THREADS = _BotThreads()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_THREADS.forget)
