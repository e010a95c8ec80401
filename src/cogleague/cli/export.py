"""`cogleague export transcripts IN… --out FILE`: model transcripts → chat-format JSONL.

Each reply a game accepted becomes one fine-tuning example, ``{"messages": [system, user, …,
assistant]}``, in the order the transcripts list them (see `cogleague.seats.llm.transcript`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cogleague.cli import app
from cogleague.cli.common import console, fail
from cogleague.core.errors import ConfigError
from cogleague.seats.llm.transcript import export_chat

export_app = typer.Typer(no_args_is_help=True, help="Turn run artifacts into other formats.")
app.add_typer(export_app, name="export")


@export_app.command("transcripts")
def transcripts(
    inputs: Annotated[list[Path], typer.Argument(help="transcript JSONL files (--transcript)",
                                                 show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="the chat-format JSONL to write")],
) -> None:
    """Write the accepted model replies of IN… as chat-format JSONL for fine-tuning."""
    for path in inputs:
        if not path.is_file():
            fail(f"IN {path} is not a transcript file")
    if out.resolve() in {p.resolve() for p in inputs}:
        fail(f"--out {out} is one of the inputs; name another file")
    try:
        examples, rows = export_chat(inputs, out)
    except ConfigError as exc:
        fail(str(exc))
    console.print(f"wrote {examples} examples from {rows} transcript rows to {out}",
                  highlight=False)
