"""`cogleague` — play, games, replay, grade, bot, serve, table, account, league, profile, agent,
export.

Each feature registers its commands on `app` in its own module under `cogleague/cli/` and has
one line in `COMMANDS`. A module is imported only when its command runs, and `app` itself
(`cli/root.py`, typer) only when a command does: `cogleague --help` and the common argument
errors (`cli/precheck.py`) answer without typer, pydantic or any game, and the others without
SQLAlchemy, the server or other games (`benchmarks/cli_startup.py` measures it). This file
only lists the commands and turns user errors into one clear line and exit code 2.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # as in `cogleague/__init__.py`: an argument error imports no typing
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

# One line per top-level command: the module that registers it and its one-line help (shown by
# `cogleague --help` without importing the module).
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("cogleague.cli.play", "Play one episode of an installed game (cogleague games)."),
    "games": ("cogleague.cli.games", "List the installed games."),
    "replay": ("cogleague.cli.replay_cmd", "Verify or open replay files."),
    "grade": ("cogleague.cli.grade", "Grade a replay with its game's grader."),
    "bot": ("cogleague.cli.bot", "Write a starter bot, or run one against a table server."),
    "serve": ("cogleague.cli.serve", "Serve the HTTP lobby and WebSocket play."),
    "table": ("cogleague.cli.table", "Create a table on a running server."),
    "account": ("cogleague.cli.account", "Create an account on a running server."),
    "league": ("cogleague.cli.league", "Run many episodes between policies and rank them."),
    "profile": ("cogleague.cli.profile", "Profile a policy's behaviour against probes."),
    "agent": ("cogleague.cli.agent", "Register league agents and keep one online."),
    "export": ("cogleague.cli.export", "Turn run artifacts into other formats."),
}


HELP = "cogleague: a league of social-dilemma games for AI agents."


def __getattr__(name: str) -> Any:
    """`app` is built on first use (`cli/root.py`), so `cogleague --help` imports no typer."""
    if name == "app":
        from cogleague.cli.root import app

        return app
    raise AttributeError(f"module 'cogleague.cli' has no attribute {name!r}")


def no_such_command(name: str, known: Iterable[str]) -> str:
    """Click's error for an unknown command, with typer's suggestions drawn from every
    command there is (the lazy groups have loaded only some)."""
    from difflib import get_close_matches

    matches = get_close_matches(name, list(known))
    hint = f" Did you mean {', '.join(repr(m) for m in matches)}?" if matches else ""
    return f"No such command {name!r}.{hint}"


def top_help() -> str:
    """`cogleague --help` as click writes it, from `COMMANDS` alone (`main` prints it without
    building the command tree; `tests/seam/test_cli_startup.py` holds it equal to click's)."""
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items())
    return (f"Usage: cogleague [OPTIONS] COMMAND [ARGS]...\n\n  {HELP}\n\nOptions:\n"
            f"  --help  Show this message and exit.\n\nCommands:\n{rows}\n")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--help"]:
        sys.stdout.write(top_help())
        return
    from cogleague.cli.precheck import answer

    error = answer(args)
    if error is not None:  # an argument error told without typer, as click tells it
        sys.stderr.write(error)
        sys.exit(2)
    import typer

    from cogleague.cli.root import app
    from cogleague.core.errors import ConfigError, ReplayError

    try:
        app(args=argv, standalone_mode=True)
    except (ConfigError, ReplayError) as exc:  # raised outside a command's own handling
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
