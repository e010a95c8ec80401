"""`cogleague export transcripts IN… --out FILE`: model transcripts → chat-format JSONL.

Each reply a game accepted becomes one fine-tuning example, ``{"messages": [system, user, …,
assistant]}``, in the order the transcripts list them (see `cogleague.seats.llm.transcript`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from cogleague.cli import app
from cogleague.cli.common import console, fail
from cogleague.core.errors import ConfigError
from cogleague.seats.llm.transcript import export_chat, left_out, read_rows

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
        if not path.exists():
            fail(f"IN {path} does not exist")
        if path.is_dir():
            fail(f"IN {path} is a folder, not a transcript file")
    if out.resolve() in {p.resolve() for p in inputs}:
        fail(f"--out {out} is one of the inputs; name another file")
    try:
        examples, rows = export_chat(inputs, out)
    except ConfigError as exc:
        fail(str(exc))
    console.print(f"wrote {examples} examples from {rows} transcript rows to {out}",
                  highlight=False)
    if examples == 0:
        console.print(f"0 examples: {why_none(inputs, rows)}", highlight=False)


def why_none(inputs: list[Path], rows: int) -> str:
    """Why no row became an example: none were written, or every reply was refused."""
    if rows == 0:
        return ("the transcripts hold no rows (were they written by a run with model seats "
                "and --transcript?)")
    causes = Counter(left_out(row) or "?" for path in inputs for row in read_rows(path))
    listed = ", ".join(f"{n} {cause}" for cause, n in causes.most_common())
    return f"no reply was accepted by the game ({listed})"
