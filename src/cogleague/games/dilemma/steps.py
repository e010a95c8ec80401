"""The two steps of a dilemma round as the runner sees them: `StepPlan`, the columns of one
step planned once per round parity, and `StepEvents`, a settled step's events built when read."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

from cogleague.core.game import Event
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT, ranked_standings
from cogleague.games.dilemma.schedule import first_mover, pairings
from cogleague.games.dilemma.state import Move, TableState, TurnContext

T = TypeVar("T")
Payoffs = tuple[tuple[tuple[int, int], ...], ...]
"""The payoff matrix indexed [a cooperates][b cooperates] (bools index as 0/1)."""


class StepShape:
    """One step of every round of one parity at a table of a given size, seed-free: its turns
    (seat, pairing index, side, ordinal among the seat's turns of the round) by ascending seat,
    then ascending opponent, their turn-id suffixes, and the replay's text templates
    (`texts.StepTexts`, filled on use). Made once per seat count (`round_shapes`) and shared by
    every table of that size."""

    __slots__ = ("first", "pairings", "seats", "suffixes", "texts", "turns")

    def __init__(self, first: bool, pairings: list[tuple[int, int]],
                 turns: list[tuple[int, int, int, int]], suffixes: list[str]) -> None:
        self.first = first  # step 1 of a round (the first movers)
        self.pairings = pairings  # the table's, in `TableState.pairs` order
        self.turns = turns  # (seat, pairing index, side, turn ordinal)
        self.seats = [seat for seat, *_ in turns]
        self.suffixes = suffixes
        self.texts: Any = None  # `texts.StepTexts`, made on first use


@lru_cache(maxsize=32)
def round_shapes(seats: int) -> tuple[tuple[StepShape, StepShape], tuple[StepShape, StepShape]]:
    """Both steps of a round, per round parity (index 1 = odd rounds), at a table of `seats`."""
    pairs = pairings(seats)
    shapes = []
    for parity in (0, 1):
        round_no = 2 - parity  # any round of that parity
        steps: tuple[list[tuple[int, int, int, int]], ...] = ([], [])
        for index, pairing in enumerate(pairs):
            first = first_mover(pairing, round_no)
            for side, seat in enumerate(pairing):
                steps[0 if seat == first else 1].append((seat, pairing[1 - side], index, side))
        counts = [0] * seats
        made = []
        for step, turns in enumerate(steps):
            shaped, suffixes = [], []
            for seat, _, index, side in sorted(turns):
                counts[seat] += 1
                shaped.append((seat, index, side, counts[seat]))
                a, b = pairs[index]
                suffixes.append(f":{a}-{b}:{seat}")
            made.append(StepShape(step == 0, pairs, shaped, suffixes))
        shapes.append((made[0], made[1]))
    return shapes[0], shapes[1]


class StepPlan:
    """One step of every round of one parity at one table: its shape's turns bound to the
    table's pairing records as contexts (`TurnContext`), their slots and the turns grouped by
    seat — the columns `DilemmaGame.step` hands out, shared by every round of that parity —
    and the table's legal actions, which its turns carry."""

    __slots__ = ("contexts", "first", "groups", "legal", "seats", "shape", "slots", "suffixes")

    def __init__(self, shape: StepShape, state: TableState, legal: list[dict[str, Any]]
                 ) -> None:
        self.shape = shape
        self.legal = legal
        self.first = shape.first
        pairs = state.pairs
        self.contexts = [TurnContext(state, seat, pairs[index], side, shape.first, turn_no, shape)
                         for seat, index, side, turn_no in shape.turns]
        self.suffixes = shape.suffixes
        self.seats = shape.seats
        # where each turn's sealed move goes: (its pairing's `current`, its side)
        self.slots = [(ctx.pair.current, ctx.side) for ctx in self.contexts]
        groups: list[tuple[int, list[TurnContext]]] = []
        for ctx in self.contexts:
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
        """The replay document's rows of these events (`event_json`'s form), written
        straight from the moves: a replay of a headless episode builds no `Event`."""
        return self._build(event_row)

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


def event_row(kind: str, data: dict[str, Any], audience: tuple[int, ...] | None) -> dict[str, Any]:
    """`event_json(Event(kind, data, audience))`, without the `Event`."""
    return {"audience": None if audience is None else list(audience),
            "event": {"kind": kind, **data}}


def event_json(e: Event) -> dict[str, Any]:
    """An event as the replay document's ``events`` hold it: its audience and the event."""
    return event_row(e.kind, e.data, e.audience)
