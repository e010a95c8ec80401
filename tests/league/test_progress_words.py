"""The run's progress bar counts what the summary counts: episodes that did not end `ok` are
failed or infra_error, and the bar says so, so it never reads "25 failed" above a summary of
"0 failed" and 25 infra_error."""

from __future__ import annotations

import io

from rich.console import Console

from cogleague.cli.league import progress_bar


def test_the_bar_names_infra_errors_beside_failures() -> None:
    buffer = io.StringIO()
    out = Console(file=buffer, width=160, force_terminal=False)
    with progress_bar(30, out) as update:
        update(30, 25)
    text = buffer.getvalue()
    assert "25 failed or infra_error" in text, text
