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
from functools import lru_cache
from itertools import repeat
from typing import Any, ClassVar, TypeVar

from cogleague.core import jsonio
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

    def rows_text(self, row: Callable[[Event], Any], form: str, *,
                  sort_keys: bool = False) -> list[str]:
        """The canonical texts of `rows(row, form)`, none empty: a renderer with a method
        named `form` hands its rows' texts (a game's own writer of its rows as text),
        any other entry's rows are encoded together."""
        if self._events is None:
            direct = getattr(self._render, form, None)
            if direct is not None:
                return list(filter(None, direct()))
        events = self.events
        if not events:
            return []
        return [jsonio.dumps([row(e) for e in events], sort_keys=sort_keys)[1:-1]]

    def step_columns(self) -> tuple[Callable[[], list[Event]] | None, StepDecisions | None]:
        """The entry as the step-batch path logged it, for a game that writes its replay's text
        from the columns: its events' renderer (None once the events are built) and its
        decisions' columns when every decision is of the common source (None otherwise, or once
        the decisions were read as a mapping: `json_text` then encodes what was read)."""
        d = self._decisions
        if (type(d) is not StepDecisions or d._dict is not None or d.special
                or d.source is None or self.reason is not None or self.detail is not None):
            d = None
        return (self._render if self._events is None else None), d

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

    def json_text(self, *, sort_keys: bool = False) -> str:
        """``jsonio.dumps(self.to_json(), sort_keys=…)``, spliced: a step's decisions of one
        common source from each distinct action's text (`_DecisionTexts`), without building a
        `Decision` or a dict per decision."""
        if self.reason is None and self.detail is None:  # the common shapes, spliced at once
            if self._decisions is None:
                return _OP_ONLY.get(self.op) or '{"op":' + jsonio.quote(self.op) + "}"
            if sort_keys:
                return ('{"decisions":' + self._decisions_text(True) + ',"op":'
                        + jsonio.quote(self.op) + "}")
            return ('{"op":' + jsonio.quote(self.op) + ',"decisions":'
                    + self._decisions_text(False) + "}")
        items = [("op", jsonio.quote(self.op))]
        if self._decisions is not None:
            items.append(("decisions", self._decisions_text(sort_keys)))
        if self.reason is not None:
            items.append(("reason", jsonio.quote(self.reason)))
        if self.detail is not None:
            items.append(("detail", jsonio.quote(self.detail)))
        return jsonio.join_object(items, sort_keys=sort_keys)

    def _decisions_text(self, sort_keys: bool) -> str:
        d = self._decisions
        if (type(d) is not StepDecisions or d._dict is not None or d.special
                or d.source is None):
            return jsonio.dumps(self.to_json()["decisions"], sort_keys=sort_keys)
        ids = d.step.turn_ids()
        if not sort_keys:
            numbered = _DecisionTexts.of(d.source, False).numbered(ids, d.actions)
            if numbered is not None:
                return numbered
        if not _plain_unique(ids):
            return jsonio.dumps(d.to_json(), sort_keys=sort_keys)
        actions = d.actions
        if not all(actions):  # a None (no decision), or an empty action: filter
            kept = [(i, a) for i, a in zip(ids, actions, strict=True) if a is not None]
            ids, actions = [i for i, _ in kept], [a for _, a in kept]
        text = _DecisionTexts.of(d.source, sort_keys)
        # each distinct action's text once, then every decision's by the action's identity
        distinct = dict(zip(map(id, actions), actions, strict=True))
        by_id = {k: text(a) for k, a in distinct.items()}
        values = list(map(by_id.__getitem__, map(id, actions)))
        if sort_keys:
            # turn ids are unique: the values are never compared
            ordered = sorted(zip(ids, values, strict=True))
            ids, values = [i for i, _ in ordered], [v for _, v in ordered]
        parts: list[str] = [""] * (2 * len(ids))
        parts[::2], parts[1::2] = ids, values
        return "{" + _members(len(ids)) % tuple(parts) + "}"

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

    def rows_text(self, row: Callable[[Event], Any], form: str, *,
                  sort_keys: bool = False) -> list[str]:
        """The canonical texts of `rows(row, form)` (`jsonio.dumps` of the list is
        ``[`` + their join with ``,`` + ``]``; `jsonio.join_object` takes the list as is):
        every entry's `LogEntry.rows_text`, in order."""
        parts: list[str] = []
        for entry in self.entries:
            parts += entry.rows_text(row, form, sort_keys=sort_keys)
        return parts

    @property
    def decisions(self) -> list[dict[str, Decision]]:
        return [e.decisions for e in self.entries if e.decisions is not None]

    def to_json(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.entries]

    def json_text(self, *, sort_keys: bool = False) -> list[str]:
        """The canonical texts of `to_json()`'s entries (`LogEntry.json_text`), for
        `jsonio.join_object`."""
        return [e.json_text(sort_keys=sort_keys) for e in self.entries]


_OP_ONLY = {op: f'{{"op":"{op}"}}' for op in ("start", "open", "apply", "stop")}
"""The text of an entry that is its op alone."""


@lru_cache(maxsize=64)
def _members(n: int) -> str:
    """A ``%`` template of `n` object members whose keys are plain and values encoded."""
    return ",".join(['"%s":%s'] * n)


def _plain(text: str) -> bool:
    """Whether `text` is quoted as it is (`jsonio.quote`'s plain case)."""
    return text.isprintable() and '"' not in text and "\\" not in text


def _plain_unique(ids: list[str]) -> bool:
    """Whether turn ids are keys a decisions object can be spliced from: each quoted as it is,
    none twice."""
    return _plain("".join(ids)) and len(set(ids)) == len(ids)


class _DecisionTexts:
    """A common source's decision text by action: ``{"action":…,"source":…,"cause":null,…}``
    (keys sorted or not), made once per distinct action object (the shared constants baselines
    return). An action of string values is matched by identity and checked equal to the copy
    taken when its text was made, so a mutated action is encoded afresh, never from a stale
    text (equal strings encode alike; an int could turn into an equal bool, so only strings);
    any other action is encoded each time."""

    _made: ClassVar[dict[tuple[str, bool], _DecisionTexts]] = {}
    __slots__ = ("cache", "sort_keys", "tail", "templates", "values")

    def __init__(self, source: str, sort_keys: bool) -> None:
        self.sort_keys = sort_keys
        src = jsonio.quote(source)
        self.tail = (f',"attempts":1,"cause":null,"clamped":false,"source":{src},"timeouts":0}}'
                     if sort_keys else
                     f',"source":{src},"cause":null,"attempts":1,"timeouts":0,"clamped":false}}')
        self.cache: dict[int, tuple[Any, Any, str]] = {}
        self.templates: dict[tuple[str, ...], list[str]] = {}  # `numbered`'s, by key and ids
        self.values: dict[str, dict[int, str]] = {}  # `numbered`'s, by key and number

    @classmethod
    def of(cls, source: str, sort_keys: bool) -> _DecisionTexts:
        made = cls._made.get((source, sort_keys))
        if made is None:
            made = cls._made[(source, sort_keys)] = cls(source, sort_keys)
        return made

    def numbered(self, ids: list[str], actions: list[Any]) -> str | None:
        """The decisions' text when every action is ``{key: n}``, one key and exact integers
        (Ledger's ``{"move": 4}``, a fresh dict per decision): each number's decision text
        made once (`values`), put between the turn ids' kept texts (`templates`, per key and
        turn ids) and joined. None for any other actions (or ids that are not plain and
        unique), and with sorted keys."""
        if self.sort_keys or set(map(type, actions)) != _DICT or set(map(len, actions)) != _ONE:
            return None
        key = next(iter(actions[0]))
        numbers: list[Any] = list(map(dict.get, actions, repeat(key)))
        if set(map(type, numbers)) != _INT:
            return None
        shape = (key, *ids)
        parts = self.templates.get(shape)
        if parts is None:
            if type(key) is not str or not _plain_unique(ids):
                return None
            if len(self.templates) >= _TEMPLATES_CACHED:
                self.templates.clear()
            # ``{"id":`` value ``,"id":`` value … ``}``: the values at the odd places
            parts = self.templates[shape] = [
                piece for i in ids for piece in (',"' + i + '":', "")]
            parts[0] = "{" + parts[0][1:]
            parts.append("}")
        values = self.values.get(key)
        if values is None or len(values) >= _VALUES_CACHED:
            values = self.values[key] = {}
        texts: list[Any] = list(map(values.get, numbers))
        if None in texts:
            head = '{"action":{' + jsonio.quote(key) + ":"
            for i, n in enumerate(numbers):
                if texts[i] is None:
                    texts[i] = values[n] = f"{head}{n}}}{self.tail}"
        out = parts.copy()
        out[1::2] = texts
        return "".join(out)

    def __call__(self, action: Any) -> str:
        hit = self.cache.get(id(action))
        if hit is not None and hit[0] is action and hit[1] == action:
            return hit[2]
        text = '{"action":' + jsonio.dumps(action, sort_keys=self.sort_keys) + self.tail
        if type(action) is dict and all(type(v) is str for v in action.values()):
            if len(self.cache) >= 256:
                self.cache.clear()
            self.cache[id(action)] = (action, dict(action), text)
        return text


_DICT, _ONE, _INT = {dict}, {1}, {int}
_TEMPLATES_CACHED = 256
"""`_DecisionTexts.numbered`'s templates kept per source (a Ledger episode uses one a round)."""
_VALUES_CACHED = 4096
"""`_DecisionTexts.numbered`'s decision texts kept per source and key (Ledger's moves: 0 to
100)."""


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
