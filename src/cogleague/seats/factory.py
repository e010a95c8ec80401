"""Turn a line-up as users write it (``mirror,llm:prompts/fair.txt,shark``) into seats.

- a baseline name → `ScriptedSeat` of the game's baseline for that seat;
- ``llm:PATH`` (a prompt file) or ``llm`` → a model seat (see `cogleague.seats.llm`);
- ``axelrod:NAME`` → one of the Axelrod library's strategies (pairwise games only);
- ``MODULE:CLASS`` → an in-process SDK bot (`cogleague.client.Bot` subclass).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.seats.scripted import ScriptedSeat


@dataclass(frozen=True)
class ModelOptions:
    """Provider settings shared by every model seat of an episode."""

    provider: str | None = None  # "openai" | "anthropic" | None (no provider: fall back)
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    transcript: str | None = None
    requests_per_minute: int | None = None
    recording: str | None = None  # a directory of recorded model calls (seats/llm/recording.py)
    recording_mode: str = "record"  # record | replay | replay_or_live


def is_bot_ref(name: str) -> bool:
    return ":" in name and not name.startswith("llm") and "/" not in name.split(":", 1)[0]


def make_seat(game: Game, seat: int, name: str, model: ModelOptions | None = None) -> Any:
    if name.startswith("axelrod:"):  # the Axelrod library's strategies (seats/axelrod_seat.py)
        from cogleague.seats.axelrod_seat import make_axelrod_seat

        return make_axelrod_seat(game, seat, name)
    if name == "llm" or name.startswith("llm:"):
        try:
            from cogleague.seats import llm
        except ImportError as exc:  # pragma: no cover - until model seats land
            raise ConfigError("seats", f"seats: model seats are not available ({exc})") from exc
        return llm.make_model_seat(game, seat, name, model or ModelOptions())
    if is_bot_ref(name):
        from cogleague.seats.inprocess import BotSeat

        module_name, _, class_name = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as exc:
            raise ConfigError("seats", f"seats: cannot load bot {name!r} ({exc})") from exc
        return BotSeat(cls(), game, seat, name)
    return ScriptedSeat(game.make_baseline(name, seat), name)


def make_seats(game: Game, names: Sequence[str], model: ModelOptions | None = None) -> list[Any]:
    if len(names) != game.num_seats:
        raise ConfigError("seats", f"seats must list exactly {game.num_seats} policies "
                                   f"(got {len(names)})")
    return [make_seat(game, i, n, model) for i, n in enumerate(names)]
