"""The five scripted baselines (spec §14): pure functions of public state, seat, round and the
seat stream. They write no notes or memos and never need clamping. `mirror` is also the
universal fallback.

Each reads `turn.context` (a `TurnContext`), never the serialized observation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from cogleague.core.errors import ConfigError
from cogleague.core.game import Action, Turn
from cogleague.games.ledger.conduct import halo_at_least_half
from cogleague.games.ledger.context import TurnContext
from cogleague.games.ledger.subgames import COOPERATE, DEFECT, DILEMMA, TRUST, ULTIMATUM


class Baseline:
    """A baseline bound to one seat. Subclasses implement `move`."""

    name: ClassVar[str]

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def act(self, turn: Turn) -> Action:
        return {"move": self.move(turn.context)}

    def act_step(self, contexts: Sequence[TurnContext]) -> list[Action]:
        """All of this seat's turns of one step, in order (the step-batch protocol): `act`
        on each, from its context."""
        if len(contexts) == 1:  # a Ledger step asks each seat once: no comprehension frame
            return [{"move": self.move(contexts[0])}]
        move = self.move
        return [{"move": move(ctx)} for ctx in contexts]

    def move(self, ctx: TurnContext) -> int:  # pragma: no cover - interface
        raise NotImplementedError


class Mirror(Baseline):
    """Tit-for-tat with rare forgiveness in DILEMMA; trusts partners whose halo is ≥ 0.5."""

    name = "mirror"
    FORGIVENESS = 0.20  # chance to forgive a partner's first and only defection
    TRUSTED = (4, 50)  # investor sends / trustee returns % when the partner is trusted
    WARY = (1, 25)  # … when it is not
    ULTIMATUM = (5, 4)  # proposer offer / responder floor

    def move(self, ctx: TurnContext) -> int:
        t, partner, slot = ctx.table, ctx.slot.partner, ctx.slot
        if slot.subgame == DILEMMA:
            ref = t.last_dilemma_vs[ctx.seat][partner]
            if ref is None:
                ref = t.last_dilemma[partner]
            if ref is None:
                return COOPERATE
            if ref == DEFECT and t.defections[partner] == 1 \
                    and ctx.seat_stream().random() < self.FORGIVENESS:
                return COOPERATE
            return ref
        if slot.subgame == TRUST:
            trusted = halo_at_least_half(t.kind[partner], t.harsh[partner])  # none: 0.5
            return (self.TRUSTED if trusted else self.WARY)[slot.side]
        return self.ULTIMATUM[slot.side]


Moves = Mapping[str, tuple[int, int]]  # subgame → (first-mover move, second-mover move)


class Shark(Baseline):
    """Takes everything it can, every time."""

    name = "shark"
    MOVES: ClassVar[Moves] = {DILEMMA: (DEFECT, DEFECT), TRUST: (0, 0), ULTIMATUM: (1, 1)}

    def move(self, ctx: TurnContext) -> int:
        return self.MOVES[ctx.slot.subgame][ctx.slot.side]


class Grim(Baseline):
    """Fair until a partner is harsh to it once; then harsh to that partner for good."""

    name = "grim"
    FAIR: ClassVar[Moves] = {DILEMMA: (COOPERATE, COOPERATE), TRUST: (4, 50), ULTIMATUM: (6, 4)}
    BETRAYED: ClassVar[Moves] = {DILEMMA: (DEFECT, DEFECT), TRUST: (0, 0), ULTIMATUM: (2, 6)}

    def move(self, ctx: TurnContext) -> int:
        slot = ctx.slot
        betrayed = ctx.table.harsh_vs[slot.partner][ctx.seat]
        return (self.BETRAYED if betrayed else self.FAIR)[slot.subgame][slot.side]


class Saint(Baseline):
    """Always generous."""

    name = "saint"
    MOVES: ClassVar[Moves] = {DILEMMA: (COOPERATE, COOPERATE), TRUST: (6, 75),
                              ULTIMATUM: (6, 0)}

    def move(self, ctx: TurnContext) -> int:
        return self.MOVES[ctx.slot.subgame][ctx.slot.side]


class Opportunist(Baseline):
    """Exploits low-halo partners (weak: halo < 0.5) and cashes in on the last round."""

    name = "opportunist"
    INVEST = (0, 4)  # weak / otherwise
    RETURN_PERCENT = (0, 50)  # weak or last / otherwise
    OFFER = (3, 5)  # weak or last / otherwise
    FLOOR = 3

    def move(self, ctx: TurnContext) -> int:
        slot = ctx.slot
        table = ctx.table
        weak = not halo_at_least_half(table.kind[slot.partner], table.harsh[slot.partner])
        grab = weak or ctx.round == ctx.rounds - 1
        if slot.subgame == DILEMMA:
            return DEFECT if grab else COOPERATE
        if slot.subgame == TRUST:
            return self.INVEST[not weak] if slot.side == 0 else self.RETURN_PERCENT[not grab]
        return self.OFFER[not grab] if slot.side == 0 else self.FLOOR


BASELINES: dict[str, type[Baseline]] = {
    cls.name: cls for cls in (Mirror, Shark, Grim, Saint, Opportunist)
}
FALLBACK_BASELINE = Mirror.name


def baseline_key(name: str) -> str | None:
    """The canonical baseline name for `name` (any case), or None if there is none."""
    key = name.strip().lower()
    return key if key in BASELINES else None


def make_baseline(name: str, seat: int) -> Baseline:
    key = baseline_key(name)
    if key is None:
        raise ConfigError("seats", f"seats: unknown baseline {name!r} for seat {seat} "
                                   f"(known: {', '.join(BASELINES)})")
    return BASELINES[key](seat)
