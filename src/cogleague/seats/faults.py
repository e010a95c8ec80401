"""What went wrong for each seat of an episode, in one place: the results' ``faults`` section,
the one-line summary every playing command prints, and `--strict`.

Causes are the runner's (`core.game.Decision`): a seat's own failures (``parse``, ``illegal``,
``timeout``, ``error``) and the platform's (``transport``, ``rate_budget``, ``disabled``). The
league keeps the two apart (`PLATFORM_CAUSES`): a platform failure is never scored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SEAT_CAUSES = ("parse", "illegal", "timeout", "error", "no_submission", "wrong_shape")
PLATFORM_CAUSES = ("transport", "rate_budget", "disabled")


def faults_section(faults: Sequence[dict[str, int]], seats: Sequence[Any],
                   reasons: Sequence[dict[str, str]] = ()) -> dict[str, Any]:
    """``{"fallbacks": n, "seats": [{seat, policy, fallbacks: {cause: n}, reasons: {cause:
    why}, errors: […]}]}`` — every seat listed (an empty ``fallbacks`` is a clean seat);
    ``reasons`` holds the first refusal's words per cause (``illegal``, ``parse``,
    ``wrong_shape``), and under ``timeout`` why a timed-out attempt was a retry (``its retry
    of a reply refused as parse (…) ran out of time``); a plain timeout has none."""
    rows = []
    for i, seat in enumerate(seats):
        counts = dict(sorted(faults[i].items())) if i < len(faults) else {}
        row: dict[str, Any] = {"seat": i, "policy": getattr(seat, "name", str(seat)),
                               "fallbacks": counts}
        if i < len(reasons) and reasons[i]:
            row["reasons"] = dict(sorted(reasons[i].items()))
        errors = getattr(seat, "errors", None)
        if errors:
            row["errors"] = list(errors)
        rows.append(row)
    total = sum(sum(r["fallbacks"].values()) for r in rows)
    return {"fallbacks": total, "seats": rows}


def seat_fallbacks(results: Mapping[str, Any]) -> list[tuple[dict[str, int], str | None]]:
    """Read back from an episode's results (its ``faults`` section, `faults_section`): per
    seat, its decisions that fell back by cause and the first line of its first error."""
    out = []
    for s in (results.get("faults") or {}).get("seats") or []:
        errors = s.get("errors") or []
        first = str(errors[0].get("error") or "").splitlines() if errors else []
        out.append(({str(k): int(v) for k, v in (s.get("fallbacks") or {}).items() if v},
                    first[0] if first else None))
    return out


def summary_line(section: dict[str, Any]) -> str | None:
    """``fallbacks: seat 0 (llm:x.txt) 14 disabled; seat 3 (bot.py:Mine) 2 error`` or None."""
    parts = []
    for row in section["seats"]:
        if row["fallbacks"]:
            why = row.get("reasons", {})
            counts = ", ".join(f"{n} {cause}" + (f" ({why[cause]})" if cause in why else "")
                               for cause, n in row["fallbacks"].items())
            parts.append(f"seat {row['seat']} ({row['policy']}) {counts}")
    return "fallbacks: " + "; ".join(parts) if parts else None


def first_errors(section: dict[str, Any]) -> list[str]:
    """Each seat's first bot exception (message and last frames), to show once."""
    out = []
    for row in section["seats"]:
        errors = row.get("errors")
        if errors:
            out.append(f"seat {row['seat']} ({row['policy']}) raised on turn "
                       f"{errors[0]['turn']}: {errors[0]['error']}")
    return out


def platform_failures(section: dict[str, Any]) -> int:
    """How many decisions fell back because of the platform, not the policy."""
    return sum(n for row in section["seats"] for cause, n in row["fallbacks"].items()
               if cause in PLATFORM_CAUSES)
