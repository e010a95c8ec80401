"""The record/replay and price options every `play` command takes, as typer parameters (kept
apart from `cli/common.py` so that building the `play` commands imports nothing heavy)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated, Any

import typer


def recording_params() -> list[Any]:
    """The record/replay and price options every `play` command takes (as typer parameters)."""
    def param(name: str, annotation: Any, option: Any) -> inspect.Parameter:
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                 annotation=Annotated[annotation, option])

    return [
        param("record", Path | None, typer.Option(
            "--record", help="record every model call to this directory")),
        param("replay", Path | None, typer.Option(
            "--replay", help="answer model calls from this recording (no network)")),
        param("replay_or_live", bool | None, typer.Option(
            "--replay-or-live", help="with --replay: send what the recording lacks live and "
                                     "add it")),
        param("prices", Path | None, typer.Option(
            "--prices", help="price table (TOML) to show model costs")),
    ]
