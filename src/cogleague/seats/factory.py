"""Turn a line-up as users write it (``mirror,llm:prompts/fair.txt,bots/mine.py:MyBot``) into
seats — the one place every host (CLI, league, Python API) builds seats.

- a baseline name → `ScriptedSeat` of the game's baseline for that seat;
- ``llm:PATH`` (a prompt file) or ``llm`` → a model seat (see `cogleague.seats.llm`);
- ``axelrod:NAME`` → one of the Axelrod library's strategies (pairwise games only);
- ``path/to/file.py:Class`` or ``package.module:Class`` → an in-process SDK bot
  (`cogleague.Bot` subclass, `seats/botref.py`);
- ``policy:PATH`` → a trained policy file (`cogleague.seats.policy`);
- from Python also a `Bot` instance or class, or a plain callable ``turn -> action``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.seats.botref import check_bot_game, is_bot_ref, load_bot_class, missing_class
from cogleague.seats.scripted import ScriptedSeat

__all__ = ["ModelOptions", "is_bot_ref", "make_seat", "make_seats", "seat_name"]


@dataclass(frozen=True)
class ModelOptions:
    """Provider settings shared by every model seat of an episode."""

    provider: str | None = None  # "openai" | "anthropic" | None (no provider: fall back)
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)  # never in reprs, logs, tracebacks
    transcript: str | None = None
    transcript_append: bool = False
    """Add to the transcript instead of starting it afresh with each episode: a command that
    plays several episodes (`cogleague profile`) starts the file once and sets this."""
    requests_per_minute: int | None = None
    max_reply_tokens: int | None = None
    """The reply-length cap of each request (None: the default, 1024 tokens): a reasoning
    model's hidden reasoning counts against it (`seats/llm/providers.check_max_reply_tokens`)."""
    recording: str | None = None  # a directory of recorded model calls (seats/llm/recording.py)
    recording_mode: str = "record"  # record | replay | replay_or_live


def seat_name(entry: Any) -> str:
    """The policy name a line-up entry plays under (a string as written; an object's class)."""
    if isinstance(entry, str):
        return entry
    if isinstance(entry, type):
        return f"{entry.__module__}:{entry.__qualname__}"
    name = getattr(entry, "name", None)
    if isinstance(name, str) and name not in ("bot", "callable"):
        return name
    target = entry if callable(entry) and not hasattr(entry, "on_turn") else type(entry)
    return f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', '?')}"


def make_seat(game: Game, seat: int, entry: Any, model: ModelOptions | None = None) -> Any:
    """One seat from a line-up entry; `ConfigError` (field ``seats``) naming what is wrong."""
    if not isinstance(entry, str):
        from cogleague.seats.inprocess import BotSeat, as_bot

        try:
            bot = as_bot(entry)
        except TypeError as exc:
            raise ConfigError("seats", f"seats[{seat}]: {exc}") from None
        name = seat_name(entry)
        check_bot_game(bot, game.name, name)
        return BotSeat(bot, game, seat, name)
    name = entry
    near = near_miss(name)
    if near is not None:
        raise ConfigError("seats", f"seats: {name!r} is not a policy name: {near}")
    if name.startswith("axelrod:"):  # the Axelrod library's strategies (seats/axelrod_seat.py)
        from cogleague.seats.axelrod_seat import make_axelrod_seat

        return make_axelrod_seat(game, seat, name)
    if name.startswith("policy:"):  # a trained policy file (cogleague.seats.policy)
        from cogleague.seats.policy import make_policy_seat

        return make_policy_seat(game, seat, name)
    if name == "llm" or name.startswith("llm:"):
        from cogleague.seats import llm

        return llm.make_model_seat(game, seat, name, model or ModelOptions())
    if is_bot_ref(name):
        from cogleague.seats.inprocess import BotSeat

        bot = load_bot_class(name)()
        check_bot_game(bot, game.name, name)
        return BotSeat(bot, game, seat, name)
    if name.endswith(".py"):  # a bot file without its class: never a baseline's name
        raise missing_class(name)
    return ScriptedSeat(game.make_baseline(name, seat), name)


PROMPT_SUFFIXES = (".txt", ".md")
"""How prompt files are usually named: such a name alone is a prompt file meant as llm:PATH."""
KIND_PREFIXES = ("llm", "axelrod", "policy")


def near_miss(name: str) -> str | None:
    """How to write a seat name that is almost a prompt or another seat kind (``mine.txt``,
    ``LLM:mine.txt``, ``llm :mine.txt``), which would otherwise read as an unknown baseline
    and be answered with the game's list of baselines; None for any other name."""
    head, sep, rest = name.partition(":")
    if not sep:
        return (f"a prompt file plays as llm:{name}" if name.lower().endswith(PROMPT_SUFFIXES)
                else None)
    kind = head.strip().lower()
    if kind in KIND_PREFIXES and head != kind:
        return f"write {kind}:{rest.strip()}"
    return None


def make_seats(game: Game, entries: Sequence[Any], model: ModelOptions | None = None
               ) -> list[Any]:
    if len(entries) != game.num_seats:
        raise ConfigError("seats", f"seats must list exactly {game.num_seats} policies "
                                   f"(got {len(entries)})")
    return [make_seat(game, i, n, model) for i, n in enumerate(entries)]
