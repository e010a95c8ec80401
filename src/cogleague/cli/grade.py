"""`cogleague grade REPLAY [--json]`: a replay graded by its game's grader (Commons Family: the
social-planner view)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from cogleague.cli import app
from cogleague.cli.common import console, fail
from cogleague.core import jsonio
from cogleague.core.errors import ReplayError
from cogleague.games import registry


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return "—" if value is None else str(value)


@app.command("grade")
def grade_cmd(replay: Path = typer.Argument(..., help="a replay.json of a game with a grader"),
              as_json: bool = typer.Option(False, "--json", help="print the figures as JSON")
              ) -> None:
    """Grade a replay with its game's grader (Commons Family: welfare against the planner
    optimum, plus behavioural figures)."""
    try:
        doc = json.loads(replay.read_text(encoding="utf-8"))
    except FileNotFoundError:
        fail(f"REPLAY {replay} does not exist")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        fail(f"REPLAY {replay} is not a JSON replay: {exc}")
    fmt = doc.get("format") if isinstance(doc, dict) else None
    desc = registry.by_replay_format(fmt)
    if desc is None or desc.grade is None:
        graded = ", ".join(d.name for d in registry.available() if d.grade is not None)
        fail(f"REPLAY {replay}: format {fmt!r} has no grader (games with one: {graded})")
    try:
        figures = desc.grade(doc)
    except ReplayError as exc:
        fail(f"REPLAY {replay} cannot be graded: {exc}")
    if as_json:
        typer.echo(jsonio.dumps(figures, sort_keys=True))
        return
    table = Table(title=f"grade: {replay}", show_header=False)
    for key, value in figures.items():
        table.add_row(key, _fmt(value))
    console.print(table)
