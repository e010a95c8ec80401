"""Argument errors answered before typer is imported.

typer builds a command through pydantic, and a game's `play` command from the game's
descriptor (its config model, baselines): half a second before click may say that a value is
wrong. `answer` decides the errors it can from what costs nothing to know — the command names
(`COMMANDS`), the installed games' names (entry points, no game loaded) and the options every
`play GAME` command shares (`SHARED`) — and returns click's own message for them: an unknown
command or game, an option without its value, a flag given one. Anything else (a game's own
options, a `--seed` that is no integer: its message names the game's seed range, `--help`, a
line with no error) it leaves to typer, which reads it as before.
`tests/seam/test_cli_startup.py` holds every answer equal to click's.
A game is taken as installed when its entry point is listed: one whose code fails to load is
reported (`No such command`, `cogleague games` says why) once its arguments are right.
"""

from __future__ import annotations

import os
import sys

from cogleague.cli import COMMANDS, no_such_command

# The options of every `cogleague play GAME` (`cli/play.py` builds them; a game's own options
# are skipped when they share a name): flag -> "int" (an integer value, judged by typer in the
# game's range), "text" (any value) or "flag" (no value).
SHARED: dict[str, str] = {
    "--variant": "text", "--seed": "int", "--seats": "text", "--out": "text",
    "--model": "text", "--base-url": "text", "--provider": "text", "--transcript": "text",
    "--strict": "flag", "--overwrite": "flag", "--record": "text", "--replay": "text",
    "--replay-or-live": "flag", "--prices": "text", "--requests-per-minute": "int",
    "--max-reply-tokens": "int",
}

GROUP = "cogleague.games"  # the registry's entry-point group (`games/registry.py`)


def answer(argv: list[str], prog: str | None = None) -> str | None:
    """Click's error text (with its final newline) for `argv` when it is an error decided
    here; None: typer reads `argv`. `prog` is the program name click would show (default:
    found the way click finds it; None when that is not a plain script name)."""
    prog = prog if prog is not None else program_name()
    if prog is None or not argv or argv[0].startswith("-"):
        return None
    if argv[0] not in COMMANDS:
        return _usage(prog, "[OPTIONS] COMMAND [ARGS]...", no_such_command(argv[0], COMMANDS))
    if argv[0] != "play" or len(argv) < 2 or argv[1].startswith("-"):
        return None
    game = argv[1]
    if not _listed(game) and not _registered_elsewhere(game):
        return _usage(f"{prog} play", "[OPTIONS] COMMAND [ARGS]...",
                      no_such_command(game, _game_names()))
    return _play_error(f"{prog} play {game}", argv[2:])


def _listed(game: str) -> bool:
    """Whether an installed distribution declares `game` in the games' entry-point group
    (`listed_names`). A no is taken only where `_registered_elsewhere` says nothing else
    could."""
    return game in listed_names()


def listed_names() -> list[str]:
    """The games the installed distributions declare in the games' entry-point group, read
    from the `entry_points.txt` files of the metadata folders on `sys.path`, where
    importlib.metadata finds them (importing it costs more than the rest of an argument
    error)."""
    names: set[str] = set()
    for folder in sys.path:
        try:
            entries = list(os.scandir(folder or "."))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(entry.path, "entry_points.txt"), encoding="utf-8") as f:
                    names.update(_declared(f.read()))
            except OSError:
                continue
    return sorted(names)


def _registered_elsewhere(game: str) -> bool:
    """Whether the registry knows `game` where `_listed` does not look: a game registered by
    hand in this process, or distributions in a zip on `sys.path` or found by another finder.
    When none of those can be, it answers without importing the registry."""
    import importlib.machinery

    foreign = [f for f in sys.meta_path if getattr(f, "find_distributions", None) is not None
               and f is not importlib.machinery.PathFinder]
    if ("cogleague.games.registry" not in sys.modules and not foreign
            and not any(os.path.isfile(folder) for folder in sys.path if folder)):
        return False
    from cogleague.games import registry

    return game in registry.entry_names()


def _game_names() -> list[str]:
    """Every game `cogleague play` offers (the registry's list once it is loaded)."""
    if "cogleague.games.registry" in sys.modules:
        from cogleague.games import registry

        return registry.entry_names()
    return listed_names()


def _declared(text: str) -> list[str]:
    """The names an `entry_points.txt` declares in `GROUP`."""
    section, names = None, []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == GROUP and "=" in line:
            names.append(line.partition("=")[0].strip())
    return names


def _play_error(path: str, args: list[str]) -> str | None:
    """The first error click finds in a game's arguments that name only `SHARED` options."""
    i = 0
    while i < len(args):
        flag, has_value, value = args[i].partition("=")
        kind = SHARED.get(flag)
        if kind is None:  # a positional, `--`, a game's own option, --help, a typo: typer's
            return None
        i += 1
        if kind == "flag":
            if has_value:
                return f"Error: Option {flag!r} does not take a value.\n"
            continue
        if not has_value:
            if i == len(args):
                return f"Error: Option {flag!r} requires an argument.\n"
            value = args[i]
            if value.startswith("-"):  # click's reading of `--seed -1 …` is typer's to give
                return None
            i += 1
    return None


def _usage(path: str, pieces: str, message: str) -> str:
    return f"Usage: {path} {pieces}\nTry '{path} --help' for help.\n\nError: {message}\n"


def program_name() -> str | None:
    """The script's file name, as click shows it; None under ``python -m`` (click then shows
    ``python -m …``; typer answers those runs)."""
    main = sys.modules.get("__main__")
    if getattr(main, "__package__", None) in (None, ""):
        return os.path.basename(sys.argv[0])
    return None
