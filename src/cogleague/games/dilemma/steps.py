"""The two steps of a dilemma round as the runner sees them: `StepPlan`, the columns of one
step planned once per round parity, and `StepEvents`, a settled step's events built when read."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from operator import attrgetter
from typing import Any, TypeVar

from cogleague.core import jsonio
from cogleague.core.game import Event
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT, ranked_standings
from cogleague.games.dilemma.state import Move, TableState, TurnContext

T = TypeVar("T")
Payoffs = tuple[tuple[tuple[int, int], ...], ...]
"""The payoff matrix indexed [a cooperates][b cooperates] (bools index as 0/1)."""


class StepPlan:
    """One step of every round of one parity, made once: its contexts (turns by ascending seat,
    then ascending opponent), their turn-id suffixes and the turns grouped by seat — the
    columns `DilemmaGame.step` hands out, shared by every round of that parity."""

    __slots__ = ("contexts", "first", "groups", "seats", "slots", "suffixes", "texts")

    def __init__(self, first: bool, entries: list[tuple[TurnContext, str]]) -> None:
        self.first = first  # step 1 of a round (the first movers)
        self.contexts = [ctx for ctx, _ in entries]
        self.suffixes = [suffix for _, suffix in entries]
        self.seats = [ctx.seat for ctx in self.contexts]
        # where each turn's sealed move goes: (its pairing's `current`, its side)
        self.slots = [(ctx.pair.current, ctx.side) for ctx in self.contexts]
        groups: list[tuple[int, list[TurnContext]]] = []
        for ctx in self.contexts:
            ctx.step = self
            if groups and groups[-1][0] == ctx.seat:
                groups[-1][1].append(ctx)
            else:
                groups.append((ctx.seat, [ctx]))
        self.groups = groups
        self.texts: _Texts | None = None  # the replay's row fragments, made on first use


class StepEvents:
    """The events of one settled step, built when called (`EventRenderer`): from the step's
    moves and, for a round's second step, the pairings' recorded histories of that round —
    data that never changes once written, so a late call builds the events a prompt one would."""

    __slots__ = ("ended", "moves", "pay", "plan", "round", "state")

    def __init__(self, state: TableState, pay: Payoffs, plan: StepPlan, moves: list[Move],
                 r: int, ended: list[Event] | None) -> None:
        self.state = state
        self.pay = pay
        self.plan = plan
        self.moves = moves
        self.round = r
        self.ended = ended

    def __call__(self) -> list[Event]:
        return self._build(Event)

    def replay_rows(self) -> list[dict[str, Any]]:
        """The replay document's rows of these events (`replay.event_json`'s form), written
        straight from the moves: a replay of a headless episode builds no `Event`."""
        return self._build(_row)

    def replay_texts(self) -> list[str]:
        """`replay_rows` as canonical JSON text (`jsonio.dumps` of the rows, brackets off),
        spliced from fragments made once per step plan (`_Texts`): the ``action_private`` rows
        of a pattern of plain choices are one template with the round put in; reveals and
        standings a few joins each; a message, a timeout or the end goes through the encoder."""
        moves = self.moves
        if not all(map(_PLAIN, moves)):
            return [jsonio.dumps(self._build(_row))[1:-1]]
        rs = str(self.round)
        out = [_Texts.of(self.plan).actions(tuple(map(_COOP, moves))).replace("\x00", rs)]
        if self.plan.first:
            return out
        state, pay, i = self.state, self.pay, self.round - 1
        reveal = '{"audience":null,"event":{"kind":"choices_revealed","round":' + rs
        rows = []
        points = [0] * len(state.points)  # `state.points_after(i)`, summed on the way
        for rec in state.pairs:
            (coop_a, coop_b), (totals_a, totals_b) = rec.coop, rec.totals
            notes_a, notes_b = rec.notes
            ta = "true" if notes_a and i in notes_a and notes_a[i].timeout else "false"
            tb = "true" if notes_b and i in notes_b and notes_b[i].timeout else "false"
            a, b = rec.pairing
            pa, pb = totals_a[i], totals_b[i]
            points[a] += pa
            points[b] += pb
            rows.append(f'{reveal}{_pair_texts(rec.pairing, pay)[coop_a[i]][coop_b[i]]}'
                        f'"totals":[{pa},{pb}],"timeouts":[{ta},{tb}]}}}}')
        out.append(",".join(rows))
        out.append('{"audience":null,"event":{"kind":"tournament_standings","round":' + rs
                   + ',"standings":' + _standings_text(points) + "}}")
        if self.ended is not None:
            out.append(jsonio.dumps([_row(e.kind, e.data, e.audience) for e in self.ended])[1:-1])
        return out

    def _build(self, make: Callable[[str, dict[str, Any], tuple[int, ...] | None], T]
               ) -> list[T]:
        """The step's events, each made by ``make(kind, data, audience)``."""
        r = self.round
        events: list[T] = []
        append = events.append
        for ctx, m in zip(self.plan.contexts, self.moves, strict=True):
            seat = ctx.seat
            a, b = ctx.pair.pairing
            if not m.plain:
                if m.message is not None:
                    append(make("message_private", {
                        "round": r, "pairing": [a, b], "from": seat, "to": ctx.opponent,
                        "message": m.message}, (seat, ctx.opponent)))
                if m.timeout:
                    append(make("timeout_private", {
                        "round": r, "pairing": [a, b], "seat": seat, "action": COOPERATE,
                        "cause": m.cause}, (seat,)))
            append(make("action_private", {
                "round": r, "pairing": [a, b], "seat": seat,
                "action": COOPERATE if m.coop else DEFECT}, ctx.audience))
        if self.plan.first:
            return events
        # the reveal: every pairing paid, the standings, and the end after the last round
        state, pay, i = self.state, self.pay, r - 1
        for rec in state.pairs:
            ma, mb = rec.move(0, i), rec.move(1, i)
            ca, cb = ma.coop, mb.coop
            pa, pb = pay[ca][cb]
            a, b = rec.pairing
            append(make("choices_revealed", {
                "round": r, "seats": [a, b],
                "choices": [COOPERATE if ca else DEFECT, COOPERATE if cb else DEFECT],
                "points": [pa, pb], "totals": [rec.totals[0][i], rec.totals[1][i]],
                "timeouts": [ma.timeout, mb.timeout]}, None))
        append(make("tournament_standings",
                    {"round": r, "standings": ranked_standings(state.points_after(i))}, None))
        if self.ended is not None:
            events += [make(e.kind, e.data, e.audience) for e in self.ended]
        return events


def _row(kind: str, data: dict[str, Any], audience: tuple[int, ...] | None) -> dict[str, Any]:
    """`replay.event_json(Event(kind, data, audience))`, without the `Event`."""
    return {"audience": None if audience is None else list(audience),
            "event": {"kind": kind, **data}}


_PLAIN = attrgetter("plain")
_COOP = attrgetter("coop")


class _Texts:
    """Row fragments of one step plan, made once and kept on it: per turn slot the
    ``action_private`` row around its round number (for either choice), and per pattern of
    choices the step's rows as one template (``\\x00`` for the round: canonical JSON never
    holds a raw NUL)."""

    __slots__ = ("_templates", "heads", "tails")

    def __init__(self, plan: StepPlan) -> None:
        self.heads: list[str] = []
        self.tails: list[tuple[str, str]] = []
        for ctx in plan.contexts:
            self.heads.append('{"audience":' + jsonio.dumps(list(ctx.audience))
                              + ',"event":{"kind":"action_private","round":\x00')
            a, b = ctx.pair.pairing
            defect, coop = ("," + jsonio.dumps({"pairing": [a, b], "seat": ctx.seat,
                                                "action": act})[1:] + "}"
                            for act in (DEFECT, COOPERATE))
            self.tails.append((defect, coop))
        self._templates: dict[tuple[bool, ...], str] = {}

    @staticmethod
    def of(plan: StepPlan) -> _Texts:
        if plan.texts is None:
            plan.texts = _Texts(plan)
        return plan.texts

    def actions(self, coops: tuple[bool, ...]) -> str:
        """The ``action_private`` rows of these choices (by turn slot), round left as NUL."""
        made = self._templates.get(coops)
        if made is None:
            made = ",".join(head + tail[c] for head, tail, c in
                            zip(self.heads, self.tails, coops, strict=True))
            if len(self._templates) < 4096:
                self._templates[coops] = made
        return made


@lru_cache(maxsize=256)
def _pair_texts(pairing: tuple[int, int], pay: Payoffs) -> tuple[tuple[str, str], ...]:
    """``,"seats":[a,b],"choices":[…],"points":[…],`` of a ``choices_revealed`` row, by
    [a cooperates][b cooperates]."""
    a, b = pairing
    if not all(type(x) is int for row in pay for cell in row for x in cell):
        raise TypeError(f"payoffs must be integers (got {pay!r})")  # totals are their sums
    return tuple(tuple(
        "," + jsonio.dumps({"seats": [a, b], "choices": [_choice(ca), _choice(cb)],
                            "points": list(pay[ca][cb])})[1:-1] + ","
        for cb in (False, True)) for ca in (False, True))  # type: ignore[misc]


def _choice(coop: bool) -> str:
    return COOPERATE if coop else DEFECT


def _standings_text(points: list[int]) -> str:
    """`jsonio.dumps(ranked_standings(points))` (integer points: sums of integer payoffs)."""
    return "[" + ",".join([f'{{"seat":{r["seat"]},"points":{r["points"]},"rank":{r["rank"]}}}'
                           for r in ranked_standings(points)]) + "]"
