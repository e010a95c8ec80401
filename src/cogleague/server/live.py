"""A running table: the game, its seats, its streams, and the runner observer.

The observer is the durability rule in one place: each `LogEntry` (op, decisions, events) is
committed to the database FIRST, and only then are its events broadcast — every seat gets
`Event.view_for(seat)` (its own private events and restricted fields only), spectators get the
public view. A crash therefore never shows anyone a step the database does not have.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from cogleague.core import jsonio
from cogleague.core.clock import Clock, MonotonicClock
from cogleague.core.connect import ConnectWait
from cogleague.core.episode import EpisodeOutcome, EpisodeRunner
from cogleague.core.errors import IllegalAction
from cogleague.core.game import Event, Game
from cogleague.core.replay import EpisodeLog, LogEntry
from cogleague.server import forfeit, frames
from cogleague.server.channels import SeatChannel, WatchChannel
from cogleague.server.logbatch import LogWriteFault
from cogleague.server.store import Store

log = logging.getLogger("cogleague.server")

POLICY_KEYS = frozenset({"policy", "policies", "policy_name", "policy_names", "policyNames",
                         "names"})
"""Result fields that name policies (Commons Family calls them `names`): spectator-side only,
never sent to a seat."""


def event_record(event: Event) -> dict[str, Any]:
    """An event as the log stores it: data, audience and restricted fields."""
    doc: dict[str, Any] = {"event": event.to_json()}
    if event.audience is not None:
        doc["audience"] = list(event.audience)
    if event.restricted:
        doc["restricted"] = {k: list(v) for k, v in event.restricted.items()}
    return doc


def _strip_policies(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_policies(v) for k, v in value.items() if k not in POLICY_KEYS}
    if isinstance(value, list):
        return [_strip_policies(v) for v in value]
    return value


def seat_results(results: dict[str, Any] | None, seat: int, num_seats: int
                 ) -> dict[str, Any] | None:
    """What `end` tells one seat: every per-seat list cut to its own entry, policy names
    removed (results are indexed by seat, so a list of length `num_seats` is per seat)."""
    if results is None:
        return None
    own: dict[str, Any] = {"seat": seat}
    for key, value in results.items():
        if key in POLICY_KEYS:
            continue
        if isinstance(value, list) and len(value) == num_seats:
            own[key] = _strip_policies(value[seat])
        elif isinstance(value, list | dict):
            continue  # table-wide structures may name other seats' policies or notes
        else:
            own[key] = value
    return own


class Room:
    """Everyone connected to one table, from its creation to its end: a channel per seat and
    the spectators. It exists before the start, so a bot may connect, then wait for play."""

    def __init__(self, table_id: str, game_name: str, rules_version: str,
                 aliases: Sequence[str], public_config: dict[str, Any], state: str,
                 exhibition: bool = False, secrets: frozenset[str] = frozenset()) -> None:
        self.id = table_id
        self.game_name = game_name
        self.rules_version = rules_version
        self.public_config = public_config
        self.state = state
        self.game: Game | None = None
        self.channels = [SeatChannel(table_id, s, a, _not_started) for s, a in enumerate(aliases)]
        self.watch = WatchChannel(table_id, exhibition, secrets)
        self.results: dict[str, Any] | None = None

    def hello(self, channel: SeatChannel | WatchChannel) -> str:
        seat = channel.seat if isinstance(channel, SeatChannel) else None
        alias = channel.alias if isinstance(channel, SeatChannel) else None
        return channel.frame("hello", protocol=frames.PROTOCOL, game=self.game_name,
                             rules_version=self.rules_version, seat=seat, alias=alias,
                             config=self.public_config, state=self.state)

    def snapshot(self, channel: SeatChannel | WatchChannel) -> str:
        game = self.game
        played = game.rounds_played if game is not None else None
        if isinstance(channel, SeatChannel):
            return channel.frame("snapshot", state=self.state, visible_state=channel.last_view,
                                 your_turn=channel.pending_turn_frame(), rounds_played=played)
        view = channel.live_view(game.spectator_state()) if game is not None else None
        return channel.frame("snapshot", state=self.state, visible_state=view, your_turn=None,
                             rounds_played=played)

    def moved(self) -> None:
        """Another process runs the table now: every socket here is closed to reconnect."""
        for channel in self.channels:
            channel.moved()
        self.watch.moved()

    def end(self, reason: str | None, results: dict[str, Any] | None) -> None:
        """Tell every seat its own results (no policy names; an abort's `detail` too, as a
        seat connecting after the end reads them) and spectators all of them."""
        self.state = "aborted" if reason == "aborted" else "finished"
        self.results = results
        n = len(self.channels)
        for channel in self.channels:
            channel.end(reason, seat_results(results, channel.seat, n))
        self.watch.end(reason, results)


def _not_started(turn: Any, raw: Any) -> Any:
    raise IllegalAction("the table has not started", code="not_your_turn")


def broadcast(room: Room, events: Sequence[Event]) -> None:
    """Each seat gets `view_for(seat)`, spectators `view_for(None)`. An event without
    restricted fields looks the same to everyone allowed to see it, so its payload is encoded
    once for all of them (byte-identical to encoding each view)."""
    channels, watch = room.channels, room.watch
    dumps = jsonio.dumps
    for event in events:
        if not event.restricted and "kind" not in event.data:
            name, payload = dumps(event.kind), dumps(event.data)
            for channel in channels:
                if event.visible_to(channel.seat):
                    channel.push_encoded(name, payload)
            if event.audience is None:
                watch.push_encoded(name, payload)
            continue
        for channel in channels:
            view = event.view_for(channel.seat)
            if view is not None:
                channel.push_event(view)
        public = event.view_for(None)
        if public is not None:
            watch.push_event(public)


class LiveTable:
    def __init__(self, room: Room, game: Game, store: Store, *, pacing: bool,
                 clock: Clock | None = None, elapsed_s: float = 0.0) -> None:
        self.id = room.id
        self.room = room
        self.game = game
        self.store = store
        self.pacing = pacing
        self.clock = clock or MonotonicClock()
        room.game = game
        room.state = "running"
        for channel in room.channels:
            channel.parse = game.parse
        self.next_idx = 0
        self.elapsed_s = elapsed_s
        self.started = self.clock.now() - elapsed_s  # play time = clock.now() - started
        self.task: asyncio.Task[Any] | None = None
        self.row: dict[str, Any] | None = None
        """The table row and seat rows it was launched with (`TableService.launch`): the end
        reads them from here instead of the database."""
        self.seat_list: list[dict[str, Any]] = []
        self.runner_seats: list[Any] = []
        """The seats the runner plays (finish hooks read model accounting from them)."""
        self.connect: ConnectWait | None = None
        """The game's connect timeout (`core/connect.py`): the runner waits for the first
        seat before the first round."""

    # -- events ------------------------------------------------------------------------------
    def broadcast(self, events: Sequence[Event]) -> None:
        broadcast(self.room, events)

    async def observer(self, entry: LogEntry, game: Game) -> None:
        idx = self.next_idx
        self.next_idx += 1
        elapsed_ms = int((self.clock.now() - self.started) * 1000)
        doc = entry.to_json()
        try:
            await self.store.append_log(self.id, idx, doc,
                                        [event_record(e) for e in entry.events], elapsed_ms)
        except LogWriteFault as fault:  # this table's own row: whose doing was it?
            raise forfeit.blame(fault, doc, self.room.channels) from fault
        self.broadcast(entry.events)

    def restore(self, log_: EpisodeLog) -> None:
        """After a restart: rebuild every stream from the replayed log (nobody is listening
        yet, so nothing is sent; reconnecting seats resume from their `last_seq`)."""
        self.next_idx = len(log_.entries)
        self.broadcast(log_.events)

    # -- running -------------------------------------------------------------------------------
    def run(self, seats: Sequence[Any], log_: EpisodeLog | None,
            on_done: Callable[[LiveTable, EpisodeOutcome | None, BaseException | None],
                              Coroutine[Any, Any, None]]) -> None:
        self.started = self.clock.now() - self.elapsed_s
        self.runner_seats = list(seats)
        runner = EpisodeRunner(self.game, seats, self.clock, self.observer, self.pacing,
                               elapsed_s=self.elapsed_s, connect=self.connect)
        if log_ is not None:
            runner.log = log_  # resume: the runner continues after the replayed entries

        async def play() -> None:
            try:
                outcome = await runner.run()
            except asyncio.CancelledError:
                raise
            except forfeit.SeatCausedAbort as exc:  # a seat's doing, not the server's: no trace
                log.warning("table %s: %s", self.id, exc)
                await on_done(self, None, exc)
                return
            except Exception as exc:
                log.exception("table %s: the episode failed", self.id)
                await on_done(self, None, exc)
                return
            await on_done(self, outcome, None)

        self.task = asyncio.create_task(play(), name=f"table-{self.id}")
