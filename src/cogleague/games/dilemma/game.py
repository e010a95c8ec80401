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

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from cogleague.core.config import check_int
from cogleague.core.errors import ConfigError, GameStateError, IllegalAction, SeatInputRejected
from cogleague.core.game import (
    Action,
    Event,
    Game,
    Parsed,
    Policy,
    Step,
    StepDecisions,
    Timing,
    Turn,
)
from cogleague.core.seat import FallbackCause
from cogleague.core.settlement import REFUNDED_REASONS, SETTLED_REASONS, split_pot
from cogleague.games.dilemma import views
from cogleague.games.dilemma.actions import normalize
from cogleague.games.dilemma.aliases import draw_aliases
from cogleague.games.dilemma.baselines import make_baseline
from cogleague.games.dilemma.config import MAX_SEED, DilemmaConfig
from cogleague.games.dilemma.payoffs import (
    COOPERATE,
    DEFECT,
    competition_ranks,
    matrix,
    ranked_standings,
)
from cogleague.games.dilemma.promises import PROMISE_RULE
from cogleague.games.dilemma.state import (
    SILENT_COOPERATE,
    SILENT_DEFECT,
    Move,
    TableState,
)
from cogleague.games.dilemma.steps import StepEvents, StepPlan, round_shapes

STOP_REASONS = ("deadline", "aborted")
NO_SUBMISSION = FallbackCause.NO_SUBMISSION

_BARE_COOPERATE: Action = {"action": COOPERATE}
_BARE_DEFECT: Action = {"action": DEFECT}


def _word(coop: bool) -> str:
    return COOPERATE if coop else DEFECT


def _step_ids(step: Step) -> list[str]:
    prefix = f"r{step.round}"
    return [prefix + suffix for suffix in step.handle.suffixes]


def _step_turns(step: Step) -> list[Turn]:
    plan, r = step.handle, step.round
    legal = plan.legal
    return [Turn(turn_id, ctx.seat, legal, ctx.view, ctx.prompt, ctx, r)
            for ctx, turn_id in zip(plan.contexts, step.turn_ids(), strict=True)]


class DilemmaGame(Game):
    name = "dilemma"
    rules_version = views.RULES_VERSION

    def __init__(self, config: DilemmaConfig, policy_names: Sequence[str]) -> None:
        if len(policy_names) != config.seats:
            raise ConfigError("seats", f"seats must list exactly {config.seats} policies "
                                       f"(got {len(policy_names)})")
        self.config = config
        self.seed: int = config.seed
        self.max_rounds: int = config.rounds_total
        self.num_seats = config.seats
        self.policy_names = list(policy_names)
        self.aliases = draw_aliases(config.seed, config.seats)
        self.state = TableState(config)
        self.reason: str | None = None
        pay = matrix(config.payoffs)
        # The same matrix indexed [a cooperates][b cooperates] (bools index as 0/1).
        self._pay = tuple(tuple(pay[(a, b)] for b in (False, True)) for a in (False, True))
        self._timing = Timing(decision_timeout_s=config.turn_deadline_ms / 1000, retries=0)
        self._phase = "new"  # new → between ⇄ (step0 → step1) → done
        self._open: StepPlan | None = None  # the step being played
        self._step: Step | None = None  # its columns for this round, made on first ask
        # both steps of a round per round parity, the seat count's shapes bound to this table
        legal = views.legal_actions(config.promises)  # carried by the plans' turns
        self._plans = {parity: (StepPlan(one, self.state, legal),
                                StepPlan(two, self.state, legal))
                       for parity, (one, two) in enumerate(round_shapes(config.seats))}

    def restart(self, seed: int, policy_names: Sequence[str],
                seat_kinds: Sequence[str] | None = None) -> bool:
        """A finished table dealt again from `seed`: the state cleared in place, so the step
        plans, their turn contexts and the payoff table stay (about half of its set-up).
        Seat kinds change nothing at a dilemma table, as in `descriptor.make`."""
        if self._phase != "done" or len(policy_names) != self.num_seats:
            return False
        config = replace(self.config, seed=check_int("seed", seed, 0, MAX_SEED))
        self.config = config
        self.seed = config.seed
        self.policy_names = list(policy_names)
        self.aliases = draw_aliases(config.seed, config.seats)
        self.state.restart(config)
        self.reason = None
        self._phase = "new"
        self._open_step(None)
        return True

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
        return self.state.round

    @property
    def done(self) -> bool:
        return self._phase == "done"

    def open_round(self) -> list[Event]:
        if self._phase != "between":
            raise GameStateError("open_round() needs the game to be between rounds")
        self.state.round += 1
        self._phase = "step0"
        self._open_step(self._plans[self.state.round % 2][0])
        return [Event("round_start", {"round": self.state.round})]

    def _open_step(self, plan: StepPlan | None) -> None:
        self._open = plan
        self._step = None
        self.state.live = None if plan is None else plan.shape

    def step(self) -> Step:
        st = self._step
        if st is None:
            plan = self._open
            if plan is None:
                raise GameStateError("step() needs an open round")
            # plain functions, not methods bound to this game: a table that refers to
            # itself waits for the cyclic collector once dropped (`TurnContext.shape`)
            st = self._step = Step(plan.seats, plan.contexts, plan.groups, self.state.round,
                                   _step_ids, _step_turns, plan)
        return st

    # -- one step -------------------------------------------------------------------------------
    def parse(self, turn: Turn, raw: Any) -> Parsed:
        coop, message = normalize(raw, self.config.promises)
        action: Action = {"action": _word(coop)}
        if message is not None:
            action["message"] = message
        return Parsed(action)

    def _move(self, step: Step, i: int, action: Action | None, source: str | None,
              cause: str | None) -> Move:
        """Turn `i`'s recorded move; a fallback or a missing decision is a timeout = cooperate."""
        if action is None:
            return Move(True, None, True, NO_SUBMISSION)
        if source == "fallback":
            return Move(True, None, True, cause or "timeout")
        if len(action) == 1:  # a bare, exact choice
            choice = action.get("action")
            if choice == COOPERATE:
                return SILENT_COOPERATE
            if choice == DEFECT:
                return SILENT_DEFECT
        try:
            coop, message = normalize(action, self.config.promises)
        except IllegalAction as exc:
            raise SeatInputRejected(step.turn_ids()[i], str(exc)) from exc
        return Move(coop, message)

    def _moves(self, decisions: StepDecisions) -> list[Move]:
        """Every decision of the step read into its move, before anything changes (a refusal
        leaves the state unchanged)."""
        step, actions = decisions.step, decisions.actions
        if step is not self._step or len(actions) != len(step.seats):
            raise ValueError(f"decisions must be for the current step and list one action per "
                             f"turn ({len(self.step().seats)}, got {len(actions)})")
        special = decisions.special or {}
        if not special and decisions.source not in (None, "fallback"):
            # the common step: every reply a bare, exact choice (`_move`'s first case)
            quick = [SILENT_COOPERATE if a == _BARE_COOPERATE else
                     SILENT_DEFECT if a == _BARE_DEFECT else None for a in actions]
            if all(quick):
                return quick  # type: ignore[return-value]
        moves = []
        for i, action in enumerate(actions):
            d = special.get(i)
            if d is not None:
                moves.append(self._move(step, i, d.action, d.source, d.cause))
            else:
                source = decisions.source
                moves.append(self._move(step, i, action if source else None, source, None))
        return moves

    def apply_step(self, decisions: StepDecisions) -> StepEvents:
        if self._phase not in ("step0", "step1"):
            raise GameStateError("apply() needs an open round")
        plan = self._open
        assert plan is not None
        moves = self._moves(decisions)
        for (current, side), m in zip(plan.slots, moves, strict=True):
            current[side] = m
        r = self.state.round
        if self._phase == "step0":
            self._phase = "step1"
            self._open_step(self._plans[r % 2][1])
            return StepEvents(self.state, self._pay, plan, moves, r, None)
        self._open_step(None)
        self.state.reveal_round(self._pay)
        ended = None
        if self.state.rounds_played >= self.config.rounds_total:
            ended = self._end("complete")
        else:
            self._phase = "between"
        return StepEvents(self.state, self._pay, plan, moves, r, ended)

    def _end(self, reason: str) -> list[Event]:
        self._open_step(None)
        self._phase = "done"
        self.reason = reason
        for rec in self.state.pairs:  # an unfinished round is void
            rec.current[0] = rec.current[1] = None
        return [Event("tournament_end", {"reason": reason,
                                         "rounds_played": self.state.rounds_played,
                                         "standings": ranked_standings(self.state.points)})]

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
        return {"game": self.name, "done": self.done, "round": self.state.round,
                "rounds_played": self.rounds_played, "rounds_total": self.config.rounds_total,
                "aliases": list(self.aliases), "policies": list(self.policy_names),
                "standings": ranked_standings(self.state.points)}

    def system_text(self, seat: int) -> str:
        return views.system_text(self.config, seat)

    def public_config(self) -> dict[str, Any]:
        doc = self.config.to_json()
        del doc["seed"]  # it seeds the scripted seats' draws
        return doc

    def replay_document(self, log: Any) -> dict[str, Any]:
        from cogleague.games.dilemma.replay import replay_document

        return replay_document(self, log)
