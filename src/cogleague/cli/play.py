"""`cogleague play GAME [options]`: one episode of any installed game, headless.

The command knows no game: `PlayGroup` lists the registry's games, and each game's command is
built from its descriptor — the variant choices, and one option per field of its config model
(`GameDescriptor.options`) with the field's type, range and help. After play it prints the
results table the descriptor's columns describe, and writes `results.json` and `replay.json`
to `--out` (default `runs/<game>-<variant>-<seed>/`; `cli/play_run.py` plays). Only the game
that is played is loaded, so an argument error answers at once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer import _click as click  # typer vendors click (>= 0.29); its own classes
from typer.core import TyperGroup

from cogleague.cli import app
from cogleague.cli.model_opts import model_params, refuse
from cogleague.cli.precheck import SHARED
from cogleague.cli.recording_opts import recording_params
from cogleague.cli.root import resolve_suggesting
from cogleague.core.config import read_int
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError
from cogleague.core.options import (
    base_type,
    cli_name,
    describe_range,
    field_choices,
    scalar_fields,
)
from cogleague.games import registry

# The options every game's command takes (`cli/precheck.py` checks them without typer).
_COMMON = tuple(flag[2:].replace("-", "_") for flag in SHARED)


def _param(name: str, annotation: Any, option: Any, default: Any = None) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[annotation, option])


def _option_params(desc: GameDescriptor) -> tuple[list[inspect.Parameter], dict[str, str]]:
    """One typer option per scalar field of the game's config model, and field → flag."""
    params: list[inspect.Parameter] = []
    flags: dict[str, str] = {}
    scalars = scalar_fields(desc.options)
    for field, info in desc.options.model_fields.items():
        kind = base_type(info.annotation)
        if field not in scalars or field in _COMMON:
            continue  # lists and nested objects: set them in a league file
        flag = cli_name(desc.options, field)
        choices = field_choices(desc.options, field)
        help_text = info.description or ""
        if choices:
            help_text += " (" + " | ".join(str(c) for c in choices) + ")"
        elif kind in (int, float) and (span := _span(desc, field)):
            help_text += f" ({span})"  # the allowed values, read before an error says them
        decls = [f"{flag}/--no-{flag[2:]}"] if kind is bool else [flag]
        parser = _int_field(desc, field, flag) if kind is int else None
        params.append(_param(field, kind | None, typer.Option(*decls, help=help_text,
                                                              parser=parser)))
        flags[field] = flag
    return params, flags


def _span(desc: GameDescriptor, field: str) -> str | None:
    """``lo..hi`` of a number option whose config model declares both bounds, else None."""
    bounds = {k: getattr(m, k) for m in desc.options.model_fields[field].metadata
              for k in ("ge", "le") if hasattr(m, k)}
    return f"{bounds['ge']:g}..{bounds['le']:g}" if len(bounds) == 2 else None


def _int_field(desc: GameDescriptor, field: str, flag: str) -> Callable[[str | int], int]:
    """A game's integer option read at parse time in the range its config model declares, so
    ``--rounds abc`` is one line naming that range; the game's own checks (a range that
    depends on the variant) still follow, in the same words."""
    lo = hi = None
    for meta in desc.options.model_fields[field].metadata:
        lo = getattr(meta, "ge", lo)
        hi = getattr(meta, "le", hi)

    def parse(text: str | int) -> int:
        try:
            if lo is not None:
                return read_int(text, int(lo), None if hi is None else int(hi))
            return read_int(text, -(2**63), None)
        except ValueError as exc:
            if lo is None:
                refuse(f"{flag} must be {describe_range(desc.options, field)} (got {text!r})")
            refuse(f"{flag} {exc}")

    return parse


def _seed(desc: GameDescriptor) -> Callable[[str | int], int]:
    def parse(text: str | int) -> int:
        try:
            return read_int(text, 0, desc.seed_max)
        except ValueError as exc:
            refuse(f"--seed {exc}")

    return parse


def _seats_help(desc: GameDescriptor) -> str:
    lo, hi = desc.seat_range
    count = str(lo) if lo == hi else f"{lo}..{hi}"
    return (f"{count} comma-separated policies: baselines ({', '.join(desc.baselines)}), "
            "llm[:PROMPT_FILE], policy:PATH (a trained policy file), a bot as FILE.py:CLASS "
            "or MODULE:CLASS (default: the variant's line-up)")


def register(app: typer.Typer, desc: GameDescriptor) -> None:
    """Add `cogleague play <game>` for one game, its options from the descriptor."""
    params, flags = _option_params(desc)
    common = [
        _param("variant", str | None, typer.Option(
            "--variant", help=" | ".join(desc.variants) + f" (default: {desc.default_variant})")),
        _param("seed", int | None, typer.Option(
            "--seed", help=f"0..{desc.seed_max} (default: random, "
                           "or the variant's)", parser=_seed(desc))),
        _param("seats", str | None, typer.Option("--seats", help=_seats_help(desc))),
        _param("out", Path | None, typer.Option("--out", help="directory for results.json and "
                                                              "replay.json")),
        *model_params(),
        _param("strict", bool, typer.Option("--strict", help="exit 1 if any decision fell "
                                                             "back or a reply was read only "
                                                             "in part"), False),
        _param("overwrite", bool, typer.Option("--overwrite", help="replace a run already in "
                                                                   "--out"), False),
        *recording_params(),
    ]

    def run(**kw: Any) -> None:
        from cogleague.cli.common import fail, model_options, split_seats, with_recording
        from cogleague.cli.play_run import play_game

        given = {k: kw[k] for k in flags}
        variant = kw["variant"] if kw["variant"] is not None else desc.default_variant
        if variant is not None and variant not in desc.variants:
            fail(f"--variant must be one of {', '.join(desc.variants)} (got {variant!r})")
        options = with_recording(
            model_options(kw["model"], kw["base_url"], kw["provider"], kw["transcript"],
                          kw["requests_per_minute"], kw["max_reply_tokens"]),
            kw["record"], kw["replay"], kw["replay_or_live"])
        play_game(desc, variant, kw["seed"], split_seats(kw["seats"]), kw["out"], options,
                  given, flags, strict=bool(kw["strict"]), overwrite=bool(kw["overwrite"]),
                  prices=kw["prices"])

    run.__signature__ = inspect.Signature([*common, *params])  # type: ignore[attr-defined]
    run.__name__ = f"play_{desc.name}"
    run.__doc__ = f"Play one {desc.title} episode ({desc.version})."
    app.command(desc.name)(run)


class PlayGroup(TyperGroup):
    """`cogleague play GAME`: one command per installed game, built when that game is named
    (listing them for `--help` loads every game)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return registry.entry_names()

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            desc = registry.find(cmd_name)
            if desc is None and cmd_name in registry.entry_names():
                try:  # installed but broken: its load error, not "no such command"
                    registry.get(cmd_name)
                except ConfigError as exc:
                    refuse(str(exc))
            if desc is None:
                return None
            one = typer.Typer(add_completion=False)  # as the root: no completion flags
            register(one, desc)
            self.add_command(typer.main.get_command(one), cmd_name)
        return self.commands[cmd_name]

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        return resolve_suggesting(self, ctx, args)


play_app = typer.Typer(cls=PlayGroup, no_args_is_help=True,
                       help="Play one episode of an installed game (cogleague games).")


@play_app.callback()
def _play() -> None:
    """Play one episode of an installed game (cogleague games)."""


app.add_typer(play_app, name="play")
