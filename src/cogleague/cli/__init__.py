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
replay_app = typer.Typer(no_args_is_help=True, help="Verify or open replay files.")
app.add_typer(replay_app, name="replay")

# One line per feature module; each adds its commands to `app` or `replay_app`. `play` is
# is built per installed game from its descriptor (`cli/play.py`).
COMMAND_MODULES = [
    "cogleague.cli.replay_cmd",
    "cogleague.cli.games",
    "cogleague.cli.league",
    "cogleague.cli.serve",
    "cogleague.cli.web",
    "cogleague.cli.export",
    "cogleague.cli.grade",
    "cogleague.cli.profile",
    "cogleague.cli.agent",
]


_loaded = False


def _load() -> None:
    """Import every feature module once (each registers its commands)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in COMMAND_MODULES:
        importlib.import_module(name)
    from cogleague.cli.play import play_app

    app.add_typer(play_app, name="play")


_load()


def main(argv: list[str] | None = None) -> None:
    try:
        app(args=argv, standalone_mode=True)
    except (ConfigError, ReplayError) as exc:  # raised outside a command's own handling
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
