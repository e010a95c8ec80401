"""The command tree behind `cogleague`: a typer app whose top-level commands are imported only
when they are run (`COMMANDS` in `cli/__init__.py` names their modules)."""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer import _click as click  # typer vendors click (>= 0.29); its own classes
from typer.core import TyperCommand, TyperGroup

from cogleague.cli import COMMANDS, HELP, no_such_command


class LazyGroup(TyperGroup):
    """A command group that imports a command's module only when that command is resolved;
    listing (for `--help`) shows the one-line help from `COMMANDS` instead."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *(n for n in super().list_commands(ctx) if n not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in COMMANDS:
            return found
        return TyperCommand(cmd_name, help=COMMANDS[cmd_name][1])  # a listing entry

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] in COMMANDS and args[0] not in self.commands:
            self.add_command(load_command(args[0]), args[0])
        return resolve_suggesting(self, ctx, args)


def resolve_suggesting(group: TyperGroup, ctx: click.Context, args: list[str]
                       ) -> tuple[str | None, click.Command | None, list[str]]:
    """`resolve_command`, whose unknown-command error suggests from every command the group
    lists (typer suggests from those loaded so far, which in a lazy group is almost none)."""
    try:
        return TyperGroup.resolve_command(group, ctx, args)
    except click.exceptions.UsageError as error:
        if args and error.message.startswith("No such command"):
            error.message = no_such_command(args[0], group.list_commands(ctx))
        raise


def load_command(name: str) -> click.Command:
    """Import the module that registers `name` and build its click command."""
    importlib.import_module(COMMANDS[name][0])
    built: Any = typer.main.get_command(app)
    command: click.Command = built.commands[name]
    return command


app = typer.Typer(cls=LazyGroup, no_args_is_help=True, add_completion=False,
                  rich_markup_mode=None,  # plain help and errors: rich costs 0.2 s to import
                  help=HELP)


@app.callback()
def _root() -> None:
    """The group's own callback (typer builds a group only with one); `help=` gives the text."""
