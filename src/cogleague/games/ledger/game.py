"""`LedgerGame`: the Ledger rules object the episode runner drives (spec §8).

Each round is one step: `open_round` emits `round`, `pending` asks all eight seats at once,
`apply` settles the four meetings and the gossip. Every state change is a fold of the game's
own events into its `Table` (meetings pass their fields straight to `Table.meeting`, which is
what `Table.fold` calls too), so a replay folds to exactly the same state. `apply` validates
every decision before it changes anything, which makes it transactional.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeGuard

from cogleague.core.errors import GameStateError, SeatInputRejected
from cogleague.core.game import (
    Action,
    Event,
    Game,
    Parsed,
    Step,
    StepDecisions,
    Timing,
    Turn,
)
from cogleague.games.ledger.aliases import SEATS, draw_aliases
from cogleague.games.ledger.baselines import Baseline, Mirror, make_baseline
from cogleague.games.ledger.board import (
    MEMO_LIMIT,
    NOTE_LIMIT,
    clean_memo_text,
    clean_note_text,
    note_target,
    wrong_subject,
)
from cogleague.games.ledger.config import ROUNDS_MAX, LedgerConfig
from cogleague.games.ledger.context import TurnContext
from cogleague.games.ledger.events import RoundEvents
from cogleague.games.ledger.prompt import render_prompt, system_text
from cogleague.games.ledger.replies import parse_reply
from cogleague.games.ledger.schedule import draw_schedule
from cogleague.games.ledger.subgames import LEGAL, PAYOFF_TABLE
from cogleague.games.ledger.table import (
    BETWEEN,
    COMPLETE,
    DEADLINE,
    DEAL,
    DONE,
    Meeting,
    Side,
    Table,
)

RULES_VERSION = "ledger-1"
ACTION_KEYS = frozenset(("move", "note", "memo", "subject"))


class _Entry(NamedTuple):
    """One seat's validated decision for the round."""

    move: int
    note: str
    memo: str
    scripted: bool
    fallback: bool
    clamped: bool
    timeouts: int


_TURN_IDS = [[f"r{r}s{s}" for s in range(SEATS)] for r in range(ROUNDS_MAX)]
# A turn's legal actions depend only on its move range: one read-only document per range,
# shared by every turn with that range (as Commons Family and the dilemma share theirs).
_LEGAL_BY_RANGE = {(lo, hi): {"move": {"min": lo, "max": hi}, "note": NOTE_LIMIT,
                              "memo": MEMO_LIMIT}
                   for sides in LEGAL.values() for lo, hi in sides}
# The entry of a baseline's bare move (no note, memo, clamp or timeout), by move: immutable,
# so built once instead of once per decision.
_PLAIN_SCRIPTED = [_Entry(move, "", "", True, False, False, 0)
                   for move in range(max(hi for sides in LEGAL.values() for _, hi in sides) + 1)]

# The fallback of each seat: a baseline holds only its seat, so every game shares them.
_MIRRORS = [Mirror(s) for s in range(SEATS)]
_STEP_SEATS = tuple(range(SEATS))  # every round's step: all eight seats, in seat order


def _is_count(x: Any) -> TypeGuard[int]:
    """An integer that is not a bool (a bool is an int to Python, not a move or a count)."""
    return isinstance(x, int) and not isinstance(x, bool)


def _step_ids(step: Step) -> list[str]:
    return list(_TURN_IDS[step.round])


def _step_turns(step: Step) -> list[Turn]:
    """The step's `Turn`s, from its contexts alone (`render_prompt` is `TurnContext.prompt`
    for the view `Turn.prompt_text` passes it)."""
    r, ids = step.round, _TURN_IDS[step.round]
    return [Turn(ids[ctx.seat], ctx.seat, _LEGAL_BY_RANGE[ctx.slot.lo, ctx.slot.hi],
                 ctx.observation, render_prompt, ctx, r) for ctx in step.contexts]


class LedgerGame(Game):
    name = "ledger"
    rules_version = RULES_VERSION

    def __init__(self, config: LedgerConfig) -> None:
        self.config = config
        self.seed: int = config.seed
        self.max_rounds: int = config.rounds
        self.num_seats = SEATS
        self.policy_names = config.policy_names
        self.aliases = draw_aliases(config.seed)
        self.schedule = draw_schedule(config.seed, config.rounds)
        self.table = Table(self.aliases, self.policy_names, self.schedule)
        self._contexts: list[TurnContext] = []  # the open round's, by seat
        self._step: Step | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> list[Event]:
        if self.table.started:
            raise GameStateError("start: the episode has already started")
        return self._emit([Event("start", {})])

    @property
    def between_rounds(self) -> bool:
        return self.table.started and self.table.phase == BETWEEN

    @property
    def rounds_played(self) -> int:
        return self.table.rounds_played

    @property
    def done(self) -> bool:
        return self.table.phase == DONE

    def open_round(self) -> list[Event]:
        if not self.between_rounds:
            raise GameStateError(f"open_round: the phase must be between (it is "
                                 f"{self.table.phase if self.table.started else 'not started'})")
        r = self.table.rounds_played
        events = self._emit([Event("round", {"round": r, "pairs": [
            {"a": a, "b": b, "subgame": subgame, "first": first}  # `Pairing.to_json`, unrolled
            for a, b, subgame, first in self.schedule[r]]})])
        table, seed = self.table, self.config.seed
        self._contexts = [TurnContext(table, seat, r, slot, seed)
                          for seat, slot in enumerate(table.slots[r])]
        self._step = None
        return events

    def step(self) -> Step:
        """This round's step as columns: every seat once, in seat order."""
        st = self._step
        if st is None:
            if self.table.phase != DEAL:
                raise GameStateError("step: no round is open")
            contexts = self._contexts
            # the groups: (seat, (its context,)) by seat, built in C (`zip(contexts)` gives
            # the one-tuples)
            groups = list(zip(_STEP_SEATS, zip(contexts), strict=True))
            st = self._step = Step(_STEP_SEATS, contexts, groups, self.table.rounds_played,
                                   _step_ids, _step_turns)
        return st

    def parse(self, turn: Turn, raw: Any) -> Parsed:
        ctx: TurnContext = turn.context
        target = note_target(self.table.slots, ctx.seat, ctx.round)
        return parse_reply(raw, ctx.slot, None if target is None else self.aliases[target])

    def fallback(self, turn: Turn) -> Action:
        return _MIRRORS[turn.seat].act(turn)

    # -- settling a round --------------------------------------------------------------------
    def apply_step(self, decisions: StepDecisions) -> RoundEvents:
        """Settle the round from the step's columns. Validates all eight decisions first; a
        `SeatInputRejected` names the one seat whose input is refused and leaves the state
        untouched. The round's events are built when the renderer is read."""
        if self.table.phase != DEAL:
            raise GameStateError("apply: no round is open")
        step, actions = decisions.step, decisions.actions
        if step is not self._step or len(actions) != SEATS:
            raise ValueError(f"decisions must be for the current step and list one action per "
                             f"turn ({SEATS}, got {len(actions)})")
        ids, special = _TURN_IDS[step.round], decisions.special or {}
        entries = []
        for i, ctx in enumerate(self._contexts):  # the columns, read as the runner logs them
            d = special.get(i)
            if d is not None:
                entries.append(self._entry(ids[i], ctx, d.action, d.source, d.clamped,
                                           d.timeouts))
            elif decisions.source is not None and actions[i] is not None:
                entries.append(self._entry(ids[i], ctx, actions[i], decisions.source))
            else:
                entries.append(self._entry(ids[i], ctx, None, "fallback"))
        render = self._settle(entries)
        step.release()  # its contexts hold the live table by seat (~250 tracked objects)
        self._step = None
        self._contexts = []
        return render

    def _entry(self, turn_id: str, ctx: TurnContext, action: Any, source: str,
               clamped: Any = False, timeouts: Any = 0) -> _Entry:
        """One seat's decision checked (§8 step 6), or the refusal naming its field. No
        decision (`action` None) is the turn's fallback: the seat's mirror."""
        if action is None:
            action = {"move": _MIRRORS[ctx.seat].move(ctx)}
        slot = ctx.slot
        move = action.get("move") if isinstance(action, dict) else None
        if not _is_count(move) or not slot.lo <= move <= slot.hi:
            raise SeatInputRejected(turn_id, f"{turn_id}: move must be an integer "
                                                  f"{slot.lo}..{slot.hi} (got {action!r})")
        if not _is_count(timeouts) or timeouts < 0:
            raise SeatInputRejected(turn_id, f"{turn_id}: timeouts must be a count "
                                                  f"(got {timeouts!r})")
        if len(action) > 1 and not ACTION_KEYS.issuperset(action):
            raise SeatInputRejected(turn_id, f"{turn_id}: an action has only the keys "
                                                  f"move, note, memo (got {action!r})")
        if source == "scripted" and len(action) == 1 and timeouts == 0 and clamped is not True:
            return _PLAIN_SCRIPTED[move]  # a baseline's bare legal move
        fallback = source == "fallback"
        note = memo = ""
        if len(action) > 1 and not fallback:  # a fallback drops the seat's note and memo
            note = self._note(ctx, action.get("note", ""), action.get("subject"))
            memo = self._checked_text(turn_id, "memo", action.get("memo", ""), clean_memo_text)
        return _Entry(move, note, memo, source != "seat", fallback, clamped is True, timeouts)

    @staticmethod
    def _checked_text(turn_id: str, field: str, text: Any, clean: Any) -> str:
        if text == "":
            return ""
        if not isinstance(text, str) or clean(text) != text:
            raise SeatInputRejected(turn_id, f"{turn_id}: {field} must be cleaned "
                                                  f"text (got {text!r})")
        return text

    def _note(self, ctx: TurnContext, text: Any, subject: Any) -> str:
        """The note that goes on the board, or "" to drop it: gossip is cheap talk and never
        changes a payoff or a score (the Ledger seed), so a note that cannot stand (round 1 has
        no target, a wrong subject, text `parse` would not have produced) never costs the
        decision its move. `parse` is where a seat is told why its note was dropped."""
        if not isinstance(text, str) or not text or clean_note_text(text) != text:
            return ""
        target = note_target(self.table.slots, ctx.seat, ctx.round)
        if target is None or wrong_subject(subject, self.aliases[target]) is not None:
            return ""
        return text

    def _settle(self, entries: list[_Entry]) -> RoundEvents:
        """Fold the round's meetings, gossip and (after the last round) the end; the meetings
        are noted as their fields, the rest as events (folded now, as `_emit` does)."""
        table = self.table
        r = table.rounds_played
        meetings: list[tuple[Any, ...]] = []
        for index, (a, b, subgame, _) in enumerate(self.schedule[r]):
            ea, eb = entries[a], entries[b]
            pay_a, pay_b = PAYOFF_TABLE[subgame][ea.move][eb.move]  # moves checked in `_entry`
            meetings.append((r, index, a, b, subgame, ea.move, eb.move, pay_a, pay_b,
                             ea.scripted, eb.scripted, ea.fallback, eb.fallback, ea.clamped,
                             eb.clamped, ea.timeouts, eb.timeouts, ea.memo, eb.memo))
            table.meeting(Meeting(r, index, a, b, subgame, ea.move, eb.move, pay_a, pay_b),
                          Side(ea.memo, ea.fallback, ea.timeouts),
                          Side(eb.memo, eb.fallback, eb.timeouts))
        tail = [Event("gossip", {"round": r, "author": seat,
                                 "subject": note_target(table.slots, seat, r), "text": e.note})
                for seat, e in enumerate(entries) if e.note]
        if r + 1 == table.max_rounds:
            tail.append(Event("end", {"round": r + 1, "reason": COMPLETE}))
        if tail:
            self._emit(tail)
        return RoundEvents(meetings, tail)

    def stop(self, reason: str, detail: str | None = None) -> list[Event]:
        """End between rounds with `deadline` (the only early end, §11). Idempotent."""
        if self.table.phase == DONE:
            return []
        if not self.table.started:
            raise GameStateError("stop: the episode has not started")
        if reason != DEADLINE:
            raise ValueError(f"reason must be {DEADLINE} for an early end (got {reason!r})")
        self._step = None
        self._contexts = []
        return self._emit([Event("end", {"round": self.table.rounds_played, "reason": reason})])

    def _emit(self, events: list[Event]) -> list[Event]:
        for e in events:
            self.table.fold(e.kind, e.data)
        return events

    # -- documents and views -------------------------------------------------------------------
    def results(self) -> dict[str, Any]:
        return self.table.results()

    def timing(self) -> Timing:
        return self.config.timing()

    def make_baseline(self, name: str, seat: int) -> Baseline:
        return make_baseline(name, seat)

    def spectator_state(self) -> dict[str, Any]:
        return self.table.frame()

    def system_text(self, seat: int) -> str:
        return system_text(self.aliases[seat], self.config.rounds)

    def public_config(self) -> dict[str, Any]:
        """What any seat may know up front: no seed (it would reveal the schedule)."""
        c = self.config
        return {"variant": c.variant, "rounds": c.rounds, "seats": SEATS,
                "episode_timeout_s": c.episode_timeout_s,
                "play_budget_fraction": c.play_budget_fraction,
                "decision_timeout_s": c.decision_timeout_s}

    def replay_document(self, log: Any, *, frames: bool = False) -> dict[str, Any]:
        from cogleague.games.ledger.replay import replay_document

        return replay_document(self, log, frames=frames)
