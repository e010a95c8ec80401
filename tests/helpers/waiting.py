"""Waiting on a condition instead of sleeping: a loaded machine (the CI's two cores shared with
other jobs) can take seconds for what takes milliseconds alone, so a test waits for what it
needs, with a bound generous enough to mean "never" when it runs out."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

PATIENCE_S = 30.0


def until(check: Callable[[], Any], what: str, timeout_s: float = PATIENCE_S,
          every_s: float = 0.05) -> Any:
    """Call `check` until it returns something true, and return that; AssertionError naming
    `what` (and the last value) when `timeout_s` runs out."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            break
        time.sleep(every_s)
    assert value, f"timed out after {timeout_s:g} s waiting for {what} (last: {value!r})"
    return value
