"""The replay's spectator frames written as canonical JSON text, event by event.

`replay.build_frames` folds the events into a fresh `Table` and builds each frame as a dict;
this writes the same frames' bytes (``jsonio.dumps`` of each) without the dicts: a frame is a
join of fragments kept between events — a seat's row until the seat meets again, a pairing's
entry until it is resolved, the board until a note is added, the rings until a meeting that
can change them (`FrameTexts._rings_may_change`; one constant text while nobody is flagged).
`tests/ledger/test_frame_texts.py` holds it to `build_frames`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cogleague.core import jsonio
from cogleague.games.ledger.board import VIEWER_BOARD_WINDOW
from cogleague.games.ledger.rings import may_flag
from cogleague.games.ledger.table import DONE, Table

NO_RINGS = '{"pairs":[],"components":[]}'
UNRESOLVED = '"moveA":null,"moveB":null,"payA":null,"payB":null}'


_QUOTED = {s: jsonio.quote(s) for s in ("", "between", "deal", "done", "complete", "deadline")}


def _quote(s: str) -> str:
    """`jsonio.quote`, the phases, reasons and the empty memo looked up."""
    return _QUOTED.get(s) or jsonio.quote(s)


class FrameTexts:
    """A `Table` folded event by event, with its frame's fragments as text."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.rows: list[str | None] = [None] * table.seats
        self.heads_of_rows: list[str | None] = [None] * table.seats  # alias, policy name
        self.seats: str | None = None  # the rows joined, until a meeting
        self.pairs: list[str] = []
        self.heads: list[str] = []  # the open round's pairings: ``{"a":…,"first":…,``
        self.board = "[]"
        self.rings = NO_RINGS
        self.relevant: set[int] = set()  # pair keys that may be flagged (`rings.may_flag`)
        self.relevant_seats: set[int] = set()

    def fold(self, kind: str, event: Mapping[str, Any]) -> None:
        table = self.table
        table.fold(kind, event)
        if kind == "meeting":
            a, b, pair = event["a"], event["b"], event["pair"]
            self.rows[a] = self.rows[b] = None
            self.seats = None
            m = table.round_meetings[pair]
            assert m is not None
            self.pairs[pair] = (f'{self.heads[pair]}"moveA":{m.move_a!r},"moveB":'
                                f'{m.move_b!r},"payA":{m.pay_a!r},"payB":{m.pay_b!r}}}')
            if self._rings_may_change(a, b):
                rings = table.rings()
                self.rings = (NO_RINGS if not rings.pairs and not rings.components
                              else jsonio.dumps(rings.to_json()))
        elif kind == "round":
            assert table.open_round is not None
            self.heads = [jsonio.dumps(p.to_json())[:-1] + ","
                          for p in table.schedule[table.open_round]]
            self.pairs = [head + UNRESOLVED for head in self.heads]
        elif kind == "gossip":
            self.board = jsonio.dumps([n.to_json()
                                       for n in table.board[-VIEWER_BOARD_WINDOW:]])

    def _rings_may_change(self, a: int, b: int) -> bool:
        """After a meeting of `a` and `b`: whether it can change the rings. A pair's flag
        reads its own meetings (`rings.may_flag`) and its seats' payoff sums, so the rings
        stay as they were unless this pair may be flagged (or could before) or a seat of a
        pair that may be flagged met."""
        tally, relevant = self.table.tally, self.relevant
        n = tally.seats
        key = a * n + b if a < b else b * n + a
        was = key in relevant
        if may_flag(tally.met_by_pair[key], tally.inside_by_pair[key]):
            relevant.add(key)
        else:
            relevant.discard(key)
        if was != (key in relevant):
            self.relevant_seats = {s for k in relevant for s in divmod(k, n)}
        return was or key in relevant or a in self.relevant_seats or b in self.relevant_seats

    def _row(self, s: int, stats: tuple[list[float], list[float], list[float]]) -> str:
        """`jsonio.dumps(Table._row(s))`. The numbers are the table's own: integer counters
        and sums of the events' integers, and floats from `median`, `mean` and `halo` of
        those (finite), which the encoder writes as `repr` does."""
        t = self.table
        scores, means, halos = stats
        head = self.heads_of_rows[s]
        if head is None:
            head = self.heads_of_rows[s] = (f'{{"alias":{jsonio.quote(t.aliases[s])},'
                                            f'"policyName":{jsonio.quote(t.policy_names[s])},'
                                            '"score":')
        text = (f'{head}{scores[s]!r},"mean":{means[s]!r},"total":{t.total[s]!r},'
                f'"meetings":{len(t.pays[s])},"kind":{t.kind[s]!r},"harsh":{t.harsh[s]!r},'
                f'"halo":{halos[s]!r},"fallbacks":{t.fallbacks[s]!r},'
                f'"timeouts":{t.timeouts[s]!r},"memo":{_quote(t.memos[s])}}}')
        self.rows[s] = text
        return text

    def frame(self) -> str:
        """`jsonio.dumps(Table.frame())`."""
        t = self.table
        seats = self.seats
        if seats is None:  # a meeting since the last frame: its two seats' rows afresh
            rows, stats = self.rows, t.stats()
            seats = self.seats = ",".join([row if row is not None else self._row(s, stats)
                                           for s, row in enumerate(rows)])
        pairs = ",".join(self.pairs) if t.open_round is not None else ""
        reason = "null" if t.reason is None else jsonio.quote(t.reason)
        open_round = "null" if t.open_round is None else repr(t.open_round)
        return (f'{{"phase":{jsonio.quote(t.phase)},"round":{open_round},'
                f'"roundsPlayed":{t.rounds_played},"seats":[{seats}],"pairs":[{pairs}],'
                f'"board":{self.board},"rings":{self.rings},'
                f'"done":{"true" if t.phase == DONE else "false"},"reason":{reason}}}')


def frame_texts(table: Table, events: Iterable[Mapping[str, Any]]) -> list[str]:
    """The frame after each prefix of `events` (events + 1 frames), as text."""
    writer = FrameTexts(table)
    out = [writer.frame()]
    for event in events:
        writer.fold(event["kind"], event)
        out.append(writer.frame())
    return out
