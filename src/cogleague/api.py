"""The Python API: one game in two lines, as the Axelrod library does it.

    import cogleague
    result = cogleague.play(game, ["tit_for_tat", MyBot(), "always_defect"], seed=7)
    result.scores          # one float per seat, by seat
    result.save("runs/x")  # results.json + replay.json

`game` is any name `cogleague games` lists (docs/api.md plays the dilemma). A seat is a
baseline name, a `cogleague.Bot` instance or class, a plain callable
``turn -> action``, ``"llm:PROMPT_FILE"``, or a bot reference ``path/to/file.py:Class`` /
``package.module:Class``. Game options are keyword arguments checked by the game's config
model (`GameDescriptor.options`): a bad one raises `ConfigError` naming the field and range.
The CLI's `cogleague play` runs through the same functions (`prepare`, `run`, `Result`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from cogleague.core import jsonio
from cogleague.core.config import check_bool, check_choice
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.episode import EpisodeOutcome, play_headless, run_episode
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.core.options import validate_options
from cogleague.games import registry
from cogleague.seats.botref import missing_class
from cogleague.seats.factory import ModelOptions, make_seats, seat_name
from cogleague.seats.faults import faults_section, summary_line

if TYPE_CHECKING:
    from cogleague.batch_api import BatchEpisode

RESERVED = ("variant", "seed", "model", "provider", "base_url", "api_key", "transcript",
            "max_reply_tokens", "strict", "engine")
"""Keyword arguments of `play` that are not game options."""


class StrictError(RuntimeError):
    """`strict=True` and some decision fell back or a reply was read only in part (`wrong_shape`):
    the message is the fault summary."""

    def __init__(self, result: Result, line: str) -> None:
        super().__init__(line)
        self.result = result


def seat_kind(entry: Any) -> str:
    """How a line-up entry decides, as a game's `make` hears it (`core.descriptor`)."""
    from cogleague.seats.botref import is_bot_ref

    if not isinstance(entry, str):
        return "bot"
    if entry == "llm" or entry.startswith("llm:"):
        return "model"
    if is_bot_ref(entry):
        return "bot"
    return f"scripted:{entry}"


def lineup_of(seats: Any) -> list[Any]:
    """`seats` as a list (empty for None), or a `ConfigError`: a number (the dilemma's
    seat-count option shares the name) or a single string is no line-up, and a string read
    letter by letter would only be refused later as a confusing count; a set or a dict has
    no seat order (a set of names iterates in an order that changes between processes)."""
    if seats is None:
        return []
    if isinstance(seats, Set | Mapping):  # a set's order changes between processes
        raise ConfigError("seats", f"seats must list the policies in seat order, as a list or "
                                   f"tuple (got a {type(seats).__name__}, whose order is not "
                                   "the seats')")
    if isinstance(seats, str | bytes) or not isinstance(seats, Iterable):
        raise ConfigError("seats", f"seats must list the policies, one per seat (got "
                                   f"{seats!r}): the line-up's length is the seat count")
    return list(seats)


def check_seat_count(desc: GameDescriptor, entries: Sequence[Any]) -> None:
    """A `ConfigError` naming `seats` and the game's seat range when `entries` is outside it."""
    lo, hi = desc.seat_range
    if not lo <= len(entries) <= hi:
        count = str(lo) if lo == hi else f"{lo}..{hi}"
        raise ConfigError("seats", f"seats must list {count} policies (got {len(entries)})")


_NO_OPTIONS: set[type[Any]] = set()
"""The option models no options were found valid for (`validate_options` of nothing is
the same on every call: `prepare` checks it once per model)."""


def prepare(game: str | GameDescriptor, seats: Sequence[Any] | None = None, *,
            variant: str | None = None, seed: int | None = None,
            model: ModelOptions | None = None, **options: Any) -> tuple[GameDescriptor, Game,
                                                                        list[Any]]:
    """The descriptor, a ready game and its seats; `ConfigError` naming the field on any bad
    value. Check model seats' provider with `check_models` before playing."""
    desc = game if isinstance(game, GameDescriptor) else registry.get(game)
    if variant is not None and variant not in desc.variants:
        raise ConfigError("variant", f"variant must be one of {', '.join(desc.variants)} "
                                     f"(got {variant!r})")
    chosen = variant if variant is not None else desc.default_variant
    overrides = (validate_options(desc.options, options, section=f"{desc.name} option")
                 if options or desc.options not in _NO_OPTIONS else {})
    if not options:
        _NO_OPTIONS.add(desc.options)  # it validated: none is always valid for this model
    # an empty list is a line-up of no seats (refused below), not "not given"
    entries = lineup_of(seats) if seats is not None else list(desc.default_lineup(chosen))
    check_seat_count(desc, entries)
    for entry in entries:  # before the game reads the line-up (Ledger's calls it a baseline)
        if isinstance(entry, str) and entry.endswith(".py"):
            raise missing_class(entry)
    names = [seat_name(e) for e in entries]
    # line-up strings say how each seat decides; objects (a Bot, a callable) need their kinds
    kinds = None if all(isinstance(e, str) for e in entries) else [seat_kind(e) for e in entries]
    built = desc.make(chosen, overrides, seed, names, kinds)
    model = model or ModelOptions()
    return desc, built, make_seats(built, entries, model)


def has_model_seats(seats: Sequence[Any]) -> bool:
    return any(getattr(s, "kind", None) == "model" for s in seats)


def check_models(seats: Sequence[Any], model: ModelOptions) -> None:
    """No key, a refused key or an unreachable endpoint raise `ProviderUnavailable` (a
    `ConfigError` naming the variable or URL) before anything is played."""
    if has_model_seats(seats):
        from cogleague.seats.llm.preflight import check_provider

        check_provider(model)


async def arun(desc: GameDescriptor, game: Game, seats: Sequence[Any],
               observer: Any = None) -> Result:
    outcome = await run_episode(game, seats, observer=observer)
    return Result(desc, game, list(seats), outcome)


def run(desc: GameDescriptor, game: Game, seats: Sequence[Any]) -> Result:
    """Play a prepared game to its end (no event loop at all when every seat is scripted)."""
    if all(getattr(s, "kind", None) == "scripted" for s in seats):
        return Result(desc, game, list(seats), play_headless(game, seats))
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(arun(desc, game, seats))
    raise RuntimeError("cogleague.play was called inside a running event loop: use "
                       "`await cogleague.aplay(...)` there")


@dataclass
class Result:
    """One finished episode. The replay document and JSON are built only when asked for."""

    descriptor: GameDescriptor
    game: Game
    seats: list[Any]
    outcome: EpisodeOutcome
    _replay: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def scores(self) -> list[float]:
        """One number per seat, by seat (what the league ranks by)."""
        return [float(s) for s in self.outcome.results["scores"]]

    @property
    def faults(self) -> dict[str, Any]:
        """Per seat, its fallbacks by cause and any exceptions its bot raised."""
        return faults_section(self.outcome.faults, self.seats, self.outcome.reasons)

    @property
    def fault_summary(self) -> str | None:
        return summary_line(self.faults)

    @property
    def results(self) -> dict[str, Any]:
        """The results document as `results.json` holds it: the game's results, plus the
        ``models`` section when model seats played, plus ``faults``."""
        doc = dict(self.outcome.results)
        if has_model_seats(self.seats):
            from cogleague.seats.llm import accounting_for

            doc["models"] = accounting_for(self.seats)
        doc["faults"] = self.faults
        return doc

    @property
    def replay(self) -> dict[str, Any]:
        """The replay document (the game's own format, verifiable by `cogleague replay`)."""
        if self._replay is None:
            self._replay = self.descriptor.replay_document(self.game, self.outcome.log)
        return self._replay

    @property
    def replay_json(self) -> bytes:
        """The replay document's canonical bytes (what `save` writes as ``replay.json``),
        written straight from the episode where the game can, without building the document."""
        if self._replay is not None:
            return jsonio.dumpb(self._replay, sort_keys=self.descriptor.replay_sort_keys)
        return self.descriptor.replay_json(self.game, self.outcome.log)

    def save(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write ``results.json`` and ``replay.json`` into folder `path`; an existing run there
        is refused (`FileExistsError`) unless `overwrite`."""
        out = Path(path)
        if not check_bool("overwrite", overwrite) and ((out / "results.json").exists() or
                              (out / "replay.json").exists()):
            raise FileExistsError(f"{out} already holds a run (results.json/replay.json); "
                                  "choose another folder or overwrite")
        jsonio.write(out / "results.json", self.results)
        out.mkdir(parents=True, exist_ok=True)
        (out / "replay.json").write_bytes(self.replay_json)
        return out


def _model_text(kwargs: dict[str, Any], field: str) -> str | None:
    """A model setting that is a non-empty string, or None when not given."""
    value = kwargs.pop(field, None)
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigError(field, f"{field} must be a non-empty string (got {value!r})")
    return value


def _split(kwargs: dict[str, Any]) -> tuple[ModelOptions, dict[str, Any]]:
    """The model-seat settings, checked whatever the line-up (a typo must not wait for the
    first model seat to show), and the game options."""
    from cogleague.seats.llm.providers import PROVIDERS, check_max_reply_tokens

    provider = kwargs.pop("provider", None)
    if provider is not None:
        check_choice("provider", provider, PROVIDERS)
    model_name = _model_text(kwargs, "model")
    base_url = _model_text(kwargs, "base_url")
    api_key = _model_text(kwargs, "api_key")
    transcript = kwargs.pop("transcript", None)
    if transcript is not None and not isinstance(transcript, str | os.PathLike):
        raise ConfigError("transcript", f"transcript must be a file path (got {transcript!r})")
    max_reply_tokens = kwargs.pop("max_reply_tokens", None)
    if max_reply_tokens is not None:
        check_max_reply_tokens(max_reply_tokens)
    if provider is None and (model_name is not None or base_url is not None):
        provider = "openai"
    model = ModelOptions(provider=provider, model=model_name, base_url=base_url,
                         api_key=api_key,
                         transcript=None if transcript is None else os.fspath(transcript),
                         max_reply_tokens=max_reply_tokens)
    from cogleague.seats.llm.api import with_recording  # record/replay (seats/llm/recording.py)

    model = with_recording(model, record=kwargs.pop("record", None),
                           replay=kwargs.pop("replay", None),
                           replay_or_live=check_bool("replay_or_live",
                                                     kwargs.pop("replay_or_live", False)))
    return model, kwargs


ENGINES = ("rules", "batch")


@overload
def play(game: str, seats: Sequence[Any] | None = None, *, variant: str | None = None,
         seed: int | None = None, strict: bool = False, engine: Literal["rules"] = "rules",
         **kwargs: Any) -> Result: ...


@overload
def play(game: str, seats: Sequence[Any] | None = None, *, variant: str | None = None,
         seed: int | None = None, strict: bool = False, engine: Literal["batch"],
         **kwargs: Any) -> BatchEpisode: ...


def play(game: str, seats: Sequence[Any] | None = None, *, variant: str | None = None,
         seed: int | None = None, strict: bool = False, engine: str = "rules",
         **kwargs: Any) -> Result | BatchEpisode:
    """Play one episode of `game` and return its `Result`.

    Keywords: `variant`, `seed`, `strict` (raise `StrictError` if any decision fell back or a
    reply was read only in part),
    model-seat settings `model`, `provider`, `base_url`, `api_key`, `transcript`,
    `max_reply_tokens` (the reply-length cap of each request), `record` /
    `replay` (a directory of recorded model calls) and `replay_or_live`; every other
    keyword is a game option (`cogleague games` / the game's rules page list them).
    ``engine="batch"`` plays a line-up of baselines through the game's batch kernel
    (docs/batch.md) and returns a `BatchEpisode` (its scores and results document, the same
    as the rules engine's)."""
    if _check_engine(engine, strict) == "batch":
        from cogleague.batch_api import play_episode  # numpy: loaded on use

        return play_episode(game, seats, seed=seed, variant=variant, **kwargs)
    model, options = _split(dict(kwargs))
    desc, built, seat_objects = prepare(game, seats, variant=variant, seed=seed, model=model,
                                        **options)
    check_models(seat_objects, model)
    return _checked(run(desc, built, seat_objects), strict)


def _check_engine(engine: Any, strict: Any) -> str:
    """Refuse a bad `engine` or a `strict` that is not a bool before anything is played
    (`strict="false"` would be truthy)."""
    check_bool("strict", strict)
    if engine not in ENGINES:
        raise ConfigError("engine", f"engine must be one of {', '.join(ENGINES)} "
                                    f"(got {engine!r})")
    return str(engine)


@overload
async def aplay(game: str, seats: Sequence[Any] | None = None, *, variant: str | None = None,
                seed: int | None = None, strict: bool = False,
                engine: Literal["rules"] = "rules", **kwargs: Any) -> Result: ...


@overload
async def aplay(game: str, seats: Sequence[Any] | None = None, *, variant: str | None = None,
                seed: int | None = None, strict: bool = False, engine: Literal["batch"],
                **kwargs: Any) -> BatchEpisode: ...


async def aplay(game: str, seats: Sequence[Any] | None = None, *, variant: str | None = None,
                seed: int | None = None, strict: bool = False, engine: str = "rules",
                **kwargs: Any) -> Result | BatchEpisode:
    """`play` for code already inside an event loop (notebooks, async bots); the same
    arguments, `engine` included (the batch kernel plays without awaiting anything)."""
    if _check_engine(engine, strict) == "batch":
        from cogleague.batch_api import play_episode

        return play_episode(game, seats, seed=seed, variant=variant, **kwargs)
    model, options = _split(dict(kwargs))
    desc, built, seat_objects = prepare(game, seats, variant=variant, seed=seed, model=model,
                                        **options)
    if has_model_seats(seat_objects):
        from cogleague.seats.llm.preflight import acheck_provider

        await acheck_provider(model)
    return _checked(await arun(desc, built, seat_objects), strict)


def _checked(result: Result, strict: bool) -> Result:
    line = result.fault_summary if strict else None  # the summary only when it can raise
    if line is not None:
        raise StrictError(result, line)
    return result
