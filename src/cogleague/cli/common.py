"""Pieces every `play` command shares: seat lists, the progress bar, artifacts, clean errors."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cogleague.cli.recording_opts import recording_params
from cogleague.core import model_limits as limits
from cogleague.core.config import read_int, read_number
from cogleague.core.errors import ConfigError

if TYPE_CHECKING:
    from cogleague.core.episode import EpisodeOutcome
    from cogleague.core.game import Game
    from cogleague.core.replay import LogEntry
    from cogleague.seats.factory import ModelOptions

__all__ = ["recording_params"]  # re-exported: `cli/profile.py` and others take it from here


def _console(stderr: bool = False) -> Console:
    """A console that reads COLUMNS each time it prints (rich reads it once, when the console
    is made; this module is imported on a command's first run, whose environment would then
    hold for every later run in the same process, as in tests). No emoji codes: a bot named
    `file.py:B` followed by a colon would print as an emoji."""
    made = Console(stderr=stderr, emoji=False)
    made._width = None
    return made


console = _console()
err_console = _console(stderr=True)


def fail(message: str) -> NoReturn:
    """One clear line on stderr and exit code 2: the CLI's answer to any bad argument. The
    message is escaped: `[league]`, `[season]` in it are TOML tables, not rich markup."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def int_option(option: str, text: str | int, lo: int, hi: int | None = None) -> int:
    """An integer option taken as text and judged here, so a value that is no integer gets the
    same one line (`fail`) as one out of range; click's own answer is three lines without the
    range. Worded by `core/config.read_int`, as argparse scripts' `int_arg` is."""
    try:
        return read_int(text, lo, hi)
    except ValueError as exc:
        fail(f"{option} {exc}")


def int_in(option: str, lo: int, hi: int | None = None) -> Callable[[str | int], int]:
    """A typer ``parser=`` for an integer option: `int_option` at parse time, before the
    command runs (typer also hands it the option's int default). ``hi`` None: the server
    judges the top (a table's seat count, a season's token cap)."""

    def parse(text: str | int) -> int:
        return int_option(option, text, lo, hi)

    return parse


def number_option(option: str, text: str, lo: float, hi: float) -> float:
    """A number option taken as text and judged here, in one line (`fail`) like `int_option`;
    not a number, not finite or out of range are all refused with the range (worded by
    `core/config.read_number`, as argparse scripts' `number_arg` is)."""
    try:
        return read_number(text, lo, hi)
    except ValueError as exc:
        fail(f"{option} {exc}")


def split_seats(arg: str | None, option: str = "--seats") -> list[str] | None:
    if arg is None:
        return None
    names = [s.strip() for s in arg.split(",")]
    if any(not n for n in names):
        fail(f"{option} must be a comma-separated list of policy names (got {arg!r})")
    return names


def play_with_progress(game: Game, seats: Sequence[Any], total_rounds: int,
                       label: str = "rounds") -> EpisodeOutcome:
    """Run one episode with a rich progress bar over rounds."""
    from cogleague.core.episode import run_episode

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=False) as progress:
        task = progress.add_task(f"{game.name} {label}", total=total_rounds)

        async def observer(entry: LogEntry, g: Game) -> None:
            progress.update(task, completed=g.rounds_played)

        outcome = asyncio.run(run_episode(game, seats, observer=observer))
        progress.update(task, completed=game.rounds_played)
    return outcome


def guarded(fn: Callable[[], Any], option_for: Mapping[str, str] | None = None) -> Any:
    """Run `fn`; a ConfigError becomes `fail` — one line, exit 2. `option_for` maps a config
    field to the command-line option that sets it, so the message names what the user typed."""
    try:
        return fn()
    except ConfigError as exc:
        option = (option_for or {}).get(exc.field)
        fail(str(exc if option is None else exc.renamed(option)))


def model_options(model: str | None, base_url: str | None, provider: str | None,
                  transcript: str | None, requests_per_minute: int | None = None,
                  max_reply_tokens: int | None = None) -> ModelOptions:
    """The shared model options; the provider defaults to openai when a model is named."""
    from cogleague.seats.factory import ModelOptions

    if provider is not None and provider not in limits.PROVIDERS:
        fail(f"--provider must be {' or '.join(limits.PROVIDERS)} (got {provider!r})")
    if provider is None and (model is not None or base_url is not None):
        provider = "openai"
    return ModelOptions(provider=provider, model=model, base_url=base_url, transcript=transcript,
                        requests_per_minute=requests_per_minute,
                        max_reply_tokens=max_reply_tokens)


def with_recording(options: ModelOptions, record: Path | None, replay: Path | None,
                   replay_or_live: bool | None) -> ModelOptions:
    """Model options with the recording the flags ask for."""
    import dataclasses

    if record is not None and replay is not None:
        fail("--record and --replay exclude each other (use --replay DIR --replay-or-live to "
             "replay and record what is missing)")
    if replay_or_live and replay is None:
        fail("--replay-or-live needs --replay DIR")
    if record is not None:
        return dataclasses.replace(options, recording=str(record), recording_mode="record")
    if replay is not None:
        mode = "replay_or_live" if replay_or_live else "replay"
        return dataclasses.replace(options, recording=str(replay), recording_mode=mode)
    return options


_T = TypeVar("_T")


def replaying(play: Callable[[], _T]) -> _T:
    """Run `play`; a request missing from a replayed recording becomes one clear error."""
    from cogleague.seats.llm.recording import RecordingMiss

    try:
        return play()
    except RecordingMiss as miss:
        fail(str(miss))


def print_model_costs(seats: Sequence[Any], prices: Any | None) -> None:
    """Tokens (and money, for models the price table lists) per model seat and in total."""
    if not any(getattr(s, "kind", None) == "model" for s in seats):
        return
    from cogleague.seats.llm import accounting_for
    from cogleague.seats.llm.pricing import total

    models = accounting_for(seats)
    assert models is not None
    costs = prices.seat_costs(models) if prices is not None else [None] * len(seats)
    for i, seat in enumerate(seats):
        if getattr(seat, "kind", None) != "model":
            continue
        money = f", {prices.format(costs[i])}" if prices is not None and costs[i] is not None \
            else ""
        model = models["model"][i] or "no model provider"
        console.print(f"seat {i} ({model}): {models['requests'][i]} requests, "
                      f"{models['replayed'][i]} replayed, {models['input_tokens'][i]} in / "
                      f"{models['output_tokens'][i]} out tokens{money}", highlight=False)
    spent = total(costs)
    if prices is not None:
        console.print(f"episode cost: {prices.format(spent)}"
                      + ("" if spent is not None else " (no model in the price table; tokens "
                         "only)"), highlight=False)
