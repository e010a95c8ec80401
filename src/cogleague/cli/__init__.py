"""`cogleague` — play, serve, replay, grade, league, bench.

Each feature registers its commands in its own module under `cogleague/cli/`; this file only
assembles them and turns user errors into one clear line and exit code 2.
"""

from __future__ import annotations

import importlib
import sys

import typer

from cogleague.core.errors import ConfigError, ReplayError

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="cogleague: a league of social-dilemma games for AI agents.")
play_app = typer.Typer(no_args_is_help=True, help="Play one episode with built-in seats.")
replay_app = typer.Typer(no_args_is_help=True, help="Verify or open replay files.")
app.add_typer(play_app, name="play")
app.add_typer(replay_app, name="replay")

# One line per feature module; each adds its commands to `app`, `play_app` or `replay_app`.
COMMAND_MODULES = [
    "cogleague.cli.replay_cmd",
    "cogleague.cli.league",
    "cogleague.cli.serve",
    "cogleague.cli.web",
    "cogleague.cli.export",
    "cogleague.cli.ledger",
    "cogleague.cli.dilemma",
    "cogleague.cli.commons",
    "cogleague.cli.grade",
]


def _load() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name)


def main(argv: list[str] | None = None) -> None:
    _load()
    try:
        app(args=argv, standalone_mode=True)
    except (ConfigError, ReplayError) as exc:  # raised outside a command's own handling
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
