"""The `Bot` interface: the same class plays in-process (league, CLI) and remotely (server)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TurnInfo:
    """What a `your_turn` frame carries (protocol.md §3)."""

    turn_id: str
    game: str
    seat: int
    legal_actions: Any
    visible_state: dict[str, Any]
    prompt_text: str | None = None
    deadline_ms: int | None = None
    hint: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Bot:
    """Subclass and implement `on_turn`. Return the game's action fields, e.g.
    ``{"action": "cooperate"}`` (dilemma), ``{"move": 4, "note": "…"}`` (Ledger) or
    ``{"harvest": 1, "clean": 1}`` (Commons Family). May be sync or async.

    Over the network (`cogleague.client.play_seat`, `cogleague bot run`) the SDK handles
    hello, snapshot, ping, reconnect and resume; the bot only decides."""

    name: str = "bot"
    game: str | None = None
    """The game this bot was written for (its name in `cogleague games`); a table of another
    game refuses it before play with a clear error. None: any game."""

    def on_turn(self, turn: TurnInfo) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def on_event(self, event: str, payload: dict[str, Any]) -> Any:
        """Called for every event frame this seat may see. Optional."""
        return None

    def on_error(self, code: str, message: str, turn: TurnInfo) -> Any:
        """The server refused the move for `turn` (`illegal_action`, `message_too_long`,
        `promises_off`). Return a corrected action to send before the deadline, or None to let
        the turn run out. Optional; may be async."""
        return None
