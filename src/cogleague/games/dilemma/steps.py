"""The two steps of a dilemma round as the runner sees them: `StepPlan`, the columns of one
step planned once per round parity, and `StepEvents`, a settled step's events built when read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

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

    __slots__ = ("contexts", "first", "groups", "seats", "slots", "suffixes")

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
