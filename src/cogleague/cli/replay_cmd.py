"""`cogleague replay verify FILE`: re-derive a replay of any game and report the first mismatch."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from cogleague.cli import replay_app
from cogleague.cli.common import console, fail
from cogleague.core.errors import ReplayError

# replay format → "module:function" that re-derives a replay document or raises ReplayError
VERIFIERS: dict[str, str] = {
    "ledger.replay.v1": "cogleague.games.ledger.replay:verify",
    "commons-family/1": "cogleague.games.commons.replay:verify",
    "dilemma.replay.v1": "cogleague.games.dilemma.replay:verify",
}


def _verifier(fmt: str):  # type: ignore[no-untyped-def]
    import importlib

    target = VERIFIERS.get(fmt)
    if target is None:
        return None
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)


@replay_app.command("verify")
def verify(file: Path = typer.Argument(..., help="a replay.json written by cogleague")) -> None:
    """Re-derive FILE from its seed and events; exit 1 with the first mismatch."""
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        fail(f"FILE {file} does not exist")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        fail(f"FILE {file} is not a JSON replay: {exc}")
    fmt = doc.get("format") if isinstance(doc, dict) else None
    fn = _verifier(str(fmt))
    if fn is None:
        fail(f"format {fmt!r} is not a known replay format (known: {', '.join(VERIFIERS)})")
    try:
        fn(doc)
    except ReplayError as exc:
        console.print(f"[bold red]replay does not verify:[/] {exc}", highlight=False)
        raise typer.Exit(1) from None
    console.print(f"[green]ok[/] {file} verifies ({fmt})")
