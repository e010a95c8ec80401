"""`cogleague games`: every installed game, its version, variants, seats and origin — and every
game that failed to load, with its error."""

from __future__ import annotations

import typer
from rich.table import Table

from cogleague.cli import app
from cogleague.cli.common import console, err_console
from cogleague.core import jsonio
from cogleague.games import registry


@app.command("games")
def games(as_json: bool = typer.Option(False, "--json", help="print the descriptions as JSON")
          ) -> None:
    """List the installed games (entry-point group cogleague.games)."""
    problems = registry.problems()
    if as_json:
        typer.echo(jsonio.dumps({"games": [d.describe() for d in registry.available()],
                                 "problems": [p.__dict__ for p in problems]}))
        return
    table = Table(title="installed games")
    for column in ("game", "title", "version", "variants", "seats", "capabilities", "from"):
        table.add_column(column, overflow="fold")  # a narrow terminal wraps, never cuts
    for d in registry.available():
        lo, hi = d.seat_range
        table.add_row(d.name, d.title, d.version, ", ".join(d.variants),
                      str(lo) if lo == hi else f"{lo}..{hi}", ", ".join(d.capabilities),
                      d.origin)
    console.print(table)
    for p in problems:
        err_console.print(f"[bold red]error:[/] game {p.name} failed to load ({p.origin}): "
                          f"{p.error}", highlight=False, soft_wrap=True)
