"""The one seam every game fills: a pure rules object driven step by step.

A game never touches the clock, the network or a database. It says which seats decide now and
what each may see (`step()`), and settles one step's actions, returning its events
(`apply_step`). Everything a game does is a function of (config, seed, seats, decisions), which
is what makes replays byte-identical and lets the server recover a crashed table by re-applying
its logged decisions (`core/replay.py`).

Life of a game, as the one runner (`core/episode.py`) drives it::

    events = game.start()
    while not game.done:
        if game.between_rounds:          # the runner checks the play budget here
            events += game.open_round()
        step = game.step()               # every seat that decides now, with its context
        decisions = runner_asks_the_seats(step)
        events += game.apply_step(decisions)
    # or, at any boundary: events += game.stop("deadline")

A step is columns (per turn its seat and context; `Step.of` builds one from `Turn`s, which is
all a simple game needs). The runner owns the rest: it batches a seat's turns into one call,
runs seats concurrently under deadlines, builds turn ids and `Turn`s only when a seat or a
host reads them, and logs the answers as `StepDecisions` columns. `apply_step` may return the
events, or a renderer that builds them only when the log is read. `pending()` and `apply()`
are the same two operations on `Turn`s and a ``{turn_id: Decision}`` mapping, for hosts and
tests that hold one step in their hands.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from cogleague.core.errors import GameStateError
from cogleague.core.seat import CAUSES, FallbackCause

Action = dict[str, Any]
"""A normalized action: the game's own fields (e.g. ``{"move": 4, "note": "…"}``)."""


class Turn:
    """One decision the game needs: who decides, what is legal, and that seat's view only.

    `view` and `prompt_text` are built lazily: scripted seats read `context` (the game's public
    state, in-process only) and never pay for serializing a view they do not need. The prompt
    is a rendering of the view (`prompt_fn(view)`), so a seat that asks for both builds the
    view once.
    """

    __slots__ = ("_prompt", "_prompt_fn", "_view", "_view_fn", "context", "legal_actions",
                 "round", "seat", "turn_id")

    def __init__(
        self,
        turn_id: str,
        seat: int,
        legal_actions: Any,
        view_fn: Callable[[], dict[str, Any]],
        prompt_fn: Callable[[dict[str, Any]], str] | None = None,
        context: Any = None,
        round: int = 0,
    ) -> None:
        self.turn_id = turn_id
        self.seat = seat
        self.legal_actions = legal_actions
        self.round = round
        self.context = context
        self._view_fn = view_fn
        self._prompt_fn = prompt_fn
        self._view: dict[str, Any] | None = None
        self._prompt: str | None = None

    @property
    def view(self) -> dict[str, Any]:
        """The structured observation for this seat (JSON-ready)."""
        if self._view is None:
            self._view = self._view_fn()
        return self._view

    @property
    def prompt_text(self) -> str | None:
        """The same view rendered as text for language models (None if the game has none)."""
        if self._prompt is None and self._prompt_fn is not None:
            self._prompt = self._prompt_fn(self.view)
        return self._prompt

    def __repr__(self) -> str:
        return f"Turn({self.turn_id!r}, seat={self.seat}, round={self.round})"


@dataclass(slots=True)
class Event:
    """Something that happened, and who may see it. Treat as immutable.

    Not a frozen dataclass: a frozen `__init__` sets every field through `object.__setattr__`,
    which made building events the largest single cost of headless play.

    `audience`: None = every seat and spectators; a tuple = those seats (spectators and the
    replay always see everything after the end); ``()`` = spectators/replay only.
    `restricted`: fields of an otherwise visible event that only some seats may see, e.g.
    ``{"memoA": (a,)}`` — `view_for` drops them for everyone else.
    """

    kind: str
    data: dict[str, Any]
    audience: tuple[int, ...] | None = None
    restricted: dict[str, tuple[int, ...]] | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"kind": …, **data}`` — the full event, as replay documents store it."""
        return {"kind": self.kind, **self.data}

    def visible_to(self, seat: int) -> bool:
        return self.audience is None or seat in self.audience

    def view_for(self, seat: int | None) -> dict[str, Any] | None:
        """The event as `seat` may see it (None: a live spectator), or None if hidden from it.

        Live spectators see public events with restricted fields removed; seats see their own
        private events and their own restricted fields."""
        if seat is None:
            if self.audience is not None:
                return None
        elif not self.visible_to(seat):
            return None
        if not self.restricted:
            return self.to_json()
        return {"kind": self.kind, **{k: v for k, v in self.data.items()
                                      if k not in self.restricted
                                      or (seat is not None and seat in self.restricted[k])}}


@dataclass(frozen=True, slots=True)
class Parsed:
    """What `Game.parse` makes of a raw reply: the normalized action, and whether it was clamped."""

    action: Action
    clamped: bool = False
    reason: str | None = None
    """Set when the reply had the wrong shape (an unknown field, no action field) and the
    rules read it as their default: which field, and what was read. The runner counts it
    against the seat (``wrong_shape``, so `--strict` fails on it) and the server tells the
    seat in an `error` frame after the `ack`."""
    private: Mapping[str, Any] | None = None
    """Parts of the reply the game read but keeps out of `action` because they never enter the
    episode log (a Commons note, its author's alone): the seat's own records (a model seat's
    transcript) show them beside the action, as they show a part the log does keep."""


@dataclass(slots=True)
class Decision:
    """The runner's answer for one turn, as the game applies it and the log records it.
    Treat as immutable (not frozen for the same construction-cost reason as `Event`).

    source: ``seat`` (the seat's own valid reply), ``scripted`` (a built-in baseline's reply) or
    ``fallback`` (the game's fallback after the seat failed; `cause` says why, one of
    `core.seat.FallbackCause`: ``timeout``, ``parse``, ``illegal``, ``transport``,
    ``rate_budget``, ``disabled``, ``no_submission``, ``error``).
    """

    action: Action
    source: str = "seat"
    cause: FallbackCause | None = None
    attempts: int = 1
    timeouts: int = 0
    clamped: bool = False
    reason: str | None = None
    """For a ``parse`` or ``illegal`` fallback: why the seat's last reply was refused (the
    game's words: which field, what is legal). Written to the log only when set."""

    @property
    def is_fallback(self) -> bool:
        return self.source == "fallback"

    def to_json(self) -> dict[str, Any]:
        doc = {"action": self.action, "source": self.source, "cause": self.cause,
               "attempts": self.attempts, "timeouts": self.timeouts, "clamped": self.clamped}
        if self.reason is not None:
            doc["reason"] = self.reason
        return doc

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Decision:
        cause = doc.get("cause")
        if cause is not None and cause not in CAUSES:
            raise ValueError(f"decision cause must be one of {', '.join(CAUSES)} or null "
                             f"(got {cause!r})")
        return cls(action=dict(doc["action"]), source=doc["source"],
                   cause=None if cause is None else FallbackCause(cause),
                   attempts=doc.get("attempts", 1), timeouts=doc.get("timeouts", 0),
                   clamped=doc.get("clamped", False), reason=doc.get("reason"))


class Step:
    """The current step as columns (the step-batch protocol): per turn its seat and its context,
    and the turns grouped by seat (``(seat, contexts)`` in ascending seat order, so the groups'
    answers concatenated are the step's answers in turn order). Turn ids and `Turn` objects are
    built only when asked for (by the game's `ids_fn` / `turns_fn`, given this step): the batch
    path never needs either. `handle` is the game's own note of which step this is."""

    __slots__ = ("_ids", "_ids_fn", "_turns", "_turns_fn", "contexts", "groups", "handle",
                 "round", "seats")

    def __init__(self, seats: Sequence[int], contexts: Sequence[Any],
                 groups: Sequence[tuple[int, Sequence[Any]]], round: int,
                 ids_fn: Callable[[Step], list[str]], turns_fn: Callable[[Step], list[Turn]],
                 handle: Any = None) -> None:
        self.seats = seats
        self.contexts = contexts
        self.groups = groups
        self.round = round
        self.handle = handle
        self._ids_fn = ids_fn
        self._turns_fn = turns_fn
        self._ids: list[str] | None = None
        self._turns: list[Turn] | None = None

    @classmethod
    def of(cls, turns: Sequence[Turn], round: int = 0) -> Step:
        """The step of these turns (listed in ascending seat order), for a game that builds its
        `Turn`s up front."""
        by_seat: dict[int, list[Any]] = {}
        for t in turns:
            by_seat.setdefault(t.seat, []).append(t.context)
        step = cls([t.seat for t in turns], [t.context for t in turns], list(by_seat.items()),
                   round, _no_ids, _no_turns)
        step._ids = [t.turn_id for t in turns]
        step._turns = list(turns)
        return step

    def turn_ids(self) -> list[str]:
        if self._ids is None:
            self._ids = self._ids_fn(self)
        return self._ids

    def turns(self) -> list[Turn]:
        """The step's `Turn` objects (what `Game.pending` lists), built once."""
        if self._turns is None:
            self._turns = self._turns_fn(self)
        return self._turns

    def __len__(self) -> int:
        return len(self.seats)

    def release(self) -> None:
        """Drop the contexts and groups of a settled step. The log keeps the step (its
        `StepDecisions` read the turn ids off it) but never reads those again, and a game whose
        contexts hold live state keeps the cyclic collector busy with them until the episode
        ends (Ledger: ~20 % of an episode's CPU time)."""
        self.contexts = self.groups = ()


def _no_ids(step: Step) -> list[str]:
    raise AssertionError("a step made by Step.of has its turn ids")


def _no_turns(step: Step) -> list[Turn]:
    raise AssertionError("a step made by Step.of has its turns")


class StepDecisions(Mapping[str, Decision]):
    """One step's decisions as columns: `actions` by turn (None: no decision for that turn), a
    common `source` for them, and `special` — the decisions that differ (a fallback, a seat's
    reply with its own metadata), by turn index. It reads as the ``{turn_id: Decision}`` mapping
    `Game.apply` takes, built only on first read; `to_json` writes the log's form directly.

    A common source of None means every present decision is in `special` (what `from_mapping`
    makes of an ordinary mapping)."""

    __slots__ = ("_dict", "actions", "source", "special", "step")

    def __init__(self, step: Step, actions: list[Action | None],
                 source: str | None = "scripted",
                 special: dict[int, Decision] | None = None) -> None:
        self.step = step
        self.actions = actions
        self.source = source
        self.special = special
        self._dict: dict[str, Decision] | None = None

    @classmethod
    def from_mapping(cls, step: Step, decisions: Mapping[str, Decision]) -> StepDecisions:
        """The columns of an ordinary mapping (keys that are not turns of the step are ignored,
        as `Game.apply` always did)."""
        if isinstance(decisions, StepDecisions):
            return decisions
        get = decisions.get
        special: dict[int, Decision] = {}
        actions: list[Action | None] = []
        for i, turn_id in enumerate(step.turn_ids()):
            d = get(turn_id)
            if d is None:
                actions.append(None)
            else:
                actions.append(d.action)
                special[i] = d
        return cls(step, actions, None, special)

    def replace(self, i: int, decision: Decision) -> None:
        """Put `decision` in place of turn `i`'s (the runner's fallback for a refused one)."""
        if self.special is None:
            self.special = {}
        self.special[i] = decision
        self.actions[i] = decision.action
        self._dict = None

    def decision(self, i: int) -> Decision | None:
        """The decision for turn `i` of the step (None: none was given)."""
        special = self.special
        if special is not None:
            d = special.get(i)
            if d is not None or self.source is None:
                return d
        action = self.actions[i]
        if action is None or self.source is None:
            return None
        return Decision(dict(action), self.source)

    def materialize(self) -> dict[str, Decision]:
        """``{turn_id: Decision}`` in turn order (built once; actions are copied, so a shared
        action of the batch path never aliases between decisions)."""
        if self._dict is None:
            out: dict[str, Decision] = {}
            decision = self.decision
            for i, turn_id in enumerate(self.step.turn_ids()):
                d = decision(i)
                if d is not None:
                    out[turn_id] = d
            self._dict = out
        return self._dict

    def to_json(self) -> dict[str, Any]:
        """The log's form, ``{turn_id: Decision.to_json()}``, without building a `Decision`
        for a decision of the common source."""
        if self._dict is not None or self.special or self.source is None:
            return {k: d.to_json() for k, d in self.materialize().items()}
        source = self.source
        return {turn_id: {"action": dict(a), "source": source, "cause": None, "attempts": 1,
                          "timeouts": 0, "clamped": False}
                for turn_id, a in zip(self.step.turn_ids(), self.actions, strict=True)
                if a is not None}

    def __getitem__(self, key: str) -> Decision:
        return self.materialize()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.materialize())

    def __len__(self) -> int:
        return len(self.materialize())


EventRenderer = Callable[[], list[Event]]
"""What `Game.apply_step` may return instead of the events: builds the step's events when called
(every call builds the same events from data captured at the step, whatever happened since)."""

Events = list[Event] | EventRenderer
"""What `Game.apply_step` returns: the step's events, or a renderer of them."""


DECISION_RETRIES = 1
"""Further attempts after a reply that cannot be used (or a failed attempt), each told why:
every game's `Timing.retries`, and what a model seat gives itself where its game's runner
gives no retry (the dilemma, whose deadlines are the rules' own)."""


@dataclass(frozen=True, slots=True)
class Timing:
    """The rule numbers the runner needs to own time for a game. Seconds throughout.

    - `decision_timeout_s`: one attempt of one seat on one turn;
    - `retries`: further attempts after a failed one (the retry carries a hint);
    - `play_budget_s`: play stops between rounds once the next round may not fit (None: none);
    - `reserve_s` / `reserve_scripted_s`: the worst-case round duration used for that check,
      with any non-scripted seat present / with scripted seats only;
    - `first_round_exempt`: round 0 always plays (Commons Family);
    - `step_deadline_s`: a hard deadline for a whole step from its start (None: only per attempt);
    - `min_step_s`: a pacing floor for watchable live play (the runner skips it headless).
    """

    decision_timeout_s: float
    retries: int = DECISION_RETRIES
    play_budget_s: float | None = None
    reserve_s: float = 0.0
    reserve_scripted_s: float = 0.0
    first_round_exempt: bool = False
    step_deadline_s: float | None = None
    min_step_s: float = 0.0


class Policy(Protocol):
    """A scripted baseline bound to one seat of one episode. Runs in-process, trusted.

    It may also have ``act_step(contexts) -> list[Action]`` (the step-batch protocol): the
    answers to all of its turns of one step, from their `Turn.context`s, equal to calling `act`
    on each turn in order. Its answers may be shared objects; nobody modifies them."""

    def act(self, turn: Turn) -> Action: ...


class Game(abc.ABC):
    """A pure game. Subclasses implement the abstract methods; see the module docstring."""

    name: ClassVar[str]
    rules_version: ClassVar[str]
    num_seats: int
    policy_names: list[str]

    # -- lifecycle -------------------------------------------------------------------------
    @abc.abstractmethod
    def start(self) -> list[Event]:
        """The opening events (called once, before anything else)."""

    @property
    @abc.abstractmethod
    def between_rounds(self) -> bool:
        """True when the next step opens a new round (the runner checks its budget here)."""

    @property
    @abc.abstractmethod
    def rounds_played(self) -> int: ...

    seed: int | None = None
    """The seed the episode was dealt from (recorded in its replay); None if it has none."""
    max_rounds: int | None = None
    """How many rounds the episode plays at most (progress bars); None if unknown."""

    aliases: Sequence[str]
    """The seats' public names, by seat (what other seats and spectators see)."""

    @abc.abstractmethod
    def open_round(self) -> list[Event]:
        """Open the next round. Raises `GameStateError` if not between rounds."""

    @abc.abstractmethod
    def step(self) -> Step:
        """The current step: the turns in ascending seat order (one seat may have several,
        answered in the listed order). Raises `GameStateError` when no step is open; asked
        twice, it describes the same step."""

    @abc.abstractmethod
    def parse(self, turn: Turn, raw: Any) -> Parsed:
        """Normalize a seat's raw reply (a dict, or text for model seats) per the game's rules.
        Raises `IllegalAction` (with a hint naming the legal form) when unusable."""

    @abc.abstractmethod
    def apply_step(self, decisions: StepDecisions) -> Events:
        """Settle the current step, transactionally: on an exception the state is unchanged.
        A turn without a decision gets the game's no-submission action. Returns the events (or
        a renderer of them)."""

    def pending(self) -> list[Turn]:
        """The current step's `Turn`s; empty when done or between rounds."""
        if self.done or self.between_rounds:
            return []
        return list(self.step().turns())

    def apply(self, decisions: Mapping[str, Decision]) -> list[Event]:
        """`apply_step` on a ``{turn_id: Decision}`` mapping, its events built at once. A key
        that is no turn of the step raises `GameStateError` naming it (nothing changes)."""
        if self.done or self.between_rounds:
            raise GameStateError("apply() needs an open step")
        step = self.step()
        known = set(step.turn_ids())
        unknown = sorted(k for k in decisions if k not in known)
        if unknown:
            raise GameStateError(f"apply: unknown turn ids {unknown} (open: {sorted(known)})")
        events = self.apply_step(StepDecisions.from_mapping(step, decisions))
        return events if isinstance(events, list) else events()

    @abc.abstractmethod
    def fallback(self, turn: Turn) -> Action:
        """The scripted answer used when a seat fails (the game's fallback baseline)."""

    @abc.abstractmethod
    def stop(self, reason: str, detail: str | None = None) -> list[Event]:
        """End early between steps (e.g. ``deadline``). Idempotent: a second call emits nothing.

        The runner calls ``stop("error", detail)`` when `apply` raised something unexpected and
        `recovers_from_errors` is set (Commons Family ends such an episode as ``deadline``)."""

    recovers_from_errors: ClassVar[bool] = False
    """If False, an unexpected exception in `apply` propagates out of the runner."""

    @property
    @abc.abstractmethod
    def done(self) -> bool: ...

    @abc.abstractmethod
    def results(self) -> dict[str, Any]:
        """The results document; always has ``scores`` (one number per seat) and ``reason``."""

    def restart(self, seed: int, policy_names: Sequence[str],
                seat_kinds: Sequence[str] | None = None) -> bool:
        """Turn this finished game into the fresh game its descriptor's ``make`` would build
        with this game's own variant and options and the given `seed`, `policy_names` and
        `seat_kinds`, keeping the set-up that depends on none of them (step plans, option
        checks) instead of building it again: a league plays thousands of episodes of one
        line-up. False (the default) when the game cannot, and the host makes a new one. The
        finished episode's state is reused: only a host that has read everything it needs
        from it (results, events, replay) may call this. Raises `ConfigError` for a seed
        ``make`` refuses."""
        return False

    @abc.abstractmethod
    def timing(self) -> Timing: ...

    @abc.abstractmethod
    def make_baseline(self, name: str, seat: int) -> Policy:
        """A scripted policy for `seat`. Raises `ConfigError` for an unknown name."""

    # -- views -----------------------------------------------------------------------------
    def spectator_state(self) -> dict[str, Any]:
        """Everything a spectator may see now (policy names included)."""
        return {"game": self.name, "done": self.done, "rounds_played": self.rounds_played}

    def system_text(self, seat: int) -> str:
        """The fixed instructions for a language model playing `seat` (derived from the config)."""
        return ""

    def public_config(self) -> dict[str, Any]:
        """The part of the config any seat may see (sent in `hello`)."""
        return {}

    def replay_document(self, log: Any) -> dict[str, Any]:
        """The game's own replay format, built from the episode log (`core.replay.EpisodeLog`)."""
        raise NotImplementedError
