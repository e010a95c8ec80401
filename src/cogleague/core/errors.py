"""Errors a user, a seat or a replay file can cause. Each names what was wrong."""

from __future__ import annotations

from cogleague.core.seat import CAUSES, FallbackCause


class ConfigError(ValueError):
    """A configuration value is out of its legal range. The message starts with the field name."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field

    def renamed(self, field: str) -> ConfigError:
        """The same refusal under `field`, the name the caller knows it by (the argument or
        command-line option it gave): the message's leading field name is replaced."""
        message = str(self)
        if message.startswith(self.field):
            message = field + message[len(self.field):]
        return ConfigError(field, message)


class IllegalAction(ValueError):
    """A seat's reply cannot be used. `hint` names the legal form (sent back on a retry)."""

    def __init__(self, message: str, hint: str | None = None, code: str = "illegal_action") -> None:
        super().__init__(message)
        self.hint = hint or message
        self.code = code


class SeatInputRejected(IllegalAction):
    """`Game.apply` refused one seat's (already parsed) input. The runner gives that seat alone
    its fallback and applies the step once more; a second refusal is fatal."""

    def __init__(self, turn_id: str, message: str) -> None:
        super().__init__(message, code="illegal_action")
        self.turn_id = turn_id


class SeatUnavailable(RuntimeError):
    """A seat cannot answer at all this time (no provider, budget spent, disabled): fall back now.

    `cause` is recorded in the fallback (`core.seat.FallbackCause`: ``disabled``,
    ``rate_budget``)."""

    def __init__(self, cause: FallbackCause | str, message: str = "") -> None:
        if cause not in CAUSES:
            raise ValueError(f"cause must be one of {', '.join(CAUSES)} (got {cause!r})")
        super().__init__(message or str(cause))
        self.cause = FallbackCause(cause)


class SeatFailed(RuntimeError):
    """A seat's own program failed on a turn (an exception inside an in-process bot): the
    attempt counts as failed with `cause` (``error``), and `detail` (the message and the
    traceback's last frames) is kept for the results and shown to the author."""

    def __init__(self, cause: FallbackCause | str, detail: str) -> None:
        if cause not in CAUSES:
            raise ValueError(f"cause must be one of {', '.join(CAUSES)} (got {cause!r})")
        super().__init__(detail)
        self.cause = FallbackCause(cause)
        self.detail = detail


class ReplayError(ValueError):
    """A replay document does not re-derive: the message says where it first diverged."""


class GameStateError(RuntimeError):
    """A game method was called in a phase where it is illegal (apply twice, open twice, ...)."""
