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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cogleague.core.game import Decision, Event, Game


@dataclass(slots=True)
class LogEntry:
    op: str
    events: list[Event]
    decisions: dict[str, Decision] | None = None
    reason: str | None = None
    detail: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"op": self.op}
        if self.decisions is not None:
            doc["decisions"] = {k: d.to_json() for k, d in self.decisions.items()}
        if self.reason is not None:
            doc["reason"] = self.reason
        if self.detail is not None:
            doc["detail"] = self.detail
        return doc


@dataclass
class EpisodeLog:
    """Entries in order; `events` flattens them (with their audiences) for replay documents."""

    entries: list[LogEntry] = field(default_factory=list)

    def add(self, entry: LogEntry) -> None:
        self.entries.append(entry)

    @property
    def events(self) -> list[Event]:
        return [e for entry in self.entries for e in entry.events]

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
