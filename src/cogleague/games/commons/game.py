"""The Commons Family engine on the core Game protocol: one step per round (rules §4).

`open_round` snapshots and opens round r; `step` asks every cog at once; `apply_step` runs
steps 3–8 — read the decisions (`books.py`), chat (`institutions.py`), resolve (the module),
sanctions (`institutions.py`), dynamics (the module), book (`records.py`) — on copies and
commits only at the end, so an exception leaves the game exactly as it was. The physics live in
`modules/`, each behind the same hooks, so nothing here asks which module it runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from operator import add
from typing import Any

from cogleague.core.errors import ConfigError, GameStateError, IllegalAction
from cogleague.core.game import (
    DECISION_RETRIES,
    Action,
    Event,
    Game,
    Parsed,
    Step,
    StepDecisions,
    Timing,
    Turn,
)
from cogleague.games.commons import observation as obs_mod
from cogleague.games.commons import records
from cogleague.games.commons.actions import PARSE_HINT, PASS_MOVE, Validator, first_json_object
from cogleague.games.commons.baselines import BASELINES, DEFAULT_BASELINE, Baseline, make_baseline
from cogleague.games.commons.baselines.view import RoundView, SeatView
from cogleague.games.commons.books import (
    SEAT_EVENT_PRIVATE,
    SLOT_ARRAYS,
    RoundBooks,
    read_decisions,
    seat_event_restricted,
    seat_kind,
)
from cogleague.games.commons.config import CommonsConfig
from cogleague.games.commons.institutions import chat, sanctions
from cogleague.games.commons.modules import MODULES, new_state
from cogleague.games.commons.round_events import EventSpec, RoundEvents
from cogleague.games.commons.round_views import RoundViews
from cogleague.games.commons.setup import deal
from cogleague.games.commons.steps import RoundSteps

RULES_VERSION = "commons-family-1"
LEDGER_RECENT = 5
PASS_MARK = "-"
FALLBACK_STREAM_FACTOR = 7919
"""The fallback steward of slot s draws from the stream ``config.seed * 7919 + s`` (`core.rng`)."""
PLAY_BUDGET_SHARE = 0.6
"""Play stops between rounds once past 0.6 × `episode_timeout_seconds` (rules §12)."""


class CommonsGame(Game):
    """One Commons Family episode. Pure: (config, policy names, decisions) ⇒ everything.

    `seat_kinds` (scripted / model / remote per slot) defaults from the policy names;
    `policy_seed` seeds the scripted seats (default: the config seed); `generated_at` is the
    only clock-derived replay field and is given by the caller (None headless)."""

    name = "commons"
    rules_version = RULES_VERSION
    recovers_from_errors = True

    def __init__(self, config: CommonsConfig, policy_names: Sequence[str] | None = None, *,
                 seat_kinds: Sequence[str] | None = None, policy_seed: int | None = None,
                 generated_at: str | None = None) -> None:
        n = config.num_players
        self.config = config
        self.seed: int = config.seed
        self.max_rounds: int = config.rounds
        self.num_seats = n
        self.policy_names = list(policy_names or [DEFAULT_BASELINE] * n)
        if len(self.policy_names) != n:
            raise ValueError(f"policy_names must list {n} names (got {len(self.policy_names)})")
        self.seat_kinds = list(seat_kinds or [seat_kind(p) for p in self.policy_names])
        self.policy_seed = config.seed if policy_seed is None else policy_seed
        self.generated_at = generated_at
        self.setup = deal(config.seed, n, config.patch_count)
        self.aliases = self.setup.aliases
        self.sorted_aliases = sorted(self.aliases)
        self.slot_of = {a: s for s, a in enumerate(self.aliases)}
        self.module = MODULES[config.module]
        self.state: Any = new_state(config, self.setup)
        self.state_json = self.state.to_json()
        self.validator = Validator(config, self.aliases)
        self.legal_actions = self.module.LEGAL_ACTIONS
        # the books, by slot
        self.scores = [0.0] * n
        self.total_extracted = [0.0] * n
        self.public_effort = [0] * n
        self.sanctions_given = [0] * n
        self.sanctions_received = [0] * n
        self.fallbacks = [0] * n
        self.llm_requests = [0] * n
        self.disconnected = [False] * n
        self.recent: list[list[str]] = [[] for _ in range(n)]
        self.notes: dict[int, str] = {}
        # the last round, as the next observation shows it
        self.last_gains = [0.0] * n
        self.last_received = [0] * n
        self.last_total_extracted = 0.0
        self.last_messages: list[dict[str, str]] = []
        # the lifecycle
        self.round = 0
        self.phase = "new"
        self.reason: str | None = None
        self.error: str | None = None
        self.records: list[dict[str, Any]] = []
        self.scripted_src = [f"scripted:{p}" for p in self.policy_names]
        self.decision_templates = [{"r": 0, "slot": s, "alias": a, "src": "", **PASS_MOVE}
                                   for s, a in enumerate(self.aliases)]
        self.seat_restricted = [seat_event_restricted(s, config.ledger_public) for s in range(n)]
        """Each slot's per-seat events' `Event.restricted` (its actions private when the
        ledger is)."""
        self.pending_notes: dict[str, str] = {}
        """Notes read by `parse` this round, by turn id (the logged action carries none)."""
        self._fallback_policies: dict[int, Baseline] = {}
        self._views = RoundViews(self)
        self._steps = RoundSteps(self)
        self._step: Step | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> list[Event]:
        if self.phase != "new":
            raise GameStateError("start() was already called")
        self.phase = "between"
        cfg = self.config
        return [Event("episode_start", {
            "r": 0, "module": cfg.module, "variant": cfg.variant, "rounds": cfg.rounds,
            "num_players": cfg.num_players, "aliases": list(self.aliases),
            "norm_text": cfg.norm_text, "state": self.state_json}, None, SLOT_ARRAYS)]

    @property
    def between_rounds(self) -> bool:
        return self.phase == "between"

    @property
    def rounds_played(self) -> int:
        return self.round

    @property
    def done(self) -> bool:
        return self.phase == "done"

    def open_round(self) -> list[Event]:
        if self.phase != "between":
            raise GameStateError(f"open_round() needs a closed round (phase {self.phase})")
        self.phase = "open"
        self.pending_notes = {}
        self._views.reset()
        self._step = None
        return [Event("round_open", {"r": self.round, "state": self.state_json},
                      None, SLOT_ARRAYS)]

    def step(self) -> Step:
        """This round's step: every seat once, in slot order."""
        if self._step is None:
            if self.phase != "open":
                raise GameStateError(f"step() needs an open round (phase {self.phase})")
            self._step = self._steps.step(self.round)
        return self._step

    def turns(self, ids: Sequence[str]) -> list[Turn]:
        r, legal, observe, prompt = self.round, self.legal_actions, self.observe, obs_mod.prompt
        return [Turn(turn_id, s, legal, partial(observe, s), prompt, self, r)
                for s, turn_id in enumerate(ids)]

    # -- views -------------------------------------------------------------------------------
    def ledger_view(self) -> dict[str, Any]:
        """The public ledger keyed by alias (built once per round)."""
        return self._views.ledger_of(self)

    def observe(self, slot: int) -> dict[str, Any]:
        """The seat's observation now (rules §6)."""
        return self._views.observation(self, slot)

    def baseline_views(self, slot: int) -> tuple[RoundView, SeatView]:
        """What `slot`'s observation shows, as the scripted baselines read it
        (`baselines.view`): built once per round for every seat, no observation dict."""
        return self._views.baseline(self, slot)

    def final_view(self, slot: int) -> dict[str, Any]:
        return obs_mod.final_frame(self, slot)

    def system_text(self, seat: int) -> str:
        return obs_mod.system_text(self, seat)

    def public_config(self) -> dict[str, Any]:
        return {k: v for k, v in self.config.to_json().items() if k not in ("seed", "names")}

    def spectator_state(self) -> dict[str, Any]:
        """Scores, the resource and, when public (`ledger_public`), the seats' ledger (§6)."""
        public = {"ledger": self.ledger_view()} if self.config.ledger_public else {}
        return {"game": self.name, "done": self.done, "rounds_played": self.round,
                "module": self.config.module, "variant": self.config.variant,
                "aliases": list(self.aliases), "policy_names": list(self.policy_names),
                "scores": list(self.scores), "state": self.state_json,
                "residual_value": self.module.residual(self.state), **public}

    # -- deciding ----------------------------------------------------------------------------
    def parse(self, turn: Turn, raw: Any) -> Parsed:
        """A reply (dict, or text whose first balanced ``{…}`` is read) → clamped decision."""
        if isinstance(raw, str):
            raw = first_json_object(raw)
        if not isinstance(raw, Mapping):
            raise IllegalAction("the reply is not a JSON object", code="parse", hint=PARSE_HINT)
        move, clamped = self.validator.clamp(raw, self.aliases[turn.seat])
        note = move.pop("note", None)
        if note is not None:  # kept aside: a note never enters the episode log
            self.pending_notes[turn.turn_id] = note
        wrong = self.validator.shape_fault(raw)
        return Parsed(move, clamped=clamped or wrong is not None, reason=wrong,
                      private=None if note is None else {"note": note})

    def fallback(self, turn: Turn) -> Action:
        """The steward, on its own fallback stream per slot."""
        s = turn.seat
        policy = self._fallback_policies.get(s)
        if policy is None:
            policy = make_baseline(DEFAULT_BASELINE, s, 0)
            policy.rng = self.config.seed * FALLBACK_STREAM_FACTOR + s
            self._fallback_policies[s] = policy
        return policy.act(turn)

    def make_baseline(self, name: str, seat: int) -> Baseline:
        """A host asking for a baseline by name gets it or a `ConfigError` (a typo must not
        silently play steward)."""
        if name not in BASELINES:
            raise ConfigError("seats", f"seats: unknown policy {name!r} (baselines: "
                                       f"{', '.join(BASELINES)}; or llm[:PROMPT_FILE], "
                                       "MODULE:CLASS)")
        return make_baseline(name, seat, self.policy_seed)

    def timing(self) -> Timing:
        cfg = self.config
        reserve = float(max(cfg.round_seconds, cfg.min_round_seconds))
        return Timing(decision_timeout_s=float(cfg.decision_timeout_seconds),
                      retries=DECISION_RETRIES,
                      play_budget_s=PLAY_BUDGET_SHARE * cfg.episode_timeout_seconds,
                      reserve_s=reserve, reserve_scripted_s=reserve, first_round_exempt=True,
                      step_deadline_s=float(cfg.round_seconds),
                      min_step_s=float(cfg.min_round_seconds))

    # -- settling ----------------------------------------------------------------------------
    def apply_step(self, decisions: StepDecisions) -> RoundEvents:
        """Steps 3–8 of a round on copies; committed only if everything succeeded. The
        round's events are noted as triples and built when the renderer is read."""
        if self.phase != "open":
            raise GameStateError(f"apply() needs an open round (phase {self.phase})")
        if decisions.step is not self._step or len(decisions.actions) != self.num_seats:
            raise ValueError(f"decisions must be for the current step and list one action per "
                             f"turn ({self.num_seats}, got {len(decisions.actions)})")
        r, module, cfg, aliases = self.round, self.module, self.config, self.aliases
        events: list[EventSpec] = []
        books = RoundBooks(self)
        moves, srcs = read_decisions(self, decisions, books, events)          # 3
        messages = chat(r, aliases, moves, events)                            # 4
        state = self.state.clone()
        out = module.resolve(state, moves, r)                                 # 5
        self._module_events(out.events, r, events)
        resolve = {"r": r, "gains": out.gains, "extracted": out.extracted, "effort": out.effort}
        if out.flow is not None:
            resolve["flow"] = out.flow
        events.append(("resolve", resolve, SLOT_ARRAYS))
        scores = list(map(add, self.scores, out.gains))
        given, received = sanctions(cfg, r, aliases, self.slot_of, moves, scores, events)  # 6
        self._module_events(module.dynamics(state, moves, r), r, events)      # 7
        state_after = state.to_json()                                         # 8
        self.records.append(records.round_record(self, state, state_after, moves, out, scores,
                                                 messages))
        self._commit(state, state_after, moves, srcs, out, scores, given, received, messages)
        books.commit()
        events.append(("round_end", {"r": r, "scores": scores,
                                     "residual": self.records[-1]["series"]["total"]},
                       SLOT_ARRAYS))
        if self.round >= cfg.rounds:
            self.phase = "done"
            self.reason = "complete"
            events.append(self._end_spec())
        else:
            self.phase = "between"
        self._step = None
        return RoundEvents(events)

    def _commit(self, state: Any, state_after: dict[str, Any], moves: list[dict[str, Any]],
                srcs: list[str], out: Any, scores: list[float], given: list[int],
                received: list[int], messages: list[dict[str, str]]) -> None:
        """Step 8: the ledger and the books take the settled round (nothing before touched
        the game)."""
        compact = self.module.compact
        latest = [PASS_MARK if src == "pass" else compact(m)
                  for src, m in zip(srcs, moves, strict=True)]
        self.state = state
        self.state_json = state_after
        self.scores = scores
        self.total_extracted = list(map(add, self.total_extracted, out.extracted))
        self.public_effort = list(map(add, self.public_effort, out.effort))
        if any(given):
            self.sanctions_given = list(map(add, self.sanctions_given, given))
            self.sanctions_received = list(map(add, self.sanctions_received, received))
        for x, compacted in zip(self.recent, latest, strict=True):
            x.append(compacted)
            if len(x) > LEDGER_RECENT:
                del x[0]
        self.last_gains = out.gains
        self.last_received = received
        self.last_total_extracted = sum(out.extracted)
        self.last_messages = messages
        self._views.reset()
        self.round += 1

    def _module_events(self, module_events: list[tuple[str, dict[str, Any]]], r: int,
                       out: list[EventSpec]) -> None:
        for kind, data in module_events:
            doc = {"r": r, **data}
            restricted = SEAT_EVENT_PRIVATE
            if "slot" in data:
                doc["alias"] = self.aliases[data["slot"]]
                restricted = self.seat_restricted[data["slot"]]
            out.append((kind, doc, restricted))

    def _end_spec(self) -> EventSpec:
        return ("episode_end", {"r": self.round, "reason": self.reason,
                                "scores": {a: self.scores[s]
                                           for s, a in enumerate(self.aliases)}}, None)

    def stop(self, reason: str, detail: str | None = None) -> list[Event]:
        """End between rounds: ``deadline``, ``no_players`` or ``error`` (an unexpected error
        in a round: that round is discarded and the episode ends as ``deadline``)."""
        if self.phase == "done":
            return []
        events: list[Event] = []
        if reason == "no_players":
            self.disconnected = [True] * self.num_seats
            self.reason = "no_players"
        else:
            self.reason = "deadline"
            cause = "error" if reason == "error" else "deadline"
            if reason == "error":
                self.error = detail or "error"
            events.append(Event("deadline", {"r": self.round, "cause": cause}))
        self.phase = "done"
        self._step = None
        kind, data, _ = self._end_spec()
        events.append(Event(kind, data))
        return events

    # -- outcome -----------------------------------------------------------------------------
    def welfare(self) -> float:
        """Σ scores + residual value, at full float precision (rules §8)."""
        residual: float = self.module.residual(self.state)
        return sum(self.scores) + residual

    def results(self) -> dict[str, Any]:
        return records.results(self)

    def replay_document(self, log: Any) -> dict[str, Any]:
        from cogleague.games.commons.replay import build_document

        return build_document(self, log)
