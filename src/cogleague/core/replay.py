"""The episode log: every call the runner made on a game, in order, with its events.

The log is the durable truth of an episode. Re-applying it to a fresh game of the same config
reproduces the state exactly (games are deterministic): the server uses that for crash
recovery, the viewer and verifiers for rebuilding. Each game turns a log into its own replay
document (`Game.replay_document`).

An entry is one of:
  ``{"op": "start"}``, ``{"op": "open"}``,
  ``{"op": "apply", "decisions": {turn_id: Decision}}``, ``{"op": "stop", "reason": …}``
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cogleague.core.game import Decision, Event, Game, StepDecisions

R = TypeVar("R")


class LogEntry:
    """One logged operation. `events` and `decisions` may arrive compact from the step-batch
    path (a renderer of the events, `StepDecisions` columns): they are built on first read, so
    a headless episode whose log nobody reads never builds an `Event` or a `Decision`."""

    __slots__ = ("_decisions", "_events", "_render", "detail", "op", "reason")

    def __init__(self, op: str, events: list[Event] | None,
                 decisions: Mapping[str, Decision] | None = None, reason: str | None = None,
                 detail: str | None = None, *,
                 render: Callable[[], list[Event]] | None = None) -> None:
        self.op = op
        self._events = events
        self._render = render
        self._decisions = decisions
        self.reason = reason
        self.detail = detail

    @property
    def events(self) -> list[Event]:
        if self._events is None:
            assert self._render is not None
            self._events = self._render()
            self._render = None
        return self._events

    @events.setter
    def events(self, events: list[Event]) -> None:
        self._events, self._render = events, None

    def events_json(self) -> list[dict[str, Any]]:
        """``[e.to_json() for e in self.events]``; a renderer with its own ``to_json`` (e.g.
        Commons' `RoundEvents`) writes that form directly, without building the `Event`s."""
        if self._events is None:
            to_json = getattr(self._render, "to_json", None)
            if to_json is not None:
                return to_json()  # type: ignore[no-any-return]
        return [e.to_json() for e in self.events]

    def rows(self, row: Callable[[Event], R], form: str) -> list[R]:
        """``[row(e) for e in self.events]``; a renderer with a method named `form` (a game's
        own replay rows, e.g. the dilemma's `StepEvents.replay_rows`) writes them directly,
        without building the `Event`s."""
        if self._events is None:
            direct = getattr(self._render, form, None)
            if direct is not None:
                return direct()  # type: ignore[no-any-return]
        return [row(e) for e in self.events]

    @property
    def decisions(self) -> dict[str, Decision] | None:
        d = self._decisions
        if d is None or type(d) is dict:
            return d
        if isinstance(d, StepDecisions):
            return d.materialize()
        return dict(d)

    def __repr__(self) -> str:
        return (f"LogEntry({self.op!r}, events={self.events!r}, decisions={self.decisions!r}, "
                f"reason={self.reason!r}, detail={self.detail!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LogEntry):
            return NotImplemented
        return (self.op, self.events, self.decisions, self.reason, self.detail) == (
            other.op, other.events, other.decisions, other.reason, other.detail)

    __hash__ = None  # type: ignore[assignment]

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"op": self.op}
        d = self._decisions
        if d is not None:
            doc["decisions"] = (d.to_json() if isinstance(d, StepDecisions)
                                else {k: v.to_json() for k, v in d.items()})
        if self.reason is not None:
            doc["reason"] = self.reason
        if self.detail is not None:
            doc["detail"] = self.detail
        return doc


@dataclass(repr=False)
class EpisodeLog:
    """Entries in order; `events` flattens them (with their audiences) for replay documents."""

    entries: list[LogEntry] = field(default_factory=list)

    def __repr__(self) -> str:
        # Short on purpose: `asyncio.run` formats its main task's repr (result included) when
        # it checks the SIGINT handler at the end, and a full repr would render every entry's
        # lazy events and decisions (twice) for a message nobody reads.
        return f"EpisodeLog(<{len(self.entries)} entries>)"

    def add(self, entry: LogEntry) -> None:
        self.entries.append(entry)

    @property
    def events(self) -> list[Event]:
        return [e for entry in self.entries for e in entry.events]

    def events_json(self) -> list[dict[str, Any]]:
        """``[e.to_json() for e in self.events]``, each entry's by `LogEntry.events_json`
        (a renderer's own replay form where it has one): a replay document's ``events``."""
        return [e for entry in self.entries for e in entry.events_json()]

    def rows(self, row: Callable[[Event], R], form: str) -> list[R]:
        """Every entry's `LogEntry.rows`, in order: a replay document's event rows."""
        return [r for entry in self.entries for r in entry.rows(row, form)]

    @property
    def decisions(self) -> list[dict[str, Decision]]:
        return [e.decisions for e in self.entries if e.decisions is not None]

    def to_json(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.entries]


def apply_entry(game: Game, op: str, decisions: Mapping[str, Decision] | None = None,
                reason: str | None = None, detail: str | None = None) -> list[Event]:
    """Perform one logged operation on a game and return its events."""
    if op == "start":
        return game.start()
    if op == "open":
        return game.open_round()
    if op == "apply":
        return game.apply(decisions or {})
    if op == "stop":
        return game.stop(reason or "deadline", detail)
    raise ValueError(f"op must be one of start, open, apply, stop (got {op!r})")


def replay_entries(game: Game, entries: Iterable[Mapping[str, Any]]) -> EpisodeLog:
    """Rebuild a game by re-applying logged entries (JSON form) to a fresh instance."""
    log = EpisodeLog()
    for doc in entries:
        decisions = None
        if "decisions" in doc:
            decisions = {k: Decision.from_json(v) for k, v in doc["decisions"].items()}
        events = apply_entry(game, doc["op"], decisions, doc.get("reason"), doc.get("detail"))
        log.add(LogEntry(doc["op"], events, decisions, doc.get("reason"), doc.get("detail")))
    return log
