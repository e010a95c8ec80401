"""`cogleague bot run MODULE:CLASS --server URL --key KEY --table ID`: play one seat remotely."""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

from cogleague.cli import COMMANDS, app
from cogleague.cli.common import console, err_console, fail, guarded, int_in
from cogleague.core.errors import ConfigError
from cogleague.games import registry
from cogleague.seats.botref import load_bot_class

bot_app = typer.Typer(no_args_is_help=True, help=COMMANDS["bot"][1])
app.add_typer(bot_app, name="bot")


@bot_app.command("run")
def run(
    bot: Annotated[str, typer.Argument(help="MODULE:CLASS or FILE.py:CLASS of a cogleague Bot")],
    server: Annotated[str, typer.Option(envvar="COGLEAGUE_SERVER",
                                        help="server URL, e.g. http://127.0.0.1:8000")],
    key: Annotated[str, typer.Option(envvar="COGLEAGUE_KEY", help="your account's API key")],
    table: Annotated[str, typer.Option(help="table id")],
    seat: Annotated[int | None, typer.Option(
        help="ask for this seat, 0 or more (default: the first free)",
        parser=int_in("--seat", 0))] = None,
    name: Annotated[str | None, typer.Option(help="policy name (spectators and league only)"
                                             )] = None,
    start: Annotated[bool, typer.Option(help="start the table once connected (creator only)"
                                        )] = False,
    reclaim: Annotated[bool, typer.Option(
        "--reclaim", help="if this account already holds a seat at TABLE (the bot restarted), "
                          "take it back with a new token; the old token stops working")] = False,
) -> None:
    """Join TABLE as a remote seat and play it with BOT until the table ends."""
    import httpx

    from cogleague.client import LobbyError, SeatRefused, join_and_play

    instance: Any = guarded(lambda: load_bot_class(bot, field="BOT")())
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    try:
        outcome = asyncio.run(join_and_play(instance, server, key, table, seat=seat, name=name,
                                            start=start, reclaim=reclaim))
    except LobbyError as exc:
        if exc.code == "already_seated" or (exc.code == "wrong_state" and not reclaim):
            held = "that seat" if exc.code == "already_seated" else "a seat this account holds"
            fail(f"{server}: {exc}; --reclaim takes {held} back with a new token")
        fail(f"{server}: {exc}")
    except httpx.HTTPError as exc:
        fail(f"--server {server}: cannot reach it ({exc})")
    except (SeatRefused, ConnectionError, OSError, ConfigError) as exc:
        fail(str(exc))
    results = outcome.results or {}
    score = results.get("scores", results.get("points"))
    console.print(f"table {table} ended ({outcome.reason}); seat {outcome.seat} "
                  f"({outcome.alias}) scored {score}", highlight=False)
    if outcome.faults:  # the seat played on; the bot's own exceptions make the exit code
        err_console.print("the bot raised; those turns fell back by the rules:",
                          highlight=False)
        for line in outcome.faults.summary():
            err_console.print(f"  {line}", highlight=False, soft_wrap=True)
        raise typer.Exit(1)


TEST_TEMPLATE = '''"""Plays {cls} against the game's baselines: `cogleague bot new {game}` wrote it.

Run it with: python -m pytest {test}
"""

from pathlib import Path

import cogleague

BOT = str(Path(__file__).with_name("{file}")) + ":{cls}"


def test_{slug}_plays_a_whole_episode_without_falling_back() -> None:
    # strict=True: any turn that falls back (an exception, an illegal move, a timeout)
    # fails the test with the reason, instead of scoring the game's fallback for you.
    game = cogleague.game("{game}")
    lineup = [BOT] + game.default_lineup(game.default_variant)[1:]
    result = cogleague.play("{game}", lineup, seed=1, strict=True)
    assert len(result.scores) == len(lineup)
'''


def _class_name(stem: str) -> str:
    words = [w for w in stem.replace("-", "_").split("_") if w]
    name = "".join(w[:1].upper() + w[1:] for w in words) or "MyBot"
    return name if name.isidentifier() and not name[0].isdigit() else "MyBot"


@bot_app.command("new")
def new(
    game: Annotated[str, typer.Argument(help="the game the bot plays (cogleague games)")],
    path: Annotated[Path | None, typer.Argument(help="the bot file to write (default: "
                                                     "GAME_bot.py)")] = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite existing files")] = False,
) -> None:
    """Write a commented starter bot for GAME and a test that plays it against the baselines."""
    desc = guarded(lambda: registry.get(game), {"game": "GAME"})
    if desc.starter is None or not Path(desc.starter).is_file():
        fail(f"GAME {game} ships no starter bot (games with one: "
             f"{', '.join(d.name for d in registry.available() if d.starter) or 'none'})")
    target = path or Path(f"{desc.name}_bot.py")
    if target.suffix != ".py":
        fail(f"PATH {target} must end in .py")
    test_path = target.with_name(f"test_{target.stem}.py")
    for p in (target, test_path):
        if p.exists() and not force:
            fail(f"{p} already exists (use --force to overwrite)")
    cls = _class_name(target.stem)
    fields = {"cls": cls, "name": target.stem.replace("_", "-"), "path": target,
              "test": test_path, "game": desc.name, "file": target.name,
              "slug": re.sub(r"\W", "_", target.stem.lower())}  # part of a test's name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(Path(desc.starter).read_text(encoding="utf-8").format(**fields),
                          encoding="utf-8")
        test_path.write_text(TEST_TEMPLATE.format(**fields), encoding="utf-8")
    except OSError as exc:
        fail(f"PATH {target}: cannot write it ({exc.strerror or exc})")
    # Whole commands, one a line and never wrapped, so each works when copied.
    seats = ",".join([f"{target}:{cls}", *desc.default_lineup(desc.default_variant)[1:]])
    console.print(f"wrote {target} ({cls}) and {test_path}", highlight=False, soft_wrap=True)
    console.print(f"next: cogleague play {desc.name} --seats {shlex.quote(seats)} --strict",
                  highlight=False, soft_wrap=True)
    console.print(f"next: python -m pytest {shlex.quote(str(test_path))}",
                  highlight=False, soft_wrap=True)
