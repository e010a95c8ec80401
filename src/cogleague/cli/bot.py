"""`cogleague bot run MODULE:CLASS --server URL --key KEY --table ID`: play one seat remotely."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from cogleague.cli import app
from cogleague.cli.common import console, fail

bot_app = typer.Typer(no_args_is_help=True, help="Run an SDK bot against a table server.")
app.add_typer(bot_app, name="bot")


def load_bot_class(ref: str) -> type:
    """``package.module:Class`` or ``path/to/file.py:Class`` (the working directory is on the
    import path, as with ``python -m``)."""
    target, sep, class_name = ref.rpartition(":")
    if not sep or not target or not class_name:
        fail(f"BOT must be MODULE:CLASS or FILE.py:CLASS (got {ref!r})")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            fail(f"BOT file {target} does not exist")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
    else:
        sys.path.insert(0, str(Path.cwd()))
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            fail(f"BOT module {target!r} cannot be imported ({exc})")
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        fail(f"BOT {ref!r}: {target} has no class {class_name}")
    return cls


@bot_app.command("run")
def run(
    bot: Annotated[str, typer.Argument(help="MODULE:CLASS or FILE.py:CLASS of a cogleague Bot")],
    server: Annotated[str, typer.Option(help="server URL, e.g. http://127.0.0.1:8000")],
    key: Annotated[str, typer.Option(help="your account's API key")],
    table: Annotated[str, typer.Option(help="table id")],
    seat: Annotated[int | None, typer.Option(help="ask for this seat (default: the first free)"
                                             )] = None,
    name: Annotated[str | None, typer.Option(help="policy name (spectators and league only)"
                                             )] = None,
    start: Annotated[bool, typer.Option(help="start the table once connected (creator only)"
                                        )] = False,
) -> None:
    """Join TABLE as a remote seat and play it with BOT until the table ends."""
    import httpx

    from cogleague.client import LobbyError, SeatRefused, join_and_play

    instance: Any = load_bot_class(bot)()
    try:
        outcome = asyncio.run(join_and_play(instance, server, key, table, seat=seat, name=name,
                                            start=start))
    except LobbyError as exc:
        fail(f"{server}: {exc}")
    except httpx.HTTPError as exc:
        fail(f"--server {server}: cannot reach it ({exc})")
    except (SeatRefused, ConnectionError, OSError) as exc:
        fail(str(exc))
    results = outcome.results or {}
    score = results.get("scores", results.get("points"))
    console.print(f"table {table} ended ({outcome.reason}); seat {outcome.seat} "
                  f"({outcome.alias}) scored {score}", highlight=False)
