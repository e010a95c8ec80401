"""The seat kinds of protocol.md §1, and the operator's hosted policies, turned into runner
seats when a table starts.

- ``remote``: a `RemoteSeat` on the seat's channel (a program over WebSocket);
- ``human``: the same, for a person playing in the browser: the table shows the seat is a
  person, and a table made for people (``people``) has the game's human deadlines;
- ``scripted``: the game's named baseline, in-process;
- ``llm``: a model seat from `cogleague.seats.llm` with the prompt the account registered; when
  that package is missing the seat plays the game's fallback baseline instead, and its policy
  name says so (``…+fallback:<baseline>``), so no standing ever credits a model it never used.
- ``policy``: an operator-hosted trained policy file (``serve --policy-dir``), in-process.
"""

from __future__ import annotations

import logging
from typing import Any

from cogleague.core.descriptor import GameDescriptor
from cogleague.core.game import Game
from cogleague.seats.factory import ModelOptions
from cogleague.seats.scripted import ScriptedSeat
from cogleague.server.channels import SeatChannel
from cogleague.server.remote_seat import RemoteSeat
from cogleague.server.settings import Settings

log = logging.getLogger("cogleague.server")

SEAT_KINDS = ("remote", "human", "llm", "scripted", "policy")


def model_seats_available() -> bool:
    try:
        from cogleague.seats import llm  # noqa: F401
    except ImportError:
        return False
    return True


def llm_note(settings: Settings, info: GameDescriptor) -> str | None:
    """What a join of kind ``llm`` is told about how the seat will really play."""
    if not model_seats_available():
        return f"model seats are not available here: plays {info.fallback_baseline}"
    if settings.model_provider is None:
        return "no model provider configured: every turn falls back to the game's baseline"
    return None


def llm_policy_name(name: str, info: GameDescriptor) -> str:
    if model_seats_available():
        return name
    return f"{name}+fallback:{info.fallback_baseline}"


def make_runner_seat(game: Game, row: dict[str, Any], channel: SeatChannel, settings: Settings,
                     info: GameDescriptor) -> Any:
    seat = row["seat"]
    kind = row["kind"]
    if kind in ("remote", "human"):
        return RemoteSeat(channel, row["policy_name"], game.timing())
    if kind == "scripted":
        return ScriptedSeat(game.make_baseline(row["baseline"], seat), row["policy_name"])
    if kind == "llm":
        if not model_seats_available():
            return ScriptedSeat(game.make_baseline(info.fallback_baseline, seat),
                                row["policy_name"])
        from cogleague.seats.llm import make_model_seat

        options = ModelOptions(provider=settings.model_provider,
                               model=row.get("model") or settings.model_name,
                               base_url=settings.model_base_url,
                               max_reply_tokens=settings.model_max_reply_tokens,
                               recording=settings.model_recording,
                               recording_mode=settings.model_recording_mode)
        return make_model_seat(game, seat, row["policy_name"], options, prompt=row["prompt"])
    if kind == "policy":  # an operator-hosted trained policy: in-process, numpy only
        from cogleague.seats.factory import make_seat

        return make_seat(game, seat, row["baseline"])
    raise ValueError(f"kind must be one of {', '.join(SEAT_KINDS)} (got {kind!r})")
