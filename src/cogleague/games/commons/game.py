"""The Commons Family engine on the core Game protocol: one step per round (rules §4).

`open_round` snapshots and opens round r; `pending` asks every cog at once; `apply` runs steps
3–8 — validate, chat, resolve, sanctions, dynamics, book — on copies and commits only at the
end, so an exception leaves the game exactly as it was. The physics live in `modules/`; this
file owns the institutions (ledger, chat, sanctions, norm, notes), scoring and the records the
replay document is built from.
"""

from __future__ import annotations

import functools
import json
import weakref
from collections.abc import Mapping, Sequence
from functools import partial
from operator import add
from typing import Any

from cogleague.core.errors import ConfigError, GameStateError, IllegalAction
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
from cogleague.core.text import first_object_span
from cogleague.games.commons import observation as obs_mod
from cogleague.games.commons.actions import PASS_MOVE, Validator
from cogleague.games.commons.baselines import (
    BASELINES,
    DEFAULT_BASELINE,
    Baseline,
    make_baseline,
)
from cogleague.games.commons.baselines.view import RoundView, SeatView
from cogleague.games.commons.config import CommonsConfig
from cogleague.games.commons.modules import MODULES, new_state
from cogleague.games.commons.modules.common import Outcome
from cogleague.games.commons.round_events import EventSpec, RoundEvents
from cogleague.games.commons.setup import deal

RULES_VERSION = "commons-family-1"
LEDGER_RECENT = 5
PASS_MARK = "-"
FALLBACK_STREAM_FACTOR = 7919
"""The fallback steward of slot s draws from the stream ``config.seed * 7919 + s`` (`core.rng`)."""
PLAY_BUDGET_SHARE = 0.6
"""Play stops between rounds once past 0.6 × `episode_timeout_seconds` (rules §12)."""
NO_REQUEST_CAUSES = frozenset({"disabled", "rate_budget"})
"""Fallback causes raised before a model request was sent (not counted in `llm_requests`)."""
HIDE_FROM_SEATS: tuple[int, ...] = ()
"""`Event.restricted` audience for fields only the replay may show (slots, policy names)."""
SEAT_EVENT_PRIVATE = {"slot": HIDE_FROM_SEATS, "src": HIDE_FROM_SEATS,
                      "target_slot": HIDE_FROM_SEATS}
"""Per-seat events name the cog by alias for everyone; slot and policy source stay hidden."""
SLOT_ARRAYS = {"gains": HIDE_FROM_SEATS, "extracted": HIDE_FROM_SEATS,
               "effort": HIDE_FROM_SEATS, "flow": HIDE_FROM_SEATS, "scores": HIDE_FROM_SEATS,
               "aliases": HIDE_FROM_SEATS, "state": HIDE_FROM_SEATS}
"""Arrays indexed by slot (and states holding slots) would reveal who sits where."""
LEGAL_ACTIONS: dict[str, Any] = {
    "cleanup": {"harvest": [0, 3], "clean": [0, 3], "budget": 3},
    "harvest": {"patch": "patch id", "harvest": [0, 3]},
    "allelopathic": {"eat": [0, 3], "eat_color": ["red", "green", "blue"], "plant": [0, 3],
                     "plant_color": ["red", "green", "blue"], "budget": 3},
    "mushrooms": {"eat": [0, 3], "eat_color": ["red", "green", "blue"]},
}


PARSE_HINT = 'reply with one JSON object, e.g. {"harvest": 1, "clean": 1}'


def seat_kind(policy_name: str) -> str:
    """``scripted`` for a baseline name, ``model`` for ``llm``/``llm:…``, else ``remote``."""
    if policy_name in BASELINES:
        return "scripted"
    if policy_name == "llm" or policy_name.startswith("llm:"):
        return "model"
    return "remote"


def first_json_object(text: str) -> Any:
    """The first balanced ``{…}`` span of `text` (braces inside JSON strings ignored), parsed.

    No span, or a first span that is not JSON, is a ``parse`` error (rules §11)."""
    span = first_object_span(text)
    if span is None:
        raise IllegalAction("no JSON object in the reply", code="parse", hint=PARSE_HINT)
    try:
        return json.loads(span)
    except (ValueError, RecursionError):
        raise IllegalAction("the first {…} span is not JSON", code="parse",
                            hint=PARSE_HINT) from None


@functools.lru_cache(maxsize=64)
def turn_ids(rounds: int, seats: int) -> tuple[tuple[str, ...], ...]:
    """``r<r>s<slot>`` for every round and seat (the same for every episode of that shape)."""
    return tuple(tuple(f"r{r}s{s}" for s in range(seats)) for r in range(rounds))


class SeatContext:
    """A seat's `Step` context (the step-batch protocol): its slot and the engine, held by
    weak reference so the contexts, which live for the episode, make no reference cycle."""

    __slots__ = ("_game", "seat")

    def __init__(self, game: CommonsGame, seat: int) -> None:
        self._game = weakref.ref(game)
        self.seat = seat

    def baseline_views(self, slot: int | None = None) -> tuple[RoundView, SeatView]:
        """The seat's views this round (`CommonsGame.baseline_views`)."""
        game = self._game()
        assert game is not None, "the game of this context is gone"
        return game.baseline_views(self.seat if slot is None else slot)


def _step_ids(step: Step) -> list[str]:
    return list(step.handle)


def _step_turns(game_ref: weakref.ref[CommonsGame], step: Step) -> list[Turn]:
    game = game_ref()
    assert game is not None, "the game of this step is gone"
    return game._turns(step.handle)


class _RoundBooks:
    """The per-seat counters a round may change, copied on the first change (most rounds
    change none) and committed only at its end."""

    __slots__ = ("_disconnected", "_fallbacks", "_game", "_notes", "_requests")

    def __init__(self, game: CommonsGame) -> None:
        self._game = game
        self._notes: dict[int, str] | None = None
        self._fallbacks: list[int] | None = None
        self._requests: list[int] | None = None
        self._disconnected: list[bool] | None = None

    @property
    def notes(self) -> dict[int, str]:
        if self._notes is None:
            self._notes = dict(self._game.notes)
        return self._notes

    @property
    def fallbacks(self) -> list[int]:
        if self._fallbacks is None:
            self._fallbacks = list(self._game.fallbacks)
        return self._fallbacks

    @property
    def requests(self) -> list[int]:
        if self._requests is None:
            self._requests = list(self._game.llm_requests)
        return self._requests

    @property
    def disconnected(self) -> list[bool]:
        if self._disconnected is None:
            self._disconnected = list(self._game.disconnected)
        return self._disconnected

    def commit(self) -> None:
        game = self._game
        if self._notes is not None:
            game.notes = self._notes
        if self._fallbacks is not None:
            game.fallbacks = self._fallbacks
        if self._requests is not None:
            game.llm_requests = self._requests
        if self._disconnected is not None:
            game.disconnected = self._disconnected


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
        self.validator = Validator(config, self.aliases)
        self.legal_actions = LEGAL_ACTIONS[config.module]
        # books, by slot
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
        # last round, as the next observation shows it
        self.last_gains = [0.0] * n
        self.last_received = [0] * n
        self.last_total_extracted = 0.0
        self.last_messages: list[dict[str, str]] = []
        # lifecycle
        self.round = 0
        self.phase = "new"
        self.reason: str | None = None
        self.error: str | None = None
        self.records: list[dict[str, Any]] = []
        self._state_json = self.state.to_json()
        self._frame: dict[str, Any] | None = None
        self._ledger: dict[str, Any] | None = None
        self._fallback_policies: dict[int, Baseline] = {}
        self._scripted_src = [f"scripted:{p}" for p in self.policy_names]
        self._decision_templates = [{"r": 0, "slot": s, "alias": a, "src": "", **PASS_MOVE}
                                    for s, a in enumerate(self.aliases)]
        self._turn_ids: Sequence[str] = ()
        self._all_turn_ids = turn_ids(config.rounds, n)
        self._round_view: RoundView | None = None
        self._seat_views: list[SeatView] = []
        self._ledger_order = sorted((a, s) for s, a in enumerate(self.aliases))
        self._own_patches = [frozenset(self.module.own_patches(self.state, s))
                             if config.module == "harvest" else frozenset() for s in range(n)]
        self._pending_notes: dict[str, str] = {}
        """Notes read by `parse` this round, by turn id (the logged action carries none)."""
        # the step-batch columns: one turn per seat, so the same seats, contexts and groups
        # every round (`step` adds the round and its turn ids)
        self._step: Step | None = None
        self._step_seats = list(range(n))
        self._step_contexts = [SeatContext(self, s) for s in range(n)]
        self._step_groups = [(s, [ctx]) for s, ctx in enumerate(self._step_contexts)]
        self._turns_fn = partial(_step_turns, weakref.ref(self))

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> list[Event]:
        if self.phase != "new":
            raise GameStateError("start() was already called")
        self.phase = "between"
        cfg = self.config
        return [Event("episode_start", {
            "r": 0, "module": cfg.module, "variant": cfg.variant, "rounds": cfg.rounds,
            "num_players": cfg.num_players, "aliases": list(self.aliases),
            "norm_text": cfg.norm_text, "state": self._state_json}, None, SLOT_ARRAYS)]

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
        self._turn_ids = self._all_turn_ids[self.round]
        self._pending_notes = {}
        self._frame = None
        self._ledger = None
        self._round_view = None
        self._step = None
        return [Event("round_open", {"r": self.round, "state": self._state_json},
                      None, SLOT_ARRAYS)]

    def _turns(self, ids: Sequence[str]) -> list[Turn]:
        r, legal, observe, prompt = self.round, self.legal_actions, self.observe, obs_mod.prompt
        return [Turn(turn_id, s, legal, partial(observe, s), prompt, self, r)
                for s, turn_id in enumerate(ids)]

    def step(self) -> Step:
        """This round's step as columns: every seat once, in slot order."""
        st = self._step
        if st is None:
            if self.phase != "open":
                raise GameStateError(f"step() needs an open round (phase {self.phase})")
            st = self._step = Step(self._step_seats, self._step_contexts, self._step_groups,
                                   self.round, _step_ids, self._turns_fn, self._turn_ids)
        return st

    # -- views -------------------------------------------------------------------------------
    def ledger_view(self) -> dict[str, Any]:
        """The public ledger keyed by alias (built once per round)."""
        if self._ledger is None:
            self._ledger = {a: {"total_extracted": self.total_extracted[s],
                                "public_effort": self.public_effort[s],
                                "recent": list(self.recent[s]),
                                "sanctions_given": self.sanctions_given[s],
                                "sanctions_received": self.sanctions_received[s]}
                            for s, a in enumerate(self.aliases)}
        return self._ledger

    def observe(self, slot: int) -> dict[str, Any]:
        """The seat's observation now (rules §6)."""
        if self._frame is None:
            self._frame = obs_mod.public_frame(self)
        return obs_mod.observation(self, slot, self._frame)

    def baseline_views(self, slot: int) -> tuple[RoundView, SeatView]:
        """What `slot`'s observation shows, as the scripted baselines read it
        (`baselines.view`): built once per round for every seat, no observation dict."""
        if self._round_view is None:
            self._make_views()
        return self._round_view, self._seat_views[slot]  # type: ignore[return-value]

    def _make_views(self) -> None:
        """This round's views. The seat views live for the episode and are brought up to date
        here (what changes between rounds: last gain, sanctions received, digestion)."""
        self._round_view = self._make_round_view()
        r, n, module, state = self.round, self.num_seats, self.config.module, self.state
        views = self._seat_views
        if not views:
            favorites = state.favorites if module == "allelopathic" else ["red"] * n
            views.extend(map(SeatView, self.aliases, [None] * n, [None] * n,
                             self._own_patches, favorites, [True] * n))
        if r > 0:
            for view, gain, received in zip(views, self.last_gains, self.last_received,
                                            strict=True):
                view.last_gain = gain
                view.received = received
        if module == "mushrooms":
            for view, until in zip(views, state.frozen_until, strict=True):
                view.may_eat = r >= until

    def _make_round_view(self) -> RoundView:
        cfg, state, module = self.config, self.state, self.config.module
        first = self.round == 0
        totals = self.total_extracted
        kw: dict[str, Any]
        if module == "cleanup":
            kw = {"apples": state.apples, "pollution": state.pollution}
        elif module == "harvest":
            kw = {"rights": state.property_rights,
                  "patches": [(p, s, d) for p, (s, d) in enumerate(zip(state.stocks, state.dead,
                                                                       strict=True))]}
        elif module == "allelopathic":
            kw = {"planted": state.planted, "ripe": state.ripe}
        else:
            kw = {"counts": state.counts}
        return RoundView(
            module=module, round=self.round, num_players=cfg.num_players,
            sanctions=cfg.sanctions_enabled, chat=cfg.chat_enabled, chat_max=cfg.chat_max_chars,
            aliases=self.sorted_aliases,
            ledger=[(a, totals[s]) for a, s in self._ledger_order] if cfg.ledger_public
            else None,
            last_total=None if first else self.last_total_extracted, **kw)

    def final_view(self, slot: int) -> dict[str, Any]:
        return obs_mod.final_frame(self, slot)

    def system_text(self, seat: int) -> str:
        return obs_mod.system_text(self, seat)

    def public_config(self) -> dict[str, Any]:
        doc = self.config.to_json()
        for secret in ("seed", "names"):
            doc.pop(secret)
        return doc

    def spectator_state(self) -> dict[str, Any]:
        return {"game": self.name, "done": self.done, "rounds_played": self.round,
                "module": self.config.module, "variant": self.config.variant,
                "aliases": list(self.aliases), "policy_names": list(self.policy_names),
                "scores": list(self.scores), "state": self._state_json,
                "residual_value": self.module.residual(self.state)}

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
            self._pending_notes[turn.turn_id] = note
        return Parsed(move, clamped=clamped)

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
        return Timing(decision_timeout_s=float(cfg.decision_timeout_seconds), retries=1,
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
        step = decisions.step
        if step is not self._step or len(decisions.actions) != self.num_seats:
            raise ValueError(f"decisions must be for the current step and list one action per "
                             f"turn ({self.num_seats}, got {len(decisions.actions)})")
        r, module = self.round, self.module
        events: list[EventSpec] = []
        books = _RoundBooks(self)
        moves, srcs = self._validate(decisions, books, events)          # 3
        messages = self._chat(moves, events)                            # 4
        state = self.state.clone()
        out = module.resolve(state, moves, r)                           # 5
        self._module_events(out.events, r, events)
        resolve = {"r": r, "gains": out.gains, "extracted": out.extracted, "effort": out.effort}
        if out.flow is not None:
            resolve["flow"] = out.flow
        events.append(("resolve", resolve, SLOT_ARRAYS))
        scores = list(map(add, self.scores, out.gains))
        given, received = self._sanctions(moves, scores, events)        # 6
        self._module_events(module.dynamics(state, moves, r), r, events)  # 7
        self._book(state, moves, srcs, out, scores, given, received, messages, books)  # 8
        events.append(("round_end", {"r": r, "scores": scores,
                                     "residual": self.records[-1]["series"]["total"]},
                       SLOT_ARRAYS))
        if self.round >= self.config.rounds:
            self.phase = "done"
            self.reason = "complete"
            events.append(self._end_spec())
        else:
            self.phase = "between"
        self._step = None
        return RoundEvents(events)

    def _validate(self, decisions: StepDecisions, books: _RoundBooks,
                  events: list[EventSpec]) -> tuple[list[dict[str, Any]], list[str]]:
        """Step 3: clamp every decision (absent → pass), note sources, fallbacks, notes.

        Each seat's move is written straight into its ``decision`` event's data (the event
        is the move plus ``r``, ``slot``, ``alias`` and ``src`` in front); the returned moves
        are those dicts, which every later step only reads. Decisions are read as columns:
        a turn outside `decisions.special` has the common source and no other metadata."""
        r, aliases, kinds = self.round, self.aliases, self.seat_kinds
        validator = self.validator
        clamp = validator.clamp_into
        scripted_src, templates = self._scripted_src, self._decision_templates
        moves: list[dict[str, Any]] = []
        srcs: list[str] = []
        add = events.append
        actions, common, special = decisions.actions, decisions.source, decisions.special
        for s, action in enumerate(actions):
            d = special.get(s) if special else None
            if d is not None:
                action, source = d.action, d.source
            elif common is None:
                action = source = None
            else:
                source = common
            alias = aliases[s]
            move = dict(templates[s], r=r)
            if action is None and d is None:
                src = "pass"
                books.disconnected[s] = True
                add(("no_submission", {"r": r, "slot": s, "alias": alias}, SEAT_EVENT_PRIVATE))
            else:
                clamp(validator, action, alias, move)  # type: ignore[arg-type]
                cause = None if d is None else d.cause
                if source == "scripted":
                    src = scripted_src[s]
                elif source == "fallback":
                    src = f"fallback:{cause}"
                    books.fallbacks[s] += 1
                    add(("fallback", {"r": r, "slot": s, "alias": alias, "cause": cause},
                         SEAT_EVENT_PRIVATE))
                else:
                    src = "llm" if kinds[s] == "model" else "player"
                if kinds[s] == "model":
                    attempts = 1 if d is None else d.attempts
                    books.requests[s] += attempts - (1 if cause in NO_REQUEST_CAUSES else 0)
                note = move.pop("note", None) if "note" in move else None
                if note is None and source == "seat":
                    note = self._pending_notes.get(self._turn_ids[s])
                if note is not None:
                    if note:
                        books.notes[s] = note
                    else:
                        books.notes.pop(s, None)
            move["src"] = src
            moves.append(move)
            srcs.append(src)
            add(("decision", move, SEAT_EVENT_PRIVATE))
        return moves, srcs

    def _chat(self, moves: list[dict[str, Any]], events: list[EventSpec]
              ) -> list[dict[str, str]]:
        """Step 4: this round's lines, sorted by alias (shown next round)."""
        aliases = self.aliases
        said = [(aliases[s], s, m["message"]) for s, m in enumerate(moves)
                if m["message"] is not None]
        if not said:
            return []
        said.sort()
        r = self.round
        for alias, s, text in said:
            events.append(("chat", {"r": r, "slot": s, "alias": alias, "text": text},
                           SEAT_EVENT_PRIVATE))
        return [{"alias": alias, "text": text} for alias, _, text in said]

    def _sanctions(self, moves: list[dict[str, Any]], scores: list[float],
                   events: list[EventSpec]) -> tuple[list[int], list[int]]:
        """Step 6, ascending payer slot; over the receiving cap a sanction is void and free."""
        n, r, aliases, cfg = self.num_seats, self.round, self.aliases, self.config
        given = [0] * n
        received = [0] * n
        for s, m in enumerate(moves):
            target_alias = m["sanction"]
            if target_alias is None:
                continue
            t = self.slot_of[target_alias]
            if received[t] >= cfg.max_sanctions_received:
                events.append(("void", {"r": r, "slot": s, "alias": aliases[s],
                                        "cause": "sanction_cap", "target": target_alias},
                               SEAT_EVENT_PRIVATE))
                continue
            given[s] += 1
            received[t] += 1
            scores[s] -= cfg.sanction_cost
            scores[t] -= cfg.sanction_burn
            events.append(("sanction", {"r": r, "slot": s, "alias": aliases[s],
                                        "target": target_alias, "target_slot": t,
                                        "cost": cfg.sanction_cost, "burn": cfg.sanction_burn},
                           SEAT_EVENT_PRIVATE))
        return given, received

    def _book(self, state: Any, moves: list[dict[str, Any]], srcs: list[str], out: Outcome,
              scores: list[float], given: list[int], received: list[int],
              messages: list[dict[str, str]], books: _RoundBooks) -> None:
        """Step 8: the round record, the ledger, and the commit of everything at once."""
        r, module, n = self.round, self.module, self.num_seats
        state_after = state.to_json()
        round_extracted = sum(out.extracted)
        round_effort = sum(out.effort)
        residual = module.residual(state)
        record = {
            "r": r, "state_before": self._state_json,
            # a round record's decision: the move's fields and its src (the decision event's
            # dict without ``r`` and ``alias``)
            "decisions": [{"slot": m["slot"], "harvest": m["harvest"], "clean": m["clean"],
                           "patch": m["patch"], "eat": m["eat"], "eat_color": m["eat_color"],
                           "plant": m["plant"], "plant_color": m["plant_color"],
                           "sanction": m["sanction"], "message": m["message"],
                           "src": m["src"]} for m in moves],
            "gains": out.gains, "extracted": out.extracted, "scores": scores,
            "state_after": state_after, "total_extracted": round_extracted,
            "public_effort": round_effort, "seat_public_effort": out.effort,
            "collapsed": module.collapse_round(state) is not None,
            "series": {"total": residual, "maintenance": round_effort},
            "seat_frozen": ([r < f for f in state.frozen_until]
                            if self.config.module == "mushrooms" else [False] * n),
            "messages": messages,
        }
        compact = module.compact
        latest = [PASS_MARK if src == "pass" else compact(m) for src, m in zip(srcs, moves,
                                                                                strict=True)]
        # commit: nothing above touched the game
        self.state = state
        self._state_json = state_after
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
        books.commit()
        self.last_gains = out.gains
        self.last_received = received
        self.last_total_extracted = round_extracted
        self.last_messages = messages
        self.records.append(record)
        self._frame = self._ledger = self._round_view = None
        self.round = r + 1

    def _module_events(self, module_events: list[tuple[str, dict[str, Any]]], r: int,
                       out: list[EventSpec]) -> None:
        for kind, data in module_events:
            doc = {"r": r, **data}
            if "slot" in data:
                doc["alias"] = self.aliases[data["slot"]]
            out.append((kind, doc, SEAT_EVENT_PRIVATE))

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
        """The results document (rules §13), numbers shown to 3 decimals, arrays by slot."""
        module, state = self.module, self.state
        residual = module.residual(state)
        dead = module.dead_patches(state) if self.config.module == "harvest" else []
        return {
            "reason": self.reason, "rounds": self.round,
            "scores": [round(x, 3) for x in self.scores],
            "total_extracted": [round(x, 3) for x in self.total_extracted],
            "public_effort": list(self.public_effort),
            "sanctions_given": list(self.sanctions_given),
            "sanctions_received": list(self.sanctions_received),
            "welfare": round(self.welfare(), 3), "residual_value": round(residual, 3),
            "collapse_round": module.collapse_round(state), "dead_patches": dead,
            "fallbacks": list(self.fallbacks), "llm_requests": list(self.llm_requests),
            "names": list(self.config.names), "aliases": list(self.aliases),
            "disconnected": list(self.disconnected), "error": self.error,
        }

    def replay_document(self, log: Any) -> dict[str, Any]:
        from cogleague.games.commons.replay import build_document

        return build_document(self, log)
