"""`LedgerGame`: the Ledger rules object the episode runner drives (spec §8).

Each round is one step: `open_round` emits `round`, `pending` asks all eight seats at once,
`apply` settles the four meetings and the gossip. Every state change is a fold of the game's
own events into its `Table` (meetings pass their fields straight to `Table.meeting`, which is
what `Table.fold` calls too), so a replay folds to exactly the same state. `apply` validates
every decision before it changes anything, which makes it transactional.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from cogleague.core.errors import GameStateError, SeatInputRejected
from cogleague.core.game import Action, Decision, Event, Game, Parsed, Timing, Turn
from cogleague.core.seat import FallbackCause
from cogleague.games.ledger.aliases import SEATS, draw_aliases
from cogleague.games.ledger.baselines import Baseline, Mirror, make_baseline
from cogleague.games.ledger.board import (
    MEMO_LIMIT,
    NOTE_LIMIT,
    clean_memo_text,
    clean_note_text,
    note_target,
)
from cogleague.games.ledger.config import ROUNDS_MAX, LedgerConfig
from cogleague.games.ledger.context import TurnContext
from cogleague.games.ledger.events import MeetingEvent
from cogleague.games.ledger.prompt import render_prompt, system_text
from cogleague.games.ledger.replies import parse_reply
from cogleague.games.ledger.schedule import draw_schedule
from cogleague.games.ledger.subgames import LEGAL, PAYOFF_TABLE
from cogleague.games.ledger.table import BETWEEN, COMPLETE, DEADLINE, DEAL, DONE, Table

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
_TURN_ID_SETS = [frozenset(ids) for ids in _TURN_IDS]  # a round's open turns: all eight seats
# A meeting event's restricted fields (a memo: its author only), by (a, b): read-only, shared.
_RESTRICTED: list[list[dict[str, tuple[int, ...]]]] = [
    [{"memoA": (a,), "memoB": (b,)} for b in range(SEATS)] for a in range(SEATS)]
# The entry of a baseline's bare move (no note, memo, clamp or timeout), by move: immutable,
# so built once instead of once per decision.
# A turn's legal actions depend only on its move range: one read-only document per range,
# shared by every turn with that range (as Commons Family and the dilemma share theirs).
_LEGAL_BY_RANGE = {(lo, hi): {"move": {"min": lo, "max": hi}, "note": NOTE_LIMIT,
                              "memo": MEMO_LIMIT}
                   for sides in LEGAL.values() for lo, hi in sides}
_PLAIN_SCRIPTED = [_Entry(move, "", "", True, False, False, 0)
                   for move in range(max(hi for sides in LEGAL.values() for _, hi in sides) + 1)]

# The fallback of each seat: a baseline holds only its seat, so every game shares them.
_MIRRORS = [Mirror(s) for s in range(SEATS)]


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
        self._turns: list[Turn] = []

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
        table, seed, ids = self.table, self.config.seed, _TURN_IDS[r]
        # `render_prompt` is `TurnContext.prompt` for the view `Turn.prompt_text` passes it.
        self._turns = [Turn(ids[seat], seat, _LEGAL_BY_RANGE[slot.lo, slot.hi], ctx.observation,
                            render_prompt, ctx, r)
                       for seat, slot in enumerate(table.slots[r])
                       for ctx in (TurnContext(table, seat, r, slot, seed),)]
        return events

    def pending(self) -> list[Turn]:
        return list(self._turns) if self.table.phase == DEAL else []

    def parse(self, turn: Turn, raw: Any) -> Parsed:
        ctx: TurnContext = turn.context
        target = note_target(self.table.slots, ctx.seat, ctx.round)
        return parse_reply(raw, ctx.slot, None if target is None else self.aliases[target])

    def fallback(self, turn: Turn) -> Action:
        return _MIRRORS[turn.seat].act(turn)

    # -- settling a round --------------------------------------------------------------------
    def apply(self, decisions: Mapping[str, Decision]) -> list[Event]:
        """§8 step 6. Validates all eight decisions first; a `SeatInputRejected` names the one
        seat whose input is refused and leaves the state untouched."""
        if self.table.phase != DEAL:
            raise GameStateError("apply: no round is open")
        turns = self._turns
        if not _TURN_ID_SETS[self.table.rounds_played].issuperset(decisions):
            known = {t.turn_id for t in turns}
            unknown = sorted(k for k in decisions if k not in known)
            raise GameStateError(f"apply: unknown turn ids {unknown} (open: {sorted(known)})")
        entries: list[_Entry] = []
        add, entry, get, plain = entries.append, self._entry, decisions.get, _PLAIN_SCRIPTED
        for turn in turns:
            decision = get(turn.turn_id)
            # A baseline's bare legal move (`_entry`'s first exit, inlined: it is nearly every
            # decision of a scripted episode); anything else takes the full check.
            if decision is not None and decision.source == "scripted" \
                    and decision.clamped is not True and type(decision.timeouts) is int \
                    and decision.timeouts == 0:
                action = decision.action
                if type(action) is dict and len(action) == 1:
                    move = action.get("move")
                    slot = turn.context.slot
                    if type(move) is int and slot.lo <= move <= slot.hi:
                        add(plain[move])
                        continue
            add(entry(turn, decision))
        events = self._settle(entries)
        self._turns = []
        return events

    def _entry(self, turn: Turn, decision: Decision | None) -> _Entry:
        if decision is None:
            decision = Decision(self.fallback(turn), source="fallback",
                                cause=FallbackCause.NO_SUBMISSION)
        ctx: TurnContext = turn.context
        slot = ctx.slot
        action = decision.action
        move = action.get("move") if isinstance(action, dict) else None
        if type(move) is not int or not slot.lo <= move <= slot.hi:  # bool is not int here
            raise SeatInputRejected(turn.turn_id, f"{turn.turn_id}: move must be an integer "
                                                  f"{slot.lo}..{slot.hi} (got {action!r})")
        timeouts = decision.timeouts
        if type(timeouts) is not int or timeouts < 0:
            raise SeatInputRejected(turn.turn_id, f"{turn.turn_id}: timeouts must be a count "
                                                  f"(got {timeouts!r})")
        if len(action) > 1 and not ACTION_KEYS.issuperset(action):
            raise SeatInputRejected(turn.turn_id, f"{turn.turn_id}: an action has only the keys "
                                                  f"move, note, memo (got {action!r})")
        source = decision.source
        if source == "scripted" and len(action) == 1 and timeouts == 0 \
                and decision.clamped is not True:
            return _PLAIN_SCRIPTED[move]
        fallback = source == "fallback"
        note = memo = ""
        if len(action) > 1 and not fallback:  # a fallback drops the seat's note and memo
            note = self._checked_text(turn, "note", action.get("note", ""), clean_note_text)
            memo = self._checked_text(turn, "memo", action.get("memo", ""), clean_memo_text)
            if note or "subject" in action:
                self._check_subject(turn, ctx, action.get("subject"))
        return _Entry(move, note, memo, decision.source != "seat", fallback,
                      decision.clamped is True, timeouts)

    @staticmethod
    def _checked_text(turn: Turn, field: str, text: Any, clean: Any) -> str:
        if text == "":
            return ""
        if not isinstance(text, str) or clean(text) != text:
            raise SeatInputRejected(turn.turn_id, f"{turn.turn_id}: {field} must be cleaned "
                                                  f"text (got {text!r})")
        return text

    def _check_subject(self, turn: Turn, ctx: TurnContext, subject: Any) -> None:
        """A note reviews the previous round's partner; round 1 has none (§7)."""
        target = note_target(self.table.slots, ctx.seat, ctx.round)
        if target is None:
            raise SeatInputRejected(turn.turn_id, f"{turn.turn_id}: a note has no subject in "
                                                  "round 1")
        if subject is not None and subject != self.aliases[target]:
            raise SeatInputRejected(turn.turn_id, f"{turn.turn_id}: a note must review "
                                                  f"{self.aliases[target]} (got {subject!r})")

    def _settle(self, entries: list[_Entry]) -> list[Event]:
        """Emit and fold the round's meetings, gossip and (after the last round) the end."""
        table = self.table
        r = table.rounds_played
        events: list[Event] = []
        add, meeting, restricted = events.append, table.meeting, _RESTRICTED
        for index, (a, b, subgame, _) in enumerate(self.schedule[r]):
            move_a, _, memo_a, scripted_a, fallback_a, clamped_a, timeouts_a = entries[a]
            move_b, _, memo_b, scripted_b, fallback_b, clamped_b, timeouts_b = entries[b]
            pay_a, pay_b = PAYOFF_TABLE[subgame][move_a][move_b]  # moves checked in `_entry`
            add(MeetingEvent((r, index, a, b, subgame, move_a, move_b, pay_a, pay_b,
                              scripted_a, scripted_b, fallback_a, fallback_b, clamped_a,
                              clamped_b, timeouts_a, timeouts_b, memo_a, memo_b),
                             restricted[a][b]))
            meeting(r, index, a, b, subgame, move_a, move_b, pay_a, pay_b, memo_a, memo_b,
                    fallback_a, fallback_b, timeouts_a, timeouts_b)
        tail = [Event("gossip", {"round": r, "author": seat,
                                 "subject": note_target(table.slots, seat, r), "text": e.note})
                for seat, e in enumerate(entries) if e.note]
        if r + 1 == table.max_rounds:
            tail.append(Event("end", {"round": r + 1, "reason": COMPLETE}))
        if tail:
            events += self._emit(tail)
        return events

    def stop(self, reason: str, detail: str | None = None) -> list[Event]:
        """End between rounds with `deadline` (the only early end, §11). Idempotent."""
        if self.table.phase == DONE:
            return []
        if not self.table.started:
            raise GameStateError("stop: the episode has not started")
        if reason != DEADLINE:
            raise ValueError(f"reason must be {DEADLINE} for an early end (got {reason!r})")
        self._turns = []
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
