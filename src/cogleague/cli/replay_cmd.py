"""`cogleague replay verify FILE`: re-derive a replay of any game and report the first mismatch
(`cogleague replay open`, in `cli/web.py`, joins the same group)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from cogleague.cli import COMMANDS, app
from cogleague.cli.common import console, fail
from cogleague.core.errors import ReplayError
from cogleague.core.verify import verify_replay
from cogleague.games import registry

replay_app = typer.Typer(no_args_is_help=True, help=COMMANDS["replay"][1])
app.add_typer(replay_app, name="replay")


def replay_file(file: Path) -> Path:
    """FILE, or the replay.json of the run folder FILE (what `play --out` wrote)."""
    if not file.is_dir():
        return file
    if not (file / "replay.json").is_file():
        fail(f"FILE {file} is a folder without a replay.json")
    return file / "replay.json"


def no_format(file: Path) -> str:
    """What to say of a JSON file without a ``format`` (a run's results.json, most likely):
    not a replay, and the replay beside it when there is one."""
    beside = file.with_name("replay.json")
    hint = (f"; its run's replay is {beside}" if beside != file and beside.is_file()
            else "; a replay is the replay.json that cogleague play writes")
    return f"FILE {file} is not a replay (it has no \"format\"){hint}"


def refuse_results_file(file: Path) -> None:
    """`fail` with `no_format` when FILE is JSON without a ``format``; anything else is left
    to the command's own checks."""
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return
    if isinstance(doc, dict) and "format" not in doc:
        fail(no_format(file))


@replay_app.command("verify")
def verify(file: Path = typer.Argument(..., help="a replay.json written by cogleague, or its "
                                                 "run folder")) -> None:
    """Re-derive FILE (or a run folder's replay.json) from its seed and decisions; exit 1 with
    the first mismatch."""
    file = replay_file(file)
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        fail(f"FILE {file} does not exist")
    except OSError as exc:
        fail(f"FILE {file} cannot be read ({exc.strerror or exc})")
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        fail(f"FILE {file} is not a JSON replay: {exc}")
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if isinstance(doc, dict) and "format" not in doc:
        fail(no_format(file))
    desc = registry.by_replay_format(fmt)
    if desc is None:
        known = ", ".join(d.replay_format for d in registry.available())
        fail(f"format {fmt!r} is not the replay format of an installed game (known: {known})")
    try:
        verify_replay(doc, desc)
    except ReplayError as exc:
        console.print(f"[bold red]replay does not verify:[/] {exc}", highlight=False)
        raise typer.Exit(1) from None
    console.print(f"[green]ok[/] {file} verifies ({fmt})")


from cogleague.cli import web as _web  # noqa: E402, F401  (registers `replay open`)
