"""`cogleague account new NAME --operator-key KEY`: an account on a running server; prints its
API key (on stdout alone, so a shell can keep it: ``KEY=$(cogleague account new …)``)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from cogleague.cli import COMMANDS, app
from cogleague.cli.common import err_console, int_in, number_option
from cogleague.cli.remote import DEFAULT_SERVER, ServerOpt, call

account_app = typer.Typer(no_args_is_help=True, help=COMMANDS["account"][1])
app.add_typer(account_app, name="account")


@account_app.command("new")
def new(
    name: Annotated[str, typer.Argument(help="the account's name (letters, digits, _ . -)")],
    operator_key: Annotated[str | None, typer.Option(
        "--operator-key", envvar="COGLEAGUE_OPERATOR_KEY",
        help="the server's operator key (not needed on an --open-registration server)")] = None,
    credits: Annotated[int, typer.Option(
        help="credits granted at creation (paid tables hold them)",
        parser=int_in("--credits", 0))] = 0,
    server: ServerOpt = DEFAULT_SERVER,
    wait_text: Annotated[str, typer.Option(
        "--wait", metavar="<seconds>",
        help="seconds to wait for a server that is still starting, 0..600")] = "0",
) -> None:
    """Create an account and print its API key (shown once: keep it)."""
    wait = number_option("--wait", wait_text, 0, 600)

    async def create(lobby: Any) -> dict[str, Any]:
        made: dict[str, Any] = await lobby.create_account(name, credits)
        return made

    made = call(server, operator_key, create, {
        "name": "NAME", "credits": "--credits",
        # the only key this command sends is the operator key: say which option is wrong
        "unknown API key": f"--operator-key: not the operator key of the server at {server} "
                           "(unknown API key; the key `cogleague serve --operator-key` was "
                           "started with)"}, wait=wait)
    typer.echo(made["api_key"])
    err_console.print(f"account {made.get('name', name)} (id {made.get('id')}) created on "
                      f"{server} with "
                      f"{made.get('balance', credits)} credits; its key (above) is shown once",
                      highlight=False, soft_wrap=True)
