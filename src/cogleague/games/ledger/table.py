"""The table state, built only by folding events.

The live game folds the events it emits, and the replay verifier folds the events it reads, so
both reach the same state through one code path — which is why a replay's results and frames
re-derive exactly. Medians, halos and rings are derived on demand, never logged (spec §8.7).

Besides the public record the table keeps a few per-pair caches (latest DILEMMA moves, harsh
conduct) so scripted baselines answer in O(1) without scanning the record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from cogleague.games.ledger.board import VIEWER_BOARD_WINDOW, Note
from cogleague.games.ledger.conduct import halo, kinds
from cogleague.games.ledger.rings import Rings, RingTally
from cogleague.games.ledger.schedule import Pairing, Slot, slots
from cogleague.games.ledger.scoring import STAT_DECIMALS, mean, median
from cogleague.games.ledger.subgames import DEFECT, DILEMMA

BETWEEN = "between"  # the initial phase, and the phase between rounds
DEAL = "deal"  # a round is open: seats are deciding
DONE = "done"
COMPLETE = "complete"
DEADLINE = "deadline"


class Meeting(NamedTuple):
    """One resolved meeting of the public record."""

    round: int
    pair: int
    a: int
    b: int
    subgame: str
    move_a: int
    move_b: int
    pay_a: int
    pay_b: int


class Side(NamedTuple):
    """What one seat's decision adds to the record besides its move (§8 step 6)."""

    memo: str
    fallback: bool
    timeouts: int




class Table:
    """Everything that happened at one table, by seat."""

    def __init__(self, aliases: list[str], policy_names: list[str],
                 schedule: list[list[Pairing]]) -> None:
        n = len(aliases)
        self.seats = n
        self.aliases = aliases
        self.policy_names = policy_names
        self.schedule = schedule
        self.slots: list[list[Slot]] = [slots(r) for r in schedule]
        self.max_rounds = len(schedule)
        self.started = False
        self.phase = BETWEEN
        self.rounds_played = 0
        self.open_round: int | None = None  # the round being (or last) dealt
        self.round_meetings: list[Meeting | None] = []
        self.resolved = 0  # meetings resolved in the open round
        self.reason: str | None = None
        # the public record
        self.record: list[Meeting] = []
        self.history: list[list[Meeting]] = [[] for _ in range(n)]
        self.pays: list[list[int]] = [[] for _ in range(n)]
        self.total = [0] * n
        self.kind = [0] * n
        self.harsh = [0] * n
        self.board: list[Note] = []
        # private and bookkeeping
        self.memos = [""] * n
        self.fallbacks = [0] * n
        self.timeouts = [0] * n
        # baseline caches: last_dilemma_vs[s][t] = t's latest DILEMMA move against s
        self.last_dilemma_vs: list[list[int | None]] = [[None] * n for _ in range(n)]
        self.last_dilemma: list[int | None] = [None] * n
        self.defections = [0] * n
        self.harsh_vs = [[False] * n for _ in range(n)]  # [s][t]: s was harsh meeting t
        self._tally = RingTally()  # ring sums, meeting by meeting
        self._rings: Rings | None = None
        self._stats: tuple[list[float], list[float], list[float]] | None = None
        self._stale: set[int] = set()  # seats whose `_stats` entries a meeting changed
        self._rows: list[dict[str, Any] | None] = [None] * n  # frame rows, until seat changes

    # -- folding events --------------------------------------------------------------------
    def fold(self, kind: str, data: Mapping[str, Any]) -> None:
        """Apply one event. Events must be consistent (the game or the verifier checks first)."""
        if kind == "meeting":
            self._meeting(data)
        elif kind == "gossip":
            self.board.append(Note(data["round"], data["author"], data["subject"], data["text"]))
        elif kind == "round":
            self.phase = DEAL
            self.open_round = data["round"]
            self.round_meetings = [None] * len(data["pairs"])
            self.resolved = 0
        elif kind == "start":
            self.started = True
        elif kind == "end":
            self.phase = DONE
            self.reason = data["reason"]
        else:
            raise ValueError(f"kind must be start, round, meeting, gossip or end (got {kind!r})")

    def _meeting(self, d: Mapping[str, Any]) -> None:
        self.meeting(Meeting(d["round"], d["pair"], d["a"], d["b"], d["subgame"], d["moveA"],
                             d["moveB"], d["payA"], d["payB"]),
                     Side(d["memoA"], d["fallbackA"], d["timeoutsA"]),
                     Side(d["memoB"], d["fallbackB"], d["timeoutsB"]))

    def meeting(self, m: Meeting, side_a: Side, side_b: Side) -> None:
        """Fold one `meeting` event: the public record, payoffs, conduct (`conduct.kinds`),
        the DILEMMA caches, memos, fallbacks and timeouts. Live and in replays alike."""
        _, pair, a, b, subgame, move_a, move_b, pay_a, pay_b = m
        self.record.append(m)
        self._tally.add(a, b, pay_a, pay_b)
        self.round_meetings[pair] = m
        history, pays, total = self.history, self.pays, self.total
        history[a].append(m)
        history[b].append(m)
        pays[a].append(pay_a)
        pays[b].append(pay_b)
        total[a] += pay_a
        total[b] += pay_b
        kind_a, kind_b = kinds(subgame, move_a, move_b)
        if kind_a:  # conduct: a's side, then b's
            self.kind[a] += 1
        else:
            self.harsh[a] += 1
            self.harsh_vs[a][b] = True
        if kind_b:
            self.kind[b] += 1
        else:
            self.harsh[b] += 1
            self.harsh_vs[b][a] = True
        if subgame == DILEMMA:
            self.last_dilemma_vs[a][b] = move_b
            self.last_dilemma_vs[b][a] = move_a
            self.last_dilemma[a] = move_a
            self.last_dilemma[b] = move_b
            self.defections[a] += move_a == DEFECT
            self.defections[b] += move_b == DEFECT
        for seat, side in ((a, side_a), (b, side_b)):
            if side.memo:
                self.memos[seat] = side.memo
            self.fallbacks[seat] += side.fallback
            self.timeouts[seat] += side.timeouts
        self._rings = None
        self._stale.add(a)
        self._stale.add(b)
        rows = self._rows
        rows[a] = rows[b] = None
        self.resolved += 1
        if self.resolved == len(self.round_meetings):
            self.rounds_played += 1
            self.phase = BETWEEN

    # -- derived statistics ----------------------------------------------------------------
    def halo(self, seat: int) -> float:
        return halo(self.kind[seat], self.harsh[seat])

    def median(self, seat: int) -> float:
        return median(self.pays[seat])

    def stats(self) -> tuple[list[float], list[float], list[float]]:
        """(score = median, mean, halo) by seat, the last two rounded as documents show them;
        kept between calls, a seat's entries recomputed after it meets (results and frames
        read them; copy before handing out)."""
        if self._stats is None:
            self._stats = ([median(p) for p in self.pays],
                           [round(mean(p), STAT_DECIMALS) for p in self.pays],
                           [round(halo(k, h), STAT_DECIMALS)
                            for k, h in zip(self.kind, self.harsh, strict=True)])
            self._stale.clear()
        elif self._stale:  # only the seats of the meetings since: the rest cannot have moved
            scores, means, halos = self._stats
            for s in self._stale:
                pays = self.pays[s]
                scores[s] = median(pays)
                means[s] = round(mean(pays), STAT_DECIMALS)
                halos[s] = round(halo(self.kind[s], self.harsh[s]), STAT_DECIMALS)
            self._stale.clear()
        return self._stats

    @property
    def tally(self) -> RingTally:
        """The ring sums, meeting by meeting (read-only for others)."""
        return self._tally

    def rings(self) -> Rings:
        if self._rings is None:
            self._rings = self._tally.rings()
        return self._rings

    def rings_json(self) -> dict[str, Any]:
        return self.rings().to_json()

    # -- documents ---------------------------------------------------------------------------
    def results(self) -> dict[str, Any]:
        """The §9 results document, keys in the listed order, arrays by seat."""
        rings = self.rings_json()
        scores, means, halos = self.stats()
        return {
            "policyNames": list(self.policy_names),
            "aliases": list(self.aliases),
            "scores": list(scores),
            "mean": list(means),
            "total": list(self.total),
            "meetings": [len(p) for p in self.pays],
            "kind": list(self.kind),
            "harsh": list(self.harsh),
            "halo": list(halos),
            "rounds": self.rounds_played,
            "maxRounds": self.max_rounds,
            "ringPairs": len(rings["pairs"]),
            "rings": rings,
            "reason": self.reason,
            "fallbacks": list(self.fallbacks),
            "timeouts": list(self.timeouts),
        }

    def _row(self, s: int) -> dict[str, Any]:
        """Seat `s` in a frame, kept until its next meeting: frames in a row share the rows of
        the seats that did not meet in between (a frame is read and encoded, never changed)."""
        scores, means, halos = self.stats()
        row = self._rows[s] = {
            "alias": self.aliases[s],
            "policyName": self.policy_names[s],
            "score": scores[s],
            "mean": means[s],
            "total": self.total[s],
            "meetings": len(self.pays[s]),
            "kind": self.kind[s],
            "harsh": self.harsh[s],
            "halo": halos[s],
            "fallbacks": self.fallbacks[s],
            "timeouts": self.timeouts[s],
            "memo": self.memos[s],
        }
        return row

    def frame(self) -> dict[str, Any]:
        """The spectator frame (§15): the table after some prefix of the events."""
        rows = self._rows
        seats = [row if row is not None else self._row(s) for s, row in enumerate(rows)]
        pairs = []
        if self.open_round is not None:
            for p, m in zip(self.schedule[self.open_round], self.round_meetings, strict=True):
                pairs.append({"a": p.a, "b": p.b, "subgame": p.subgame, "first": p.first,
                              "moveA": m.move_a if m else None, "moveB": m.move_b if m else None,
                              "payA": m.pay_a if m else None, "payB": m.pay_b if m else None})
        return {
            "phase": self.phase,
            "round": self.open_round,
            "roundsPlayed": self.rounds_played,
            "seats": seats,
            "pairs": pairs,
            "board": [n.to_json() for n in self.board[-VIEWER_BOARD_WINDOW:]],
            "rings": self.rings_json(),
            "done": self.phase == DONE,
            "reason": self.reason,
        }
