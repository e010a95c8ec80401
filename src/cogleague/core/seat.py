"""The seat contract the episode runner talks to, and why a seat's answer was replaced.

A seat is anything with a `kind`, a `name` and an async `decide` (`Seat`). Three optional
capabilities, each its own protocol, change how the runner treats it:

- `AnswersNow`: ``decide_now(turn)`` answers synchronously, and the runner then never calls
  `decide` (such a seat may leave it out). When every seat of an episode has it, the runner
  plays without an event loop (the headless fast path); a `decide_now` that raises gets the
  game's fallback with cause ``error``.
- `HearsDecisions`: ``on_decision(turn, decision)`` hears each of its final decisions, after the
  step is applied (model seats count fallbacks and write transcripts there).
- `Closes`: ``aclose()`` runs once when the runner's `run` ends, however it ends.
- `AnswersSteps`: ``decide_step(contexts)`` answers all of the seat's turns of one step at once
  from their `Turn.context`s (the step-batch protocol, `core/game.py`); when the game and every
  seat have it, and nobody observes the episode, the runner plays each step in one call per
  seat. It must equal ``decide_now`` on each turn in order; if it raises, each of those turns
  gets the game's fallback with cause ``error``.

The runner reads a seat's capabilities once, with `capabilities(seat)`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    from cogleague.core.game import Decision, Turn

SEAT_KINDS = ("scripted", "model", "bot", "policy", "remote", "human")
"""`Seat.kind`: a built-in baseline, a language model, an SDK bot run in-process, a trained
policy file, a program behind a socket, or a person in the browser (a remote seat whose
program is the Play page). Only ``scripted`` changes how the runner plays (its reserve per
round)."""


class FallbackCause(StrEnum):
    """Why a turn's decision is the game's fallback (`Decision.cause`, written in replays).

    Values are the strings replays have always carried; a member compares, hashes and
    serializes as its string."""

    TIMEOUT = "timeout"
    """No reply before the attempt's deadline (the decision timeout or the step deadline)."""
    PARSE = "parse"
    """The reply was not in the game's form (no JSON object, a malformed frame)."""
    ILLEGAL = "illegal"
    """The reply was well formed but not a legal action, or `Game.apply` refused it."""
    TRANSPORT = "transport"
    """`Seat.decide` raised (a lost connection, an SDK or HTTP error)."""
    RATE_BUDGET = "rate_budget"
    """A model seat had no request slot left before the deadline (`SeatUnavailable`)."""
    DISABLED = "disabled"
    """A model seat has no provider, or the provider refused its key (`SeatUnavailable`)."""
    NO_SUBMISSION = "no_submission"
    """No decision reached the game for the turn (set by games, for a turn missing from the
    decisions `apply` was given)."""
    ERROR = "error"
    """The seat's own program raised: a synchronous seat's `decide_now` (a bug in a scripted
    baseline), or an in-process bot's `on_turn` (`SeatFailed`, retried once with a hint)."""


CAUSES = tuple(c.value for c in FallbackCause)
"""Every fallback cause, as replays spell them."""


@runtime_checkable
class Seat(Protocol):
    """One seat of one episode.

    `kind` is one of `SEAT_KINDS`; `name` is the policy name (spectators only). `decide` returns
    the raw reply (a dict, or text for model seats) that the game's `parse` reads; `hint` is set
    on a retry and names the legal form. It may raise `SeatUnavailable` to fall back at once.
    """

    kind: str
    name: str

    def decide(self, turn: Turn, hint: str | None) -> Awaitable[Any]: ...


@runtime_checkable
class AnswersNow(Protocol):
    def decide_now(self, turn: Turn) -> Any: ...


@runtime_checkable
class HearsDecisions(Protocol):
    def on_decision(self, turn: Turn, decision: Decision) -> None: ...


@runtime_checkable
class Closes(Protocol):
    def aclose(self) -> Awaitable[None]: ...


@runtime_checkable
class AnswersSteps(Protocol):
    def decide_step(self, contexts: Sequence[Any]) -> list[Any]: ...


class SeatCapabilities(NamedTuple):
    """A seat's optional hooks, bound once (None where it lacks the capability)."""

    scripted: bool
    decide_now: Callable[[Turn], Any] | None
    on_decision: Callable[[Turn, Decision], None] | None
    aclose: Callable[[], Awaitable[None]] | None
    decide_step: Callable[[Sequence[Any]], list[Any]] | None = None


def capabilities(seat: object) -> SeatCapabilities:
    """Check `seat` against the contract and bind its optional hooks.

    Raises TypeError naming what is missing: a seat without `kind`, `name` or `decide` (nor
    `decide_now`), or with
    a `kind` outside `SEAT_KINDS`. The members are read directly rather than through
    ``isinstance(seat, Protocol)``: a runtime-checkable protocol check costs tens of
    microseconds, several per seat, and the runner binds every seat of every episode."""
    kind = getattr(seat, "kind", None)
    # A seat that answers now is never awaited: `decide_now` stands in for `decide`.
    decide = getattr(seat, "decide", None) or getattr(seat, "decide_now", None)
    if decide is None or kind is None or not hasattr(seat, "name") or not callable(decide):
        missing = [a for a in ("kind", "name", "decide") if not hasattr(seat, a)]
        raise TypeError(f"seat {seat!r} does not satisfy the Seat contract (missing: "
                        f"{', '.join(missing) or 'a callable decide'})")
    if kind not in SEAT_KINDS:
        raise TypeError(f"seat kind must be one of {', '.join(SEAT_KINDS)} "
                        f"(got {kind!r} on {seat!r})")
    return SeatCapabilities(kind == "scripted", getattr(seat, "decide_now", None),
                            getattr(seat, "on_decision", None), getattr(seat, "aclose", None),
                            getattr(seat, "decide_step", None))
