"""`cogleague grade REPLAY [--json]`: the social-planner view of a Commons Family replay."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from cogleague.cli import app
from cogleague.cli.common import console, fail
from cogleague.core import jsonio
from cogleague.core.errors import ReplayError


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return "—" if value is None else str(value)


@app.command("grade")
def grade_cmd(replay: Path = typer.Argument(..., help="a Commons Family replay.json"),
              as_json: bool = typer.Option(False, "--json", help="print the figures as JSON")
              ) -> None:
    """Welfare against the planner optimum (rules §8), plus behavioural figures."""
    from cogleague.games.commons.grade import grade

    try:
        doc = json.loads(replay.read_text(encoding="utf-8"))
    except FileNotFoundError:
        fail(f"REPLAY {replay} does not exist")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        fail(f"REPLAY {replay} is not a JSON replay: {exc}")
    try:
        figures = grade(doc)
    except ReplayError as exc:
        fail(f"REPLAY {replay} cannot be graded: {exc}")
    if as_json:
        typer.echo(jsonio.dumps(figures, sort_keys=True))
        return
    table = Table(title=f"grade: {replay}", show_header=False)
    for key, value in figures.items():
        table.add_row(key, _fmt(value))
    console.print(table)
