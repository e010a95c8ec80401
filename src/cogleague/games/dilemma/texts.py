"""The dilemma's replay log and event rows as canonical JSON text, from templates.

A step's text depends on the round only through its number: the decisions' turn ids
(``r<round>:a-b:seat``) and the rows' ``"round"``. So per step shape (`steps.StepShape`, one per
seat count, round parity and step) and pattern of choices, the step's log entry and its
``action_private`` rows are rendered once as templates with NUL where the round goes (canonical
JSON never holds a raw NUL), and a round's ``choices_revealed`` rows once per pattern of the
round's choices (and payoffs) with ``%d`` where the totals go. Writing a replay is then a
dictionary look-up, a `str.replace` and a ``%`` per step. Decisions that are not all a shared
bare reply of the same source, messages, timeouts and the end go through the generic encoding.
The caches are bounded (`PATTERNS` per shape); the templates are the encoder's bytes
(`tests/core/test_replay_text.py`, the corpus).
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any

from cogleague.core import jsonio
from cogleague.core.game import StepDecisions
from cogleague.games.dilemma.baselines._base import COOPERATE_ACTION, DEFECT_ACTION
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT, ranked_standings
from cogleague.games.dilemma.steps import Payoffs, StepEvents, StepShape, event_row

if TYPE_CHECKING:
    from cogleague.core.game import Event
    from cogleague.core.replay import EpisodeLog, LogEntry

PATTERNS = 128
"""Templates kept per step shape and kind (patterns of choices seen first win)."""

_NUL = "\x00"
_PLAIN = attrgetter("plain")
_COOP = attrgetter("coop")
_OPEN = '{"op":"open"}'


class StepTexts:
    """The templates of one step shape, kept on it (`StepShape.texts`)."""

    __slots__ = ("_reveals", "_steps", "heads", "ids", "seat_totals", "shape", "tails")

    def __init__(self, shape: StepShape) -> None:
        self.shape = shape
        self.heads: list[str] = []  # per turn: its action row up to the round
        self.tails: list[tuple[str, str]] = []  # per turn: the rest, by [cooperates]
        self.ids: list[str] = []  # per turn: its quoted turn id, round left as NUL
        for (seat, index, _, _), suffix in zip(shape.turns, shape.suffixes, strict=True):
            a, b = shape.pairings[index]
            self.heads.append('{"audience":[' + str(seat)
                              + '],"event":{"kind":"action_private","round":' + _NUL)
            self.tails.append(tuple(  # type: ignore[arg-type]
                "," + jsonio.dumps({"pairing": [a, b], "seat": seat, "action": act})[1:] + "}"
                for act in (DEFECT, COOPERATE)))
            self.ids.append('"r' + _NUL + jsonio.quote(suffix)[1:])
        # per seat: where its pairings' totals are in a round's flat totals (pair by pair, a b)
        seats = 1 + max(max(p) for p in shape.pairings)
        self.seat_totals = [[2 * k + side for k, p in enumerate(shape.pairings)
                             for side in (0, 1) if p[side] == s] for s in range(seats)]
        self._steps: dict[tuple[str, tuple[bool, ...]], tuple[str, str]] = {}
        self._reveals: dict[tuple[Payoffs, tuple[bool, ...]], str] = {}

    @staticmethod
    def of(shape: StepShape) -> StepTexts:
        texts = shape.texts
        if texts is None:
            texts = shape.texts = StepTexts(shape)
        return texts  # type: ignore[no-any-return]

    def step(self, source: str, coops: tuple[bool, ...]) -> tuple[str, str]:
        """(the log entry of these bare choices from `source`, their ``action_private``
        rows), the round left as NUL."""
        key = (source, coops)
        made = self._steps.get(key)
        if made is None:
            tail = (',"source":' + jsonio.quote(source)
                    + ',"cause":null,"attempts":1,"timeouts":0,"clamped":false}')
            log = '{"op":"apply","decisions":{' + ",".join(
                turn_id + ':{"action":' + jsonio.dumps({"action": _choice(c)}) + tail
                for turn_id, c in zip(self.ids, coops, strict=True)) + "}}"
            rows = ",".join(head + tail_[c] for head, tail_, c in
                            zip(self.heads, self.tails, coops, strict=True))
            made = (log, rows)
            if len(self._steps) < PATTERNS:
                self._steps[key] = made
        return made

    def actions(self, coops: tuple[bool, ...]) -> str:
        """The ``action_private`` rows of these plain choices, the round left as NUL."""
        return self.step("", coops)[1]

    def reveals(self, pay: Payoffs, coops: tuple[bool, ...]) -> str | None:
        """A round's ``choices_revealed`` rows for these choices (pair by pair, a then b), no
        timeouts: the round left as NUL, the totals as ``%d`` (None unless the payoffs are
        integers, whose sums ``%d`` writes as the encoder does)."""
        key = (pay, coops)
        made = self._reveals.get(key)
        if made is None:
            if not all(type(x) is int for row in pay for cell in row for x in cell):
                return None
            rows = []
            for k, (a, b) in enumerate(self.shape.pairings):
                ca, cb = coops[2 * k], coops[2 * k + 1]
                body = jsonio.dumps({"seats": [a, b], "choices": [_choice(ca), _choice(cb)],
                                     "points": list(pay[ca][cb])})[1:-1].replace("%", "%%")
                rows.append('{"audience":null,"event":{"kind":"choices_revealed","round":'
                            + _NUL + "," + body
                            + ',"totals":[%d,%d],"timeouts":[false,false]}}')
            made = ",".join(rows)
            if len(self._reveals) < PATTERNS:
                self._reveals[key] = made
        return made


def replay_parts(log: EpisodeLog) -> tuple[list[str], list[str]]:
    """(the texts of the log's entries, the texts of its event rows — `replay.event_json`'s
    form, several rows per text), for `jsonio.join_object`."""
    bare = _bare_replies()
    logs: list[str] = []
    rows: list[str] = []
    for entry in log.entries:
        render, columns = entry.step_columns()
        if type(render) is StepEvents:
            text = None
            if columns is not None and entry.op == "apply":
                text = _log_text(render, columns, bare)
            logs.append(entry.json_text() if text is None else text)
            rows += event_texts(render)
            continue
        if entry.op == "open":
            text = _round_start(entry)
            if text is not None:
                logs.append(_OPEN)
                rows.append(text)
                continue
        logs.append(entry.json_text())
        rows += entry.rows_text(_event_row, "replay_texts")
    return logs, rows


def event_texts(ev: StepEvents) -> list[str]:
    """The replay rows of a settled step (`StepEvents.replay_rows`) as canonical text: from
    the templates when every move is plain and the round had no timeout, else encoded."""
    moves = ev.moves
    state, i, pay = ev.state, ev.round - 1, ev.pay
    if not all(map(_PLAIN, moves)) or i in state.timeout_rounds:
        return [jsonio.dumps(ev._build(event_row))[1:-1]]
    texts = StepTexts.of(ev.plan.shape)
    rs = str(ev.round)
    actions = texts.actions(tuple(map(_COOP, moves))).replace(_NUL, rs)
    if ev.plan.first:
        return [actions]
    pairs = state.pairs
    coops = tuple([c[i] for rec in pairs for c in rec.coop])
    reveals = texts.reveals(pay, coops)
    if reveals is None:
        return [jsonio.dumps(ev._build(event_row))[1:-1]]
    totals = tuple([t[i] for rec in pairs for t in rec.totals])
    out = [actions, (reveals % totals).replace(_NUL, rs)]
    points = [sum(map(totals.__getitem__, seat)) for seat in texts.seat_totals]
    out.append('{"audience":null,"event":{"kind":"tournament_standings","round":' + rs
               + ',"standings":' + _standings_text(points) + "}}")
    if ev.ended is not None:
        out.append(jsonio.dumps([event_row(e.kind, e.data, e.audience) for e in ev.ended])[1:-1])
    return out


def _log_text(ev: StepEvents, columns: StepDecisions, bare: dict[int, bool]) -> str | None:
    """The log entry of a step whose every decision is a shared bare reply (checked by
    identity, the replies checked unchanged once per replay) of the common source."""
    step = columns.step
    if step.handle is not ev.plan or step.round != ev.round or columns.source is None:
        return None
    kinds = tuple(map(bare.get, map(id, columns.actions)))
    if None in kinds:
        return None
    texts = StepTexts.of(ev.plan.shape)
    return texts.step(columns.source, kinds)[0].replace(_NUL, str(ev.round))  # type: ignore[arg-type]


def _event_row(e: Event) -> dict[str, Any]:
    """`replay.event_json`."""
    return event_row(e.kind, e.data, e.audience)


def _bare_replies() -> dict[int, bool]:
    """The shared bare replies by identity (cooperates?); none if one was modified."""
    if COOPERATE_ACTION != {"action": COOPERATE} or DEFECT_ACTION != {"action": DEFECT}:
        return {}
    return {id(COOPERATE_ACTION): True, id(DEFECT_ACTION): False}


def _round_start(entry: LogEntry) -> str | None:
    """The row of an ``open`` entry that is one public ``round_start`` (None otherwise)."""
    if entry.reason is not None or entry.detail is not None or entry.decisions is not None:
        return None
    events = entry.events
    if len(events) != 1:
        return None
    e = events[0]
    data = e.data
    if e.kind != "round_start" or e.audience is not None or len(data) != 1:
        return None
    r = data.get("round")
    if type(r) is not int:
        return None
    return '{"audience":null,"event":{"kind":"round_start","round":' + str(r) + "}}"


def _choice(coop: bool) -> str:
    return COOPERATE if coop else DEFECT


def _standings_text(points: list[int]) -> str:
    """`jsonio.dumps(ranked_standings(points))` (integer points: sums of integer payoffs)."""
    return "[" + ",".join([f'{{"seat":{r["seat"]},"points":{r["points"]},"rank":{r["rank"]}}}'
                           for r in ranked_standings(points)]) + "]"
