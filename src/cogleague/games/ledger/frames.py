"""The replay's spectator frames written as canonical JSON text, event by event.

`replay.build_frames` folds the events into a fresh `Table` and builds each frame as a dict;
`FrameWriter` writes the same frames' bytes (``jsonio.dumps`` of each) without a `Table` or a
dict: it keeps only what a frame shows, and each frame is the previous one's fragments with
the event's changes — the two seats' rows after a meeting, one pairing's entry, the board
after a note, the rings only when a meeting can change them (`_rings_may_change`: one
constant text while nobody is flagged). Fragments that recur across episodes (a pairing's
head, a row's statistics for its counts) are made once per process.
`tests/ledger/test_frame_texts.py` holds it to `build_frames`.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from cogleague.core import jsonio
from cogleague.games.ledger.board import VIEWER_BOARD_WINDOW
from cogleague.games.ledger.conduct import halo, kinds
from cogleague.games.ledger.events import MEETING_KEYS
from cogleague.games.ledger.rings import RingTally, may_flag, outpacing_line
from cogleague.games.ledger.schedule import Pairing
from cogleague.games.ledger.scoring import STAT_DECIMALS, median_of_sorted
from cogleague.games.ledger.table import BETWEEN, DEAL, DONE

NO_RINGS = '{"pairs":[],"components":[]}'
UNRESOLVED = '"moveA":null,"moveB":null,"payA":null,"payB":null'
PLAIN_TAIL = '"fallbacks":0,"timeouts":0,"memo":""}'  # a row's end: no fallback, timeout, memo

_PAIR_HEADS: dict[Pairing, str] = {}  # ``{"a":…,"b":…,"subgame":…,"first":…,`` by pairing
_PAIR_TEXTS: dict[Pairing, str] = {}  # `pairing_text` by pairing
STATS_CACHED = 50_000  # ≈ 15 MB at most; 3,000 scripted episodes make ≈ 6,000
_STATS: dict[tuple[int, int, int, int, int, int], str] = {}
"""A row's ``…,"score":`` to ``"halo":…,`` by (the two middle payoffs, total, meetings, kind,
harsh) — the middles being one payoff twice for an odd count: the score with `Table.stats`'
rounded mean and halo of those counts, and the counts."""


HEADS_CACHED = 4096  # three phases by rounds: ≈ 2,000 for the longest episodes
_HEADS: dict[tuple[str, int, int], str] = {}
"""A frame's head by (phase, open round, rounds played): `FrameWriter._head`."""


def _pair_head(p: Pairing) -> str:
    head = _PAIR_HEADS.get(p)
    if head is None:
        head = _PAIR_HEADS[p] = jsonio.dumps(p.to_json())[:-1] + ","
    return head


def pairing_text(p: Pairing) -> str:
    """``jsonio.dumps(p.to_json())`` (a replay's schedule lists them), made once per
    process (`_PAIR_TEXTS`)."""
    text = _PAIR_TEXTS.get(p)
    if text is None:
        text = _PAIR_TEXTS[p] = _pair_head(p)[:-1] + "}"
    return text


def schedule_text(schedule: list[list[Pairing]]) -> str:
    """``jsonio.dumps(schedule)`` of the pairings' `to_json`, without its brackets: each
    round's pairings as `pairing_text` (its lookup inline: a replay writes 56 of them)."""
    texts = _PAIR_TEXTS
    return ",".join(["[" + ",".join([texts.get(p) or pairing_text(p) for p in r]) + "]"
                     for r in schedule])


def _stats(pays: list[int], total: int, kind: int, harsh: int) -> str:
    """The stats fragment of a seat with sorted payoffs `pays` (at least one) and these
    counts, made once per process (`_STATS`), its floats' texts too (`_FLOATS`: fresh
    episodes bring new combinations of a few recurring floats)."""
    count = len(pays)
    lo, hi = pays[(count - 1) >> 1], pays[count >> 1]
    key = (lo, hi, total, count, kind, harsh)
    text = _STATS.get(key)
    if text is None:
        if len(_STATS) >= STATS_CACHED:  # remote seats can make any counts: stay bounded
            _STATS.clear()
            _FLOATS.clear()
        score = _float_text("score", lo, hi, lambda: median_of_sorted(pays))
        mean = _float_text("mean", total, count, lambda: round(total / count, STAT_DECIMALS))
        shown = _float_text("halo", kind, harsh,
                            lambda: round(halo(kind, harsh), STAT_DECIMALS))
        text = _STATS[key] = _stats_text(score, mean, total, count, kind, harsh, shown)
    return text


_FLOATS: dict[tuple[str, int, int], str] = {}
"""The text of a row's float by what decides it: the score by the two middle payoffs, the
rounded mean by (total, meetings), the rounded halo by (kind, harsh)."""


def _float_text(name: str, x: int, y: int, value: Callable[[], float]) -> str:
    text = _FLOATS.get((name, x, y))
    if text is None:
        text = _FLOATS[name, x, y] = repr(value())
    return text


def _stats_text(score: str, mean: str, total: int, count: int, kind: int, harsh: int,
                shown: str) -> str:
    """A row's ``…,"score":`` to ``"halo":…,``, its floats given as text."""
    return (f'{score},"mean":{mean},"total":{total!r},"meetings":{count!r},'
            f'"kind":{kind!r},"harsh":{harsh!r},"halo":{shown},')


EMPTY_STATS = _stats_text("0.0", "0.0", 0, 0, 0, 0, repr(round(halo(0, 0), STAT_DECIMALS)))
"""The stats fragment of a seat before its first meeting."""


def _tail(fallbacks: int, timeouts: int, memo: str) -> str:
    """A row's end: ``"fallbacks":…,"timeouts":…,"memo":…}``."""
    return f'"fallbacks":{fallbacks!r},"timeouts":{timeouts!r},"memo":{jsonio.quote(memo)}}}'


class FrameWriter:
    """The frames of one episode's events, as text: `fold` an event (or `meeting` a meeting's
    fields), then read `text`.

    A frame is the join of `parts`: its head (phase and rounds), the seats' rows and the open
    round's pairings, and its end (board, rings, done and reason); an event replaces the parts
    it changes, and the one join copies them. A row's statistics and a pairing's moves, which
    every meeting changes, are parts of their own, between parts that seldom change (a row's
    end with the next row's head, a pairing's end with the next one's head): a meeting
    replaces three parts with texts it already has, and concatenates none.

    The numbers are the table's own: integer counters and sums of the events' integers, and
    floats from `median`, `round(mean)` and `round(halo)` of those (finite), which the
    encoder writes as `repr` does."""

    def __init__(self, aliases: Sequence[str], policy_names: Sequence[str],
                 schedule: list[list[Pairing]]) -> None:
        n = len(aliases)
        self.schedule = schedule
        self.heads = [f'{{"alias":{jsonio.quote(a)},"policyName":{jsonio.quote(p)},"score":'
                      for a, p in zip(aliases, policy_names, strict=True)]
        self.pays: list[list[int]] = [[] for _ in range(n)]  # sorted, for the median
        # the ring tally, its payoff sums and counts by seat being the rows' totals and
        # meetings (one list each): `_stats` and `_rings_may_change` keep it, meeting by meeting
        self.tally = RingTally(n)
        self.total = self.tally.pay_sum
        self.count = self.tally.pay_count
        self.kind = [0] * n
        self.harsh = [0] * n
        self.fallbacks = [0] * n
        self.timeouts = [0] * n
        self.memos = [""] * n
        self.tails = [PLAIN_TAIL] * n
        # by seat, its pairs that may be flagged (`rings.may_flag`): by pair key, the pair's
        # seats and `rings.outpacing_line`
        self.near: list[dict[int, tuple[int, int, int, int, int]]] = [{} for _ in range(n)]
        self.flagged: set[int] = set()  # the pair keys the rings text flags
        self.rings = NO_RINGS
        self.phase, self.open_round, self.rounds_played = BETWEEN, -1, 0
        self.tail = '"done":false,"reason":null}'  # until the end
        self.to_resolve = 0  # meetings the open round still waits for
        self.notes: list[str] = []
        self.board = "[]"
        # the parts: the head, the first row's head, then by seat s its statistics at 2 + 2·s
        # and its row's end with what follows (`_joint`); then the open round's pairings
        # from `pairs_at` (`fold`); the end
        parts = [self._head(), self.heads[0]]
        for s in range(n):
            parts += (EMPTY_STATS, self._joint(s))
        self.pairs_at = len(parts)
        parts.append(self._end())
        self.parts = parts

    @property
    def text(self) -> str:
        """The frame after the events folded so far."""
        return "".join(self.parts)

    def _head(self) -> str:
        """The frame up to its seats: phase and rounds (they change with rounds, not meetings),
        made once per process (`_HEADS`)."""
        key = (self.phase, self.open_round, self.rounds_played)
        text = _HEADS.get(key)
        if text is None:
            if len(_HEADS) >= HEADS_CACHED:  # replayed documents can number rounds anyhow
                _HEADS.clear()
            r = "null" if self.open_round < 0 else repr(self.open_round)
            text = _HEADS[key] = (f'{{"phase":{jsonio.quote(self.phase)},"round":{r},'
                                  f'"roundsPlayed":{self.rounds_played!r},"seats":[')
        return text

    def _joint(self, s: int) -> str:
        """Seat `s`'s row end and the next row's head, or the seats' end after the last."""
        after = "," + self.heads[s + 1] if s + 1 < len(self.heads) else '],"pairs":['
        return self.tails[s] + after

    def _end(self) -> str:
        """The frame after its pairings: board, rings, done and reason."""
        return f'],"board":{self.board},"rings":{self.rings},{self.tail}'

    def _stats(self, s: int, pay: int, kind: bool) -> str:
        """Fold seat `s`'s payoff and conduct of a meeting; its row's statistics, the middle of
        `jsonio.dumps(Table._row(s))`."""
        pays = self.pays[s]
        insort(pays, pay)
        total = self.total[s] = self.total[s] + pay
        self.count[s] += 1
        if kind:
            kinds_, harsh = self.kind[s] + 1, self.harsh[s]
            self.kind[s] = kinds_
        else:
            kinds_, harsh = self.kind[s], self.harsh[s] + 1
            self.harsh[s] = harsh
        count = len(pays)
        stats = _STATS.get((pays[(count - 1) >> 1], pays[count >> 1], total, count, kinds_,
                            harsh))  # `_stats`, its lookup inline (twice a meeting)
        if stats is None:
            stats = _stats(pays, total, kinds_, harsh)
        return stats

    def _side(self, s: int, memo: str, fallback: bool, timeouts: int) -> None:
        """Fold what seat `s`'s side of a meeting adds besides its payoff: its row's end."""
        if memo:
            self.memos[s] = memo
        self.fallbacks[s] += fallback
        self.timeouts[s] += timeouts
        self.tails[s] = _tail(self.fallbacks[s], self.timeouts[s], self.memos[s])
        self.parts[3 + 2 * s] = self._joint(s)

    def fold(self, event: Mapping[str, Any]) -> None:
        """Apply one event (as `Table.fold` does) and write the frame after it into `text`."""
        kind = event["kind"]
        if kind == "meeting":
            self.meeting(tuple(map(event.__getitem__, MEETING_KEYS)))
            return
        if kind == "round":
            r = self.open_round = event["round"]
            self.phase = DEAL
            self.to_resolve = len(event["pairs"])
            heads = _PAIR_HEADS  # `_pair_head`, its lookup inline
            parts = self.parts
            end = parts[-1]
            del parts[self.pairs_at:]
            # by pairing i its head (after the previous pairing's end) and its moves at
            # `pairs_at` + 1 + 2·i, then the last one's end
            for i, p in enumerate(self.schedule[r]):
                head = heads.get(p) or _pair_head(p)
                parts += (head if not i else "}," + head, UNRESOLVED)
            if len(parts) > self.pairs_at:
                parts.append("}")
            parts.append(end)
            parts[0] = self._head()
        elif kind == "gossip":
            self.notes.append(jsonio.dumps({"round": event["round"], "author": event["author"],
                                            "subject": event["subject"],
                                            "text": event["text"]}))  # `Note.to_json`
            self.board = "[" + ",".join(self.notes[-VIEWER_BOARD_WINDOW:]) + "]"
            self.parts[-1] = self._end()
        elif kind == "end":
            self.phase = DONE
            reason = event["reason"]
            reason_text = "null" if reason is None else jsonio.quote(reason)
            self.tail = f'"done":true,"reason":{reason_text}}}'
            self.parts[0] = self._head()
            self.parts[-1] = self._end()
        elif kind != "start":  # the start changes nothing a frame shows
            raise ValueError(f"kind must be start, round, meeting, gossip or end (got {kind!r})")
        else:
            return

    def meeting(self, fields: tuple[Any, ...]) -> str:
        """Fold a meeting given as its event's fields in `MEETING_KEYS` order (what
        `events.RoundEvents` holds) and write the frame after it into `text`; returns the
        text of its moves and payoffs, ``"moveA":…,"payB":…``, which the event's text shares
        (`events.meeting_parts`)."""
        (_, pair, a, b, subgame, move_a, move_b, pay_a, pay_b, _, _, fallback_a, fallback_b,
         _, _, timeouts_a, timeouts_b, memo_a, memo_b) = fields
        kind_a, kind_b = kinds(subgame, move_a, move_b)
        if memo_a or fallback_a or timeouts_a:
            self._side(a, memo_a, fallback_a, timeouts_a)
        if memo_b or fallback_b or timeouts_b:
            self._side(b, memo_b, fallback_b, timeouts_b)
        parts = self.parts
        parts[2 + 2 * a] = self._stats(a, pay_a, kind_a)
        parts[2 + 2 * b] = self._stats(b, pay_b, kind_b)
        moves = f'"moveA":{move_a!r},"moveB":{move_b!r},"payA":{pay_a!r},"payB":{pay_b!r}'
        parts[self.pairs_at + 1 + 2 * pair] = moves
        if self._rings_may_change(a, b, pay_a + pay_b):
            tally = self.tally
            rings = tally.rings()
            self.flagged = {p.a * tally.seats + p.b for p in rings.pairs}
            self.rings = (NO_RINGS if not rings.pairs and not rings.components
                          else jsonio.dumps(rings.to_json()))
            parts[-1] = self._end()
        self.to_resolve -= 1
        if not self.to_resolve:
            self.rounds_played += 1
            self.phase = BETWEEN
            parts[0] = self._head()
        return moves

    def _rings_may_change(self, a: int, b: int, pays: int) -> bool:
        """Tally a meeting of `a` and `b` for `pays` points between them (`RingTally.add`,
        whose seat sums `_stats` keeps), then tell whether the rings can differ. A pair's
        flag reads its own meetings and its seats' payoff sums, so only pairs with `a` or `b`
        can change, and of those only the ones that may be flagged at all (`rings.may_flag`,
        which only a pair's own meetings move): the rings differ only if one of them is
        flagged now or was before (its means moved)."""
        tally, near, flagged = self.tally, self.near, self.flagged
        n = tally.seats
        key = a * n + b if a < b else b * n + a
        near_a, near_b = near[a], near[b]
        met_by_pair, inside_by_pair = tally.met_by_pair, tally.inside_by_pair
        met = met_by_pair[key] = met_by_pair.get(key, 0) + 1
        inside = inside_by_pair[key] = inside_by_pair.get(key, 0) + pays
        if may_flag(met, inside):
            near_a[key] = near_b[key] = (a, b, *outpacing_line(met, inside))
        elif key in near_a:
            del near_a[key], near_b[key]
        if not near_a and not near_b:
            return key in flagged
        if flagged and (key in flagged or not flagged.isdisjoint(near_a.keys() | near_b.keys())):
            return True
        # whether one of them is flagged now: `outpaces`, as the lines of the pairs (the
        # pair of `a` and `b` is in both, and checked twice)
        counts, sums = tally.pay_count, tally.pay_sum
        for lines in (near_a, near_b):
            for x, y, slope_c, slope_s, bound in lines.values():
                if slope_c * (counts[x] + counts[y]) - slope_s * (sums[x] + sums[y]) >= bound:
                    return True
        return False


def frame_texts(aliases: Sequence[str], policy_names: Sequence[str], schedule: list[list[Pairing]],
                events: Iterable[Mapping[str, Any]]) -> list[str]:
    """The frame after each prefix of `events` (events + 1 frames), as text."""
    writer = FrameWriter(aliases, policy_names, schedule)
    out = [writer.text]
    fold = writer.fold
    for event in events:
        fold(event)
        out.append(writer.text)
    return out
