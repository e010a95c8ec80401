"""A settled Commons round's events, built only when read (the step-batch `EventRenderer`).

`CommonsGame.apply_step` notes each event as a plain ``(kind, data, restricted)`` triple while
it settles the round; `RoundEvents` turns them into `Event`s when called, or straight into
their replay form (``{"kind": …, **data}``) by `to_json`, without an `Event` in between. Every
`data` dict is the one the round built and nothing changes it afterwards, so a late call builds
exactly the events an immediate one would (every Commons event is visible to all: audience
None).
"""

from __future__ import annotations

from typing import Any

from cogleague.core.game import Event

EventSpec = tuple[str, dict[str, Any], dict[str, tuple[int, ...]] | None]
"""``(kind, data, restricted)`` of one event (audience None)."""


class RoundEvents:
    """The events of one settled round: `__call__` gives the `Event`s, `to_json` their replay
    form; both in the order the round produced them."""

    __slots__ = ("specs",)

    def __init__(self, specs: list[EventSpec]) -> None:
        self.specs = specs

    def __call__(self) -> list[Event]:
        return [Event(kind, data, None, restricted) for kind, data, restricted in self.specs]

    def to_json(self) -> list[dict[str, Any]]:
        """``[event.to_json() for event in self()]``, built directly."""
        return [{"kind": kind, **data} for kind, data, _ in self.specs]
