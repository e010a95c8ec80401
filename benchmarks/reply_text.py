"""Finding the JSON object in a model's reply: the span finder against the scan it replaced.

The games read a model's reply with `core/text.first_object_span` (commons) and
`first_object` (dilemma, threshold), on the server's event loop. The reference scan
(`tests/core/test_text_span.py`) reads on from every ``{`` until it closes, so a reply of n
``{`` that never close costs n²/2 steps; the finder in `core/text` costs n. Prints the
seconds per call of each, best of `--repeat` (the reference once past 8,000), for runs of
``{``, for a normal reply, and for `first_object` on nested spans: ``{"a":`` × n around
``x`` (not JSON; past the JSON reader's recursion limit the reference fails by recursion once
per span), ``{a: `` × n (non-JSON objects) and ``{"a":`` × n around an object (found at
`MAX_OBJECT_DEPTH` from the core). The reference is the specification in the tests: it skips
the spans deeper than `MAX_OBJECT_DEPTH` too, but only after measuring each one from scratch.
Each `first_object` outcome is also checked called from 700 frames down (the same object).

    .venv/bin/python benchmarks/reply_text.py
    .venv/bin/python benchmarks/reply_text.py --sizes 2000 8000 --repeat 3
    .venv/bin/python benchmarks/reply_text.py --reference-max 8000   # skip the slow scans
    .venv/bin/python benchmarks/reply_text.py --sizes 2000 --nested 4000 9000
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "core"))

from test_text_span import (  # noqa: E402
    reference_first_object,
    reference_first_object_span,
)

from cogleague.core.text import first_object, first_object_span  # noqa: E402

Reader = Callable[[str], Any]
NORMAL = ('Thinking about the table: the others cooperated last round, so I keep my promise.\n'
          '```json\n{"action": "cooperate", "message": "same again: {fair} split", '
          '"note": "they \\"kept\\" theirs"}\n```\nThat is my move.')


def best(fn: Callable[[str], Any], text: str, repeat: int) -> float:
    """Best seconds per call of `repeat` timings, each long enough to read (>= 20 ms)."""
    times = []
    for _ in range(repeat):
        calls, t0 = 0, time.perf_counter()
        while True:
            fn(text)
            calls += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= 0.02:
                break
        times.append(elapsed / calls)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000, 32000])
    ap.add_argument("--nested", type=int, nargs="*", default=[1000, 4000, 9000],
                    help="nested levels (first_object refuses past MAX_REPLY_BRACKETS)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--reference-max", type=int, default=32000,
                    help="time the reference only up to this many braces (it is n²)")
    ap.add_argument("--reference-nested-max", type=int, default=1000,
                    help="time the reference only up to this many nested levels (it measures "
                         "each span's depth from scratch: n² again)")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    span: tuple[str, Reader, Reader] = ("first_object_span", first_object_span,
                                        reference_first_object_span)
    obj: tuple[str, Reader, Reader] = ("first_object", first_object, reference_first_object)
    cases = [("normal reply", NORMAL, [span, obj], True)]
    cases += [(f"{n:,} '{{'", "{" * n, [span], n <= args.reference_max)  # both read it alike
              for n in args.sizes]
    # Nested spans: past MAX_OBJECT_DEPTH skipped unparsed, within it failing at a character.
    for n in args.nested:
        checked = n <= args.reference_nested_max
        cases += [(f"{n:,} '{{\"a\":'", '{"a":' * n + "x" + "}" * n, [obj], checked),
                  (f"{n:,} '{{a: '", "{a: " * n + "}" * n, [obj], checked),
                  (f"{n:,} core obj", '{"a":' * n + '{"m": 1}' + "}" * n, [obj], checked)]
    print(f"{'reply':>16} {'function':>18} {'reference s':>12} {'new s':>10} {'ratio':>9}")
    for label, text, pairs, checked in cases:
        for name, new, old in pairs:
            t_new = best(new, text, args.repeat)
            if old is reference_first_object and new(text) != nested(700, text):
                raise SystemExit(f"{label}: the outcome depends on the caller's stack")
            if not checked:
                print(f"{label:>16} {name:>18} {'skipped':>12} {t_new:10.6f}")
                continue
            if new(text) != old(text):
                raise SystemExit(f"{label}: {name} differs from the reference")
            t_old = best(old, text, args.repeat if len(text) <= 8000 else 1)
            print(f"{label:>16} {name:>18} {t_old:12.6f} {t_new:10.6f} {t_old / t_new:8.1f}x")
    print(f"load average {os.getloadavg()[0]:.2f}")


def nested(levels: int, text: str) -> Any:
    """`first_object` called `levels` frames down."""
    return first_object(text) if levels == 0 else nested(levels - 1, text)


if __name__ == "__main__":
    main()
