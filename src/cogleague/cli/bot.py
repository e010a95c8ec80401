"""`cogleague bot run MODULE:CLASS --server URL --key KEY --table ID`: play one seat remotely."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer

from cogleague.cli import app
from cogleague.cli.common import console, fail, guarded
from cogleague.seats.botref import load_bot_class

bot_app = typer.Typer(no_args_is_help=True, help="Run an SDK bot against a table server.")
app.add_typer(bot_app, name="bot")


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

    instance: Any = guarded(lambda: load_bot_class(bot, field="BOT")())
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
