"""Reading hostile model replies at the response cap: `first_object` and `first_object_span`
on replies of `MAX_RESPONSE_BYTES` (4 MiB) built to be slow to read.

Each shape repeats a short unit to the cap (runs of braces that never close, nested keys that
never become JSON, a million ``{a}`` spans, an object after a megabyte of braces, ...). Prints
seconds per call, best of `--repeat`. With `--baseline PATH` (another version of
`core/text.py`, e.g. ``git show main:src/cogleague/core/text.py > /tmp/old_text.py``) it
times that one side by side on the same replies, checks both read the same, and prints the
ratio.

    .venv/bin/python benchmarks/reply_text_cap.py
    .venv/bin/python benchmarks/reply_text_cap.py --baseline /tmp/old_text.py --repeat 3
    .venv/bin/python benchmarks/reply_text_cap.py --size 1000000 --shapes open nested_keys
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from cogleague.core import text as current
from cogleague.seats.llm.transport import MAX_RESPONSE_BYTES


def shapes(n: int) -> dict[str, str]:
    """Hostile replies of about `n` characters."""
    return {
        "open": "{" * n,
        "open_quote": '{"' * (n // 2),
        "escaped": '{"\\' * (n // 3),
        "bad_spans": "{a}" * (n // 3),
        "quoted_brace": '{"}' * (n // 3),
        "nested_keys": '{"a":' * (n // 10) + "x" + "}" * (n // 10),
        "nested_bad": "{a: " * (n // 8) + "}" * (n // 8),
        "brackets": "{" + "[" * (n - 2) + "}",
        "empty_objects": "{}" * (n // 2),
        "close_open": "}{" * (n // 2),
        "open_then_obj": "{" * (n - 20) + '{"action": 1}',
        "long_list": '{"a": [' + "1," * (n // 2 - 10) + "1]}",
    }


def best(fn: Callable[[str], Any], text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t0)
    return min(times)


def load(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location("baseline_text", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=MAX_RESPONSE_BYTES)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", help="another core/text.py to time side by side")
    ap.add_argument("--shapes", nargs="*", help="only these shapes")
    args = ap.parse_args()
    old = load(args.baseline) if args.baseline else None
    print(f"load average {os.getloadavg()[0]:.2f}; replies of {args.size:,} characters")
    print(f"{'reply':>14} {'function':>18} {'new s':>8} {'baseline s':>11} {'ratio':>7}")
    for label, text in shapes(args.size).items():
        if args.shapes and label not in args.shapes:
            continue
        for name in ("first_object", "first_object_span"):
            new = getattr(current, name)
            t_new = best(new, text, args.repeat)
            if old is None:
                print(f"{label:>14} {name:>18} {t_new:8.3f}")
                continue
            base = getattr(old, name)
            if new(text) != base(text):
                raise SystemExit(f"{label}: {name} reads differently from the baseline")
            t_old = best(base, text, args.repeat)
            print(f"{label:>14} {name:>18} {t_new:8.3f} {t_old:11.3f} {t_old / t_new:6.1f}x")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
