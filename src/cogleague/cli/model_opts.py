"""The model-seat options `play GAME`, `profile` and `serve` take, written once: their help and
parsers read `core/model_limits.py` (which the seats check with). Kept apart from
`cli/common.py`, as `recording_opts.py` is, so that building the `play` commands imports
nothing heavy (an argument error here prints without rich)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, NoReturn

import typer

from cogleague.core import model_limits as limits
from cogleague.core.config import read_int


def refuse(message: str) -> NoReturn:
    """`cli/common.fail` without rich, which an argument error here does not load (0.2 s)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def bounded(flag: str, lo: int, hi: int) -> Callable[[str | int], int]:
    """An integer option read at parse time in lo..hi (the bounds its help shows)."""
    def parse(text: str | int) -> int:
        try:
            return read_int(text, lo, hi)
        except ValueError as exc:
            refuse(f"{flag} {exc}")

    return parse


ModelOpt = Annotated[str | None, typer.Option("--model", help="model name for llm seats")]
BaseUrlOpt = Annotated[str | None, typer.Option(
    "--base-url", help="OpenAI-compatible endpoint (its root: usually ends in /v1)")]
ProviderOpt = Annotated[str | None, typer.Option("--provider", help=" | ".join(limits.PROVIDERS))]
TranscriptOpt = Annotated[str | None, typer.Option("--transcript", help="write model I/O JSONL")]
RequestsPerMinuteOpt = Annotated[int | None, typer.Option(
    "--requests-per-minute", help="model requests per minute per endpoint, shared by its seats "
                                  f"({limits.MIN_REQUESTS_PER_MINUTE}.."
                                  f"{limits.MAX_REQUESTS_PER_MINUTE}; default "
                                  f"{limits.DEFAULT_REQUESTS_PER_MINUTE})",
    parser=bounded("--requests-per-minute", limits.MIN_REQUESTS_PER_MINUTE,
                   limits.MAX_REQUESTS_PER_MINUTE))]
MaxReplyTokensOpt = Annotated[int | None, typer.Option(
    "--max-reply-tokens", help="the reply-length cap of each model request; a reasoning "
                               "model's hidden reasoning counts against it "
                               f"({limits.MIN_REPLY_TOKENS}..{limits.MAX_REPLY_TOKENS}; default "
                               f"{limits.DEFAULT_REPLY_TOKENS})",
    parser=bounded("--max-reply-tokens", limits.MIN_REPLY_TOKENS, limits.MAX_REPLY_TOKENS))]


def model_params() -> list[inspect.Parameter]:
    """The options above as the keyword parameters of a command built at run time (`play`)."""
    return [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation=alias)
            for name, alias in (("model", ModelOpt), ("base_url", BaseUrlOpt),
                                ("provider", ProviderOpt), ("transcript", TranscriptOpt),
                                ("requests_per_minute", RequestsPerMinuteOpt),
                                ("max_reply_tokens", MaxReplyTokensOpt))]
