"""`cogleague games`: every installed game in a few lines each (its one-line description, seats,
variants, and where a plugin came from) — and every game that failed to load, with its error.
`--verbose` adds versions and capabilities; `--json` prints the full descriptions."""

from __future__ import annotations

import shutil
import textwrap

import typer

from cogleague.cli import app


@app.command("games")
def games(as_json: bool = typer.Option(False, "--json", help="print the descriptions as JSON"),
          verbose: bool = typer.Option(False, "--verbose", "-v",
                                       help="add versions and capabilities")) -> None:
    """List the installed games (entry-point group cogleague.games)."""
    from cogleague.core import jsonio
    from cogleague.games import registry

    problems = registry.problems()
    if as_json:
        typer.echo(jsonio.dumps({"games": [d.describe() for d in registry.available()],
                                 "problems": [p.__dict__ for p in problems]}))
        return
    width = max(40, min(shutil.get_terminal_size((80, 24)).columns, 100))
    found = registry.available()
    name_w = max((len(d.name) for d in found), default=4)
    indent = " " * (2 + name_w + 2)
    typer.echo(f"{len(found)} games installed (cogleague play GAME --help shows a game's "
               "options):")
    for d in found:
        lo, hi = d.seat_range
        seats = f"{lo} seats" if lo == hi else f"{lo}..{hi} seats"
        text = f"{d.title} ({seats}). {d.tagline}".strip()
        lines = textwrap.wrap(text, width - len(indent), break_on_hyphens=False) or [""]
        typer.echo(f"  {d.name:<{name_w}}  {lines[0]}")
        more = [*lines[1:], *textwrap.wrap("variants: " + ", ".join(d.variants),
                                           width - len(indent) - 2, break_on_hyphens=False)]
        if d.origin and "(cogleague " not in d.origin:
            more.append("from " + d.origin.rsplit("(", 1)[-1].rstrip(")"))
        if verbose:
            more += textwrap.wrap(f"version {d.version}; capabilities: "
                                  f"{', '.join(d.capabilities) or 'none'}; {d.origin}",
                                  width - len(indent))
        for line in more:
            typer.echo(indent + line)
    for p in problems:
        typer.echo(f"error: game {p.name} failed to load ({p.origin}): {p.error}", err=True)
