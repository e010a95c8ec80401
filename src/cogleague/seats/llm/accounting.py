"""Per-seat model accounting, merged by the CLI and the server into results as ``models``.

Games produce their own results and know nothing of HTTP, so the counts live here:
`accounting_for(seats)` returns a section indexed by seat (arrays as long as the line-up;
non-model seats read 0 / null / {}), or None when no seat is a model seat::

    results["models"] = accounting_for(seats)   # when not None

Keys: ``model`` (the model name, null for other seats), ``decisions``, ``requests`` (HTTP
requests sent, 429s included), ``input_tokens``, ``output_tokens``, ``latency_p50_ms``,
``latency_max_ms`` (completed requests; null if none), ``fallbacks`` (``{cause: count}``),
``replayed`` (calls answered from a recording: no request, no tokens, no latency;
`recording.py`), ``errors`` (``{cause: the first error behind a fallback of that cause}`` for
``transport``, ``disabled`` and ``rate_budget``: a refused reply's reason is in the results'
``faults``).
Latencies are wall-clock measurements, the one part that differs between identical runs.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SeatStats:
    model: str | None
    decisions: int = 0
    requests: int = 0
    replayed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    fallbacks: Counter[str] = field(default_factory=Counter)
    errors: dict[str, str] = field(default_factory=dict)
    """Per fallback cause, the first error that caused one (``transport``, ``disabled``,
    ``rate_budget``): the count alone cannot tell a wrong model name from a dead server."""

    @property
    def latency_p50_ms(self) -> float | None:
        return round(statistics.median(self.latencies_ms), 1) if self.latencies_ms else None

    @property
    def latency_max_ms(self) -> float | None:
        return round(max(self.latencies_ms), 1) if self.latencies_ms else None


ACCOUNTING_KEYS = ("model", "decisions", "requests", "input_tokens", "output_tokens",
                   "latency_p50_ms", "latency_max_ms", "fallbacks", "replayed", "errors")


def accounting_for(seats: Sequence[Any]) -> dict[str, Any] | None:
    """The ``models`` results section for this line-up, or None if it has no model seat."""
    stats: list[SeatStats | None] = [getattr(s, "stats", None) if getattr(s, "kind", None)
                                     == "model" else None for s in seats]
    if all(s is None for s in stats):
        return None
    blank = SeatStats(model=None)
    rows = [s or blank for s in stats]
    return {
        "model": [s.model for s in rows],
        "decisions": [s.decisions for s in rows],
        "requests": [s.requests for s in rows],
        "input_tokens": [s.input_tokens for s in rows],
        "output_tokens": [s.output_tokens for s in rows],
        "latency_p50_ms": [s.latency_p50_ms for s in rows],
        "latency_max_ms": [s.latency_max_ms for s in rows],
        "fallbacks": [dict(sorted(s.fallbacks.items())) for s in rows],
        "replayed": [s.replayed for s in rows],
        "errors": [dict(sorted(s.errors.items())) for s in rows],
    }
