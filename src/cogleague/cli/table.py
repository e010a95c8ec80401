"""`cogleague table new GAME`: a table on a running server, its other seats filled with a
baseline; prints the table id (on stdout alone: ``TABLE=$(cogleague table new …)``) and, on
stderr, the command that seats a bot there."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from cogleague.cli import COMMANDS, app
from cogleague.cli.common import err_console, fail, int_in
from cogleague.cli.remote import DEFAULT_SERVER, ServerOpt, call

table_app = typer.Typer(no_args_is_help=True, help=COMMANDS["table"][1])
app.add_typer(table_app, name="table")

# The API's field names → the options that set them (the server's messages name the field).
OPTION_FOR = {"game": "GAME", "variant": "--variant", "fill_with": "--fill",
              "seed": "--seed", "pacing": "--pacing"}


@table_app.command("new")
def new(
    game: Annotated[str, typer.Argument(help="the game (GET /games on the server lists them)")],
    key: Annotated[str, typer.Option("--key", envvar="COGLEAGUE_KEY",
                                     help="your account's API key (cogleague account new)")],
    variant: Annotated[str | None, typer.Option(help="the game's variant (default: its own)")
                       ] = None,
    fill: Annotated[str | None, typer.Option(
        "--fill", help="a baseline that takes every seat no bot has taken at the start")] = None,
    open_seats: Annotated[int | None, typer.Option(
        "--open", help="seats left for bots (default: 1 with --fill, else every seat); "
                       "without --fill the table starts as the last bot joins",
        show_default=False, parser=int_in("--open", 1))] = None,
    seed: Annotated[int | None, typer.Option(help="the episode's seed (default: random)",
                                             parser=int_in("--seed", 0))] = None,
    pacing: Annotated[bool, typer.Option(
        help="honour the game's minimum time per step (off: play as fast as the bots answer)")
                      ] = True,
    server: ServerOpt = DEFAULT_SERVER,
) -> None:
    """Create a table for GAME and print its id and the command that seats a bot."""
    if fill is None and open_seats is not None:
        fail("--open needs --fill BASELINE (without it every seat is for a bot)")

    async def create(lobby: Any) -> dict[str, Any]:
        if open_seats is not None:  # checked before the table is made: a refusal makes none
            seats, played = _variant_seats(await lobby.games(), game, variant)
            if seats is not None and open_seats > seats:
                return {"problem": f"--open must be an integer in 1..{seats} for {game} "
                                   f"{played} (got {open_seats})"}
        body: dict[str, Any] = {"variant": variant, "fill_with": fill, "pacing": pacing,
                                "auto_start": fill is None}
        if seed is not None:
            body["seed"] = seed
        made: dict[str, Any] = await lobby.create_table(game, **body)
        n = made["num_seats"]
        wanted = open_seats or (1 if fill is not None else n)
        if wanted > n:  # a server that publishes no seats by variant
            return {"problem": f"--open must be an integer in 1..{n} for this table (got "
                               f"{wanted}); table {made['id']} was made and closes at its "
                               "start timeout"}
        return {**made, "open": wanted}

    made = call(server, key, create, OPTION_FOR)
    if "problem" in made:
        fail(made["problem"])
    table_id, n, bots = made["id"], made["num_seats"], made["open"]
    typer.echo(table_id)
    # a table made without --variant plays its game's default one: its config names it
    shown_variant = made.get("variant") or made.get("config", {}).get("variant") or ""
    shown_key = '"$COGLEAGUE_KEY"' if os.environ.get("COGLEAGUE_KEY") == key else key
    filled = f", {n - bots} filled with {fill} at the start" if bots < n else ""
    auto = fill is None
    how = "the last bot to join starts it" if auto else "your bot's --start starts it"
    played = " ".join(part for part in (made["game"], shown_variant) if part)
    err_console.print(
        f"table {table_id}: {played} — {n} seats, "
        f"{bots} for bots{filled}; {how}.\nseat a bot:\n  cogleague bot run BOT_FILE.py:CLASS "
        f"--server {server} --key {shown_key} --table {table_id}" + ("" if auto else " --start"),
        highlight=False, soft_wrap=True, markup=False)


def _variant_seats(games: list[dict[str, Any]], game: str, variant: str | None
                   ) -> tuple[int | None, str | None]:
    """The seats of a `game` table of `variant` (None: the game's default) with its default
    options, as `GET /games` publishes them (``variant_seats``), and the variant's name; None
    seats when the server does not know the game or the variant (its own refusal names them)
    or publishes no such count."""
    doc = next((g for g in games if g.get("name") == game), None)
    if doc is None:
        return None, variant
    played = variant or doc.get("default_variant")
    count = (doc.get("variant_seats") or {}).get(played)
    return (count if isinstance(count, int) else None), played
