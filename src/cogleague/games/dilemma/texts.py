"""The dilemma's replay log and event rows as canonical JSON text, from templates.

A step's text depends on the round only through its number: the decisions' turn ids
(``r<round>:a-b:seat``) and the rows' ``"round"``. So per step shape (`steps.StepShape`, one per
seat count, round parity and step) and pattern of choices, the step's log entry and its
``action_private`` rows are rendered once as templates with NUL where the round goes (canonical
JSON never holds a raw NUL), and a round's ``choices_revealed`` rows once per pattern of the
round's choices (and payoffs) with slots where the round and the totals go. Everything is UTF-8
bytes from the start (the encoding of a concatenation is the concatenation of the encodings),
and the document is one ``bytes.join`` of fragments that are the templates' own pieces: no
text is built per step, and no megabyte text beside its encoding (the whole replay's worth of
fresh memory beside the result makes the allocator return pages and fault them in again).
Decisions that are not all a shared bare reply of the same source, messages, timeouts and the
end go through the generic encoding.
The caches are bounded (`PATTERNS` per shape); the templates are the encoder's bytes
(`tests/core/test_replay_text.py`, the corpus).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add, eq, ge, is_
from typing import TYPE_CHECKING, Any

from cogleague.core import jsonio
from cogleague.core.game import StepDecisions
from cogleague.core.jsonio import INT_BYTES, int_bytes
from cogleague.games.dilemma.baselines._base import COOPERATE_ACTION, DEFECT_ACTION
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT, ranked_standings
from cogleague.games.dilemma.state import TableState
from cogleague.games.dilemma.steps import (
    Payoffs,
    StepEvents,
    StepPlan,
    StepShape,
    event_json,
    event_row,
)

if TYPE_CHECKING:
    from cogleague.core.replay import EpisodeLog, LogEntry

PATTERNS = 128
"""Templates kept per step shape and kind (patterns of choices seen first win)."""

_NUL = "\x00"
_OPEN = b'{"op":"open"}'
_COMMA = b","


class StepTexts:
    """The templates of one step shape, kept on it (`StepShape.texts`)."""

    __slots__ = ("_reveals", "_steps", "bare", "heads", "ids", "shape", "tails")

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
        # `step` by (source, the identities of the shared bare replies, turn by turn)
        self.bare: dict[tuple[str, tuple[int, ...]], tuple[list[bytes], list[bytes]]] = {}
        self._steps: dict[tuple[str, tuple[bool, ...]], tuple[list[bytes], list[bytes]]] = {}
        self._reveals: dict[tuple[Payoffs, tuple[bool, ...]], list[bytes]] = {}

    @staticmethod
    def of(shape: StepShape) -> StepTexts:
        texts = shape.texts
        if texts is None:
            texts = shape.texts = StepTexts(shape)
        return texts  # type: ignore[no-any-return]

    def step(self, source: str, coops: tuple[bool, ...]) -> tuple[list[bytes], list[bytes]]:
        """(the log entry of these bare choices from `source`, their ``action_private``
        rows), each as fragments with an empty slot wherever the round goes (`_filled`)."""
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
            made = (_slots(log), _slots(rows))
            if len(self._steps) < PATTERNS:
                self._steps[key] = made
        return made

    def reveals(self, pay: Payoffs, coops: tuple[bool, ...]) -> list[bytes] | None:
        """A round's ``choices_revealed`` rows for these choices (pair by pair, a then b), no
        timeouts, as pieces: per row (head, round, middle, total a, ",", total b, tail), the
        round and the totals left empty to be put in (None unless the payoffs are integers,
        whose sums `str` writes as the encoder does)."""
        key = (pay, coops)
        made = self._reveals.get(key)
        if made is None:
            if not _integers(pay):
                return None
            made = []
            for k, (a, b) in enumerate(self.shape.pairings):
                ca, cb = coops[2 * k], coops[2 * k + 1]
                body = jsonio.dumps({"seats": [a, b], "choices": [_choice(ca), _choice(cb)],
                                     "points": list(pay[ca][cb])})[1:-1]
                made += [b',{"audience":null,"event":{"kind":"choices_revealed","round":', b"",
                         ("," + body + ',"totals":[').encode(), b"", _COMMA, b"",
                         b'],"timeouts":[false,false]}}']
            if len(self._reveals) < PATTERNS:
                self._reveals[key] = made
        return made


def replay_parts(log: EpisodeLog) -> tuple[list[bytes], list[bytes]]:
    """The encoded fragments of the log's array and of the event rows' array
    (`steps.event_json`'s form), commas included, brackets not: each array's bytes are the
    concatenation of its fragments, so the document is joined once (`replay_bytes`)."""
    bare = _bare_replies()
    last: dict[StepPlan, _Made] = {}
    logs: list[bytes] = []
    rows: list[bytes] = []
    revealed: _Revealed | None = None
    for entry in log.entries:
        render, columns = entry.step_columns()
        if logs:
            logs.append(_COMMA)
        if type(render) is StepEvents:
            made = None
            if bare and columns is not None and entry.op == "apply":
                made = _bare_step(render, columns, bare, last)
            if made is None:
                logs.append(entry.json_text().encode())
                _add(rows, event_texts(render))
                continue
            r = render.round
            rs = INT_BYTES[r] if r < len(INT_BYTES) else str(r).encode()
            logs += _filled(made[0], rs)
            if render.plan.first:
                step_rows = _filled(made[1], rs)
            else:
                if revealed is None:
                    revealed = _Revealed(render.state, render.pay)
                reveal = revealed.texts(StepTexts.of(render.plan.shape), render, rs)
                if reveal is None:  # a timeout in the round, or payoffs templates do not take
                    _add(rows, event_texts(render))
                    continue
                step_rows = _filled(made[1], rs)
                step_rows += reveal
            if rows:
                rows.append(_COMMA)
            rows += step_rows
            continue
        if entry.op == "open":
            text = _round_start(entry)
            if text is not None:
                logs.append(_OPEN)
                _add(rows, [text])
                continue
        logs.append(entry.json_text().encode())
        _add(rows, [t.encode() for t in entry.rows_text(event_json, "replay_texts")])
    return logs, rows


def _add(out: list[bytes], texts: list[bytes]) -> None:
    """Append array items' texts (each one or several rows) to an array's fragments."""
    for text in filter(None, texts):
        if out:
            out.append(_COMMA)
        out.append(text)


def _slots(text: str) -> list[bytes]:
    """`text` encoded and cut at every NUL, an empty slot in place of each (`_filled` puts
    the round in)."""
    parts = text.encode().split(b"\x00")
    out = [b""] * (2 * len(parts) - 1)
    out[::2] = parts
    return out


def _filled(slots: list[bytes], rs: bytes) -> list[bytes]:
    out = slots.copy()
    out[1::2] = [rs] * (len(slots) // 2)
    return out


class _Revealed:
    """The table's revealed rounds read once as rows (one per round): every pairing's choices
    (a then b), its totals as text, and every seat's points (no totals unless the payoffs are
    integers: `StepTexts.reveals` takes no others)."""

    __slots__ = ("coops", "points", "standings", "totals_a", "totals_b")

    def __init__(self, state: TableState, pay: Payoffs) -> None:
        pairs = state.pairs
        self.coops = list(zip(*[c for rec in pairs for c in rec.coop], strict=True))
        self.totals_a: list[tuple[bytes, ...]] = []
        self.totals_b: list[tuple[bytes, ...]] = []
        self.points: list[tuple[int, ...]] = []
        self.standings = _Standings()
        if not _integers(pay):
            return
        up = min(x for row in pay for cell in row for x in cell) >= 0  # totals never fall
        self.totals_a = list(zip(*[int_bytes(rec.totals[0], ascending=up)
                                   for rec in pairs], strict=True))
        self.totals_b = list(zip(*[int_bytes(rec.totals[1], ascending=up)
                                   for rec in pairs], strict=True))
        self.points = list(zip(*[_added([rec.totals[rec.side_of(seat)] for rec in recs])
                                 for seat, recs in enumerate(state.by_seat)], strict=True))

    def texts(self, texts: StepTexts, ev: StepEvents, rs: bytes) -> list[bytes] | None:
        """The fragments of the reveal's rows (choices, standings, the end) after round
        ``ev.round``, a comma first (None: a timeout in it, or payoffs the templates do not
        take)."""
        i = ev.round - 1
        if i in ev.state.timeout_rounds:
            return None
        reveals = texts.reveals(ev.pay, self.coops[i])
        if reveals is None:
            return None
        pieces = reveals.copy()
        pieces[1::7] = [rs] * len(self.totals_a[i])
        pieces[3::7] = self.totals_a[i]
        pieces[5::7] = self.totals_b[i]
        pieces += self.standings.pieces(self.points[i], rs)
        if ev.ended:
            pieces.append(("," + jsonio.dumps([event_row(e.kind, e.data, e.audience)
                                               for e in ev.ended])[1:-1]).encode())
        return pieces


def _integers(pay: Payoffs) -> bool:
    return all(type(x) is int for row in pay for cell in row for x in cell)


def _added(columns: list[list[int]]) -> list[int]:
    """The element-wise sum of equally long columns (at least one)."""
    total = columns[0]
    for column in columns[1:]:
        total = list(map(add, total, column))
    return total


def event_texts(ev: StepEvents) -> list[bytes]:
    """The replay rows of a settled step (`StepEvents.replay_rows`) as one canonical text,
    every row encoded (the templates cover steps of bare replies: `replay_parts`); none if
    the step had no events."""
    text = jsonio.dumps(ev._build(event_row))[1:-1]
    return [text.encode()] if text else []


_Made = tuple[str, list[Any], tuple[list[bytes], list[bytes]]]
"""A step plan's last bare step in a replay: (its source, its replies, their templates)."""


def _bare_step(ev: StepEvents, columns: StepDecisions, bare: dict[int, bool],
               last: dict[StepPlan, _Made]) -> tuple[list[bytes], list[bytes]] | None:
    """(the log entry, the ``action_private`` rows) of a step whose every decision is a shared
    bare reply of the common source (by identity: the replies were checked unchanged once per
    replay, and the game reads such a reply as a plain move of its choice), cut where the round
    goes; None for any other step. Scripted seats mostly repeat themselves, so a step whose
    replies are the very objects of its plan's last step (`last`, kept per replay) takes that
    step's templates without a look-up."""
    step = columns.step
    source = columns.source
    plan = ev.plan
    if step.handle is not plan or step.round != ev.round or source is None:
        return None
    actions = columns.actions
    seen = last.get(plan)
    if (seen is not None and seen[0] == source and len(seen[1]) == len(actions)
            and all(map(is_, actions, seen[1]))):
        return seen[2]
    texts = StepTexts.of(plan.shape)
    ids = tuple(map(id, actions))
    made = texts.bare.get((source, ids))
    if made is None:
        kinds = tuple(map(bare.get, ids))
        if None in kinds:
            return None
        made = texts.step(source, kinds)  # type: ignore[arg-type]
        if len(texts.bare) < PATTERNS:
            texts.bare[(source, ids)] = made
    last[plan] = (source, actions, made)
    return made


def _bare_replies() -> dict[int, bool]:
    """The shared bare replies by identity (cooperates?); none if one was modified."""
    if COOPERATE_ACTION != {"action": COOPERATE} or DEFECT_ACTION != {"action": DEFECT}:
        return {}
    return {id(COOPERATE_ACTION): True, id(DEFECT_ACTION): False}


def _round_start(entry: LogEntry) -> bytes | None:
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
    return b'{"audience":null,"event":{"kind":"round_start","round":' + b"%d" % r + b"}}"


def _choice(coop: bool) -> str:
    return COOPERATE if coop else DEFECT


class _Standings:
    """The ``tournament_standings`` rows of one replay's rounds, asked in round order: a round
    whose points keep the last round's standing order and ties (standings seldom change) reuses
    its template without sorting."""

    __slots__ = ("order", "parts", "ties")

    def __init__(self) -> None:
        self.order: list[int] = []
        self.ties: list[bool] | None = None  # none yet: the first round sorts
        self.parts: list[bytes] = []

    def pieces(self, points: Sequence[int], rs: bytes) -> list[bytes]:
        """The fragments of round ``rs``'s row, a comma first:
        ``jsonio.dumps(ranked_standings(points))`` (integer points: sums of integer payoffs)."""
        ranked = list(map(points.__getitem__, self.order))
        after = ranked[1:]
        if list(map(eq, ranked, after)) != self.ties or not all(map(ge, ranked, after)):
            # a new order or new ties (the last order still descending with the same ties is
            # the stable sort's order: tied seats stay in ascending order)
            self.order = sorted(range(len(points)), key=points.__getitem__, reverse=True)
            ranked = list(map(points.__getitem__, self.order))
            self.ties = list(map(eq, ranked, ranked[1:]))
            self.parts = _standings_template(points, (*self.order, *self.ties))
        out = self.parts.copy()
        out[1] = rs
        out[3::2] = int_bytes(ranked)
        return out


def _standings_template(points: Sequence[int], key: tuple[int | bool, ...]) -> list[bytes]:
    """The pieces of a standings row for `points` (standing order and ties: `key`), round and
    points left empty, kept per key."""
    parts = _STANDINGS.get(key)
    if parts is None:
        text = [',{"audience":null,"event":{"kind":"tournament_standings","round":', "",
                ',"standings":[']
        for row in ranked_standings(points):
            text[-1] += ('{"seat":' if len(text) == 3 else ',{"seat":') + str(row["seat"])
            text[-1] += ',"points":'
            text += ["", ',"rank":' + str(row["rank"]) + "}"]
        text[-1] += "]}}"
        parts = [t.encode() for t in text]
        if len(_STANDINGS) < 4 * PATTERNS:
            _STANDINGS[key] = parts
    return parts


_STANDINGS: dict[tuple[int | bool, ...], list[bytes]] = {}
"""Standings pieces by (standing order, then ties with the seat before): round and points left
empty."""
