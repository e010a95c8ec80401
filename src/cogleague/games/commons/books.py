"""Rules §4 step 3: every decision read into its clamped move, with the per-seat books a round
may change (notes, fallbacks, model requests, disconnections) kept on copies until the round
commits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cogleague.core.game import StepDecisions
from cogleague.games.commons.baselines import BASELINES
from cogleague.games.commons.round_events import EventSpec

if TYPE_CHECKING:
    from cogleague.games.commons.game import CommonsGame

HIDE_FROM_SEATS: tuple[int, ...] = ()
"""`Event.restricted` audience for fields only the replay may show (slots, policy names)."""
SEAT_EVENT_PRIVATE = {"slot": HIDE_FROM_SEATS, "src": HIDE_FROM_SEATS,
                      "target_slot": HIDE_FROM_SEATS}
"""Per-seat events name the cog by alias for everyone; slot and policy source stay hidden."""
ACTION_FIELDS = ("harvest", "clean", "patch", "eat", "eat_color", "plant", "plant_color",
                 "amount", "units", "color", "until")
"""A cog's own actions in its per-seat events (decision, trespass, unheld, void, digesting)."""


def seat_event_restricted(slot: int, ledger_public: bool) -> dict[str, tuple[int, ...]]:
    """`Event.restricted` of `slot`'s per-seat events. With the ledger private (rules §6),
    its actions are shown to that cog alone: the ledger's recent actions, totals and effort
    are made of them, so any other cog (or a live spectator) would rebuild it from the events."""
    if ledger_public:
        return SEAT_EVENT_PRIVATE
    own = (slot,)
    return {**SEAT_EVENT_PRIVATE, **{key: own for key in ACTION_FIELDS}}


SLOT_ARRAYS = {"gains": HIDE_FROM_SEATS, "extracted": HIDE_FROM_SEATS,
               "effort": HIDE_FROM_SEATS, "flow": HIDE_FROM_SEATS, "scores": HIDE_FROM_SEATS,
               "aliases": HIDE_FROM_SEATS, "state": HIDE_FROM_SEATS}
"""Arrays indexed by slot (and states holding slots) would reveal who sits where."""
NO_REQUEST_CAUSES = frozenset({"disabled", "rate_budget"})
"""Fallback causes raised before a model request was sent (not counted in `llm_requests`)."""


def seat_kind(policy_name: str) -> str:
    """``scripted`` for a baseline name, ``model`` for ``llm``/``llm:…``, else ``remote``."""
    if policy_name in BASELINES:
        return "scripted"
    if policy_name == "llm" or policy_name.startswith("llm:"):
        return "model"
    return "remote"


class RoundBooks:
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


def read_decisions(game: CommonsGame, decisions: StepDecisions, books: RoundBooks,
                   events: list[EventSpec]) -> tuple[list[dict[str, Any]], list[str]]:
    """Clamp every decision (absent → pass), note sources, fallbacks and notes.

    Each seat's move is written straight into its ``decision`` event's data (the event is the
    move plus ``r``, ``slot``, ``alias`` and ``src`` in front); the returned moves are those
    dicts, which every later step only reads. A turn outside `decisions.special` has the common
    source and no other metadata."""
    r, aliases, kinds = game.round, game.aliases, game.seat_kinds
    validator = game.validator
    clamp = validator.clamp_into
    scripted_src, templates = game.scripted_src, game.decision_templates
    restricted = game.seat_restricted
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
                note = game.pending_notes.get(decisions.step.turn_ids()[s])
            if note is not None:
                if note:
                    books.notes[s] = note
                else:
                    books.notes.pop(s, None)
        move["src"] = src
        moves.append(move)
        srcs.append(src)
        add(("decision", move, restricted[s]))
    return moves, srcs
