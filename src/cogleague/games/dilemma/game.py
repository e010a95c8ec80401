"""The Prisoner's Dilemma table as a pure `Game` (seed 003, spec dilemma.md §1–5).

Each round takes two steps: step 1 asks every pairing's first mover, step 2 every second mover
(who sees the first mover's promise, never its choice). After step 2 all pairs are revealed at
once and paid. Turns of a step are listed by ascending seat, then ascending opponent; the runner
asks one seat's turns in that order and different seats concurrently.

Views are lazy (built only when a seat needs them); scripted baselines read `Turn.context`.
A turn's view reflects the state when it is read, so it must be read before the step is applied
(the runner and the server always do).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from cogleague.core.errors import ConfigError, GameStateError, IllegalAction, SeatInputRejected
from cogleague.core.game import Action, Decision, Event, Game, Parsed, Policy, Timing, Turn
from cogleague.games.dilemma import views
from cogleague.games.dilemma.actions import normalize
from cogleague.games.dilemma.aliases import draw_aliases
from cogleague.games.dilemma.baselines import make_baseline
from cogleague.games.dilemma.config import DilemmaConfig
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT, competition_ranks, matrix
from cogleague.games.dilemma.promises import PROMISE_RULE
from cogleague.games.dilemma.schedule import first_mover
from cogleague.games.dilemma.settlement import REFUNDED_REASONS, SETTLED_REASONS, split_pot
from cogleague.games.dilemma.state import Move, PairRecord, TableState, TurnContext

STOP_REASONS = ("deadline", "aborted")
NO_SUBMISSION = "no_submission"

# One planned turn: (seat, pairing record, side of the seat in it, ordinal of the turn in the
# seat's round).
Plan = list[tuple[int, PairRecord, int, int]]


def _word(coop: bool) -> str:
    return COOPERATE if coop else DEFECT


class DilemmaGame(Game):
    name = "dilemma"
    rules_version = views.RULES_VERSION

    def __init__(self, config: DilemmaConfig, policy_names: Sequence[str]) -> None:
        if len(policy_names) != config.seats:
            raise ConfigError("seats", f"seats must list exactly {config.seats} policies "
                                       f"(got {len(policy_names)})")
        self.config = config
        self.num_seats = config.seats
        self.policy_names = list(policy_names)
        self.aliases = draw_aliases(config.seed, config.seats)
        self.state = TableState(config)
        self.reason: str | None = None
        self._legal = views.legal_actions(config.promises)
        self._matrix = matrix(config.payoffs)
        self._timing = Timing(decision_timeout_s=config.turn_deadline_ms / 1000, retries=0)
        self._phase = "new"  # new → between ⇄ (step0 → step1) → done
        self._round = 0
        self._turns: list[Turn] = []
        self._moves: list[list[Move | None]] = [[None, None] for _ in self.state.pairs]
        self._plans = {parity: self._plan(parity) for parity in (0, 1)}

    def _plan(self, parity: int) -> tuple[Plan, Plan]:
        """Both steps of a round whose number has this parity (1 = odd)."""
        steps: tuple[Plan, Plan] = ([], [])
        round_no = 2 - parity  # any round of that parity
        for rec in self.state.pairs:
            first = first_mover(rec.pairing, round_no)
            for seat in rec.pairing:
                step = 0 if seat == first else 1
                steps[step].append((seat, rec, rec.side_of(seat), 0))
        counts = [0] * self.num_seats
        numbered: list[Plan] = []
        for step_plan in steps:
            step_plan.sort(key=lambda item: (item[0], item[1].pairing[1 - item[2]]))
            out: Plan = []
            for seat, rec, side, _ in step_plan:
                counts[seat] += 1
                out.append((seat, rec, side, counts[seat]))
            numbered.append(out)
        return numbered[0], numbered[1]

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> list[Event]:
        if self._phase != "new":
            raise GameStateError("start() was already called")
        self._phase = "between"
        cfg = self.config
        return [Event("tournament_start", {
            "seats": cfg.seats, "aliases": list(self.aliases),
            "pairings": [list(rec.pairing) for rec in self.state.pairs],
            "rounds": cfg.rounds_total, "payoffs": cfg.payoffs.to_json(),
            "promises": cfg.promises, "turn_deadline_ms": cfg.turn_deadline_ms})]

    @property
    def between_rounds(self) -> bool:
        return self._phase == "between"

    @property
    def rounds_played(self) -> int:
        return self.state.rounds_played

    @property
    def round(self) -> int:
        """The current (or last) round number, 1-based; 0 before the first."""
        return self._round

    @property
    def done(self) -> bool:
        return self._phase == "done"

    def open_round(self) -> list[Event]:
        if self._phase != "between":
            raise GameStateError("open_round() needs the game to be between rounds")
        self._round += 1
        self._phase = "step0"
        self._turns = self._build_turns(0)
        return [Event("round_start", {"round": self._round})]

    def _build_turns(self, step: int) -> list[Turn]:
        r = self._round
        cfg = self.config
        first = step == 0
        turns = []
        for seat, rec, side, turn_no in self._plans[r % 2][step]:
            promise = None
            if not first:
                opening = self._moves[rec.index][1 - side]
                promise = opening.message if opening is not None else None
            ctx = TurnContext(seat, rec, side, r, first, promise, cfg.payoffs, cfg.promises,
                              turn_no)
            a, b = rec.pairing
            turns.append(Turn(f"r{r}:{a}-{b}:{seat}", seat, self._legal,
                              partial(views.visible_state, self.state, ctx),
                              partial(self._prompt, ctx), context=ctx, round=r))
        return turns

    def _prompt(self, ctx: TurnContext) -> str:
        return views.prompt_text(views.visible_state(self.state, ctx))

    def pending(self) -> list[Turn]:
        return list(self._turns)

    # -- one step -------------------------------------------------------------------------------
    def parse(self, turn: Turn, raw: Any) -> Parsed:
        coop, message = normalize(raw, self.config.promises)
        action: Action = {"action": _word(coop)}
        if message is not None:
            action["message"] = message
        return Parsed(action)

    def _move_for(self, turn: Turn, decision: Decision | None) -> Move:
        """The recorded move; a fallback or a missing decision is a timeout = cooperate."""
        if decision is None:
            return Move(True, None, True, NO_SUBMISSION)
        if decision.source == "fallback":
            return Move(True, None, True, decision.cause or "timeout")
        try:
            coop, message = normalize(decision.action, self.config.promises)
        except IllegalAction as exc:
            raise SeatInputRejected(turn.turn_id, str(exc)) from exc
        return Move(coop, message)

    def apply(self, decisions: Mapping[str, Decision]) -> list[Event]:
        if self._phase not in ("step0", "step1"):
            raise GameStateError("apply() needs an open round")
        turns = self._turns
        moves = [self._move_for(t, decisions.get(t.turn_id)) for t in turns]  # may raise
        events: list[Event] = []
        r = self._round
        for turn, move in zip(turns, moves, strict=True):
            ctx: TurnContext = turn.context
            self._moves[ctx.pair.index][ctx.side] = move
            self._private_events(events, r, ctx, move)
        if self._phase == "step0":
            self._phase = "step1"
            self._turns = self._build_turns(1)
            return events
        self._turns = []
        self._reveal(events, r)
        return events

    def _private_events(self, events: list[Event], r: int, ctx: TurnContext, m: Move) -> None:
        pairing = list(ctx.pair.pairing)
        seat = ctx.seat
        if m.message is not None:
            events.append(Event("message_private", {
                "round": r, "pairing": pairing, "from": seat, "to": ctx.opponent,
                "message": m.message}, audience=(seat, ctx.opponent)))
        if m.timeout:
            events.append(Event("timeout_private", {
                "round": r, "pairing": pairing, "seat": seat, "action": COOPERATE,
                "cause": m.cause}, audience=(seat,)))
        events.append(Event("action_private", {
            "round": r, "pairing": pairing, "seat": seat, "action": _word(m.coop)},
            audience=(seat,)))

    def _reveal(self, events: list[Event], r: int) -> None:
        """Both choices of every pairing are in: pay, record, publish, and close the round."""
        state = self.state
        for rec in state.pairs:
            ma, mb = self._moves[rec.index]
            assert ma is not None and mb is not None
            pa, pb = self._matrix[(ma.coop, mb.coop)]
            rec.record((ma, mb), (pa, pb))
            a, b = rec.pairing
            state.tally(a, ma, pa)
            state.tally(b, mb, pb)
            self._moves[rec.index] = [None, None]
            events.append(Event("choices_revealed", {
                "round": r, "seats": [a, b], "choices": [_word(ma.coop), _word(mb.coop)],
                "points": [pa, pb], "totals": list(rec.points),
                "timeouts": [ma.timeout, mb.timeout]}))
        state.rounds_played += 1
        events.append(Event("tournament_standings", {"round": r,
                                                     "standings": self._ranked_standings()}))
        if state.rounds_played >= self.config.rounds_total:
            events.extend(self._end("complete"))
        else:
            self._phase = "between"

    def _ranked_standings(self) -> list[dict[str, int]]:
        points = self.state.points
        ranks = competition_ranks(points)
        order = sorted(range(self.num_seats), key=lambda s: (-points[s], s))
        return [{"seat": s, "points": points[s], "rank": ranks[s]} for s in order]

    def _end(self, reason: str) -> list[Event]:
        self._phase = "done"
        self.reason = reason
        self._turns = []
        self._moves = [[None, None] for _ in self.state.pairs]  # an unfinished round is void
        return [Event("tournament_end", {"reason": reason,
                                         "rounds_played": self.state.rounds_played,
                                         "standings": self._ranked_standings()})]

    def stop(self, reason: str, detail: str | None = None) -> list[Event]:
        if self._phase == "done":
            return []
        if reason not in STOP_REASONS:
            raise ValueError(f"reason must be one of {', '.join(STOP_REASONS)} (got {reason!r})")
        return self._end(reason)

    def fallback(self, turn: Turn) -> Action:
        return {"action": COOPERATE}

    def timing(self) -> Timing:
        return self._timing

    def make_baseline(self, name: str, seat: int) -> Policy:
        return make_baseline(name, seat, self.config)

    # -- results and views ----------------------------------------------------------------------
    def payouts(self) -> tuple[int, int, list[int] | None]:
        """(pot, rake, credits paid back per seat) — `None` per seat on a free table or while
        the table runs. An aborted table pays each seat its stake back and takes no rake."""
        cfg = self.config
        pot = cfg.stake * cfg.seats
        if not cfg.paid or self.reason is None:
            return pot, 0, None
        if self.reason in REFUNDED_REASONS:
            return pot, 0, [cfg.stake] * cfg.seats
        assert self.reason in SETTLED_REASONS
        split = split_pot(cfg.stake, cfg.rake_bps, self.state.points)
        return split.pot, split.rake, split.payouts

    def results(self) -> dict[str, Any]:
        state, cfg = self.state, self.config
        ranks = competition_ranks(state.points)
        pot, rake, paid = self.payouts()
        seats = [{
            "seat": s, "alias": self.aliases[s], "policy": self.policy_names[s],
            "points": state.points[s], "rank": ranks[s],
            "cooperation_rate": state.cooperation_rate(s), "timeouts": state.timeouts[s],
            "promises_made": state.promises_made[s], "promises_kept": state.promises_kept[s],
            "payout": None if paid is None else paid[s],
        } for s in range(cfg.seats)]
        return {
            "game": self.name, "rules_version": self.rules_version, "reason": self.reason,
            "rounds_played": state.rounds_played, "rounds_total": cfg.rounds_total,
            "promise_rule": PROMISE_RULE,
            "stake": cfg.stake, "rake_bps": cfg.rake_bps, "pot": pot, "rake": rake,
            "seats": seats, "scores": list(state.points),
        }

    def spectator_state(self) -> dict[str, Any]:
        return {"game": self.name, "done": self.done, "round": self._round,
                "rounds_played": self.rounds_played, "rounds_total": self.config.rounds_total,
                "aliases": list(self.aliases), "policies": list(self.policy_names),
                "standings": self._ranked_standings()}

    def system_text(self, seat: int) -> str:
        return views.system_text(self.config, seat)

    def public_config(self) -> dict[str, Any]:
        doc = self.config.to_json()
        del doc["seed"]  # it seeds the scripted seats' draws
        return doc

    def replay_document(self, log: Any) -> dict[str, Any]:
        from cogleague.games.dilemma.replay import replay_document

        return replay_document(self, log)
