"""Reading hostile model replies at the response cap: `first_object` and `first_object_span`
on replies of `MAX_RESPONSE_BYTES` (4 MiB) built to be slow to read.

Each shape repeats a short unit to the cap (runs of braces that never close, nested keys that
never become JSON, a million ``{a}`` spans, an object after a megabyte of braces, runs that
close only at the last character, ...). Prints seconds per call, best of `--repeat`. With
`--baseline PATH` (another version of `core/text.py`, e.g. ``git show
main:src/cogleague/core/text.py > /tmp/old_text.py``) it times that one side by side on the
same replies, checks both read the same, and prints the ratio (the baseline still imports this
checkout's `core/span_scan`: compare that with `--first-call --baseline-src`).

With `--first-call` each reading is a process's first: a fresh interpreter per shape and
function (numpy already imported, as every cogleague process has it), timing one call, which
pays for every fresh page the reading touches. `--baseline-src DIR` is another version's
``src`` (e.g. ``mkdir /tmp/old && git archive main src | tar -x -C /tmp/old`` gives
``/tmp/old/src``), timed alternately with this one.

    .venv/bin/python benchmarks/reply_text_cap.py
    .venv/bin/python benchmarks/reply_text_cap.py --baseline /tmp/old_text.py --repeat 3
    .venv/bin/python benchmarks/reply_text_cap.py --size 1000000 --shapes open nested_keys
    .venv/bin/python benchmarks/reply_text_cap.py --first-call --baseline-src /tmp/old/src
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
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
        # ending in "}": `first_object_span` reads them to the end with array operations
        "open_closed": "{" * (n - 1) + "}",
        "open_quote_closed": '{"{' * (n // 3) + "}",
        "escaped_closed": '{"\\' * (n // 3) + "}",
        # under `MAX_REPLY_BRACKETS` (the others are refused unread by `first_object`)
        "failing_spread": ('{"a":1,}' + " " * (n // 9000 - 8)) * 9000,
        "nested_capped": '{"a":' * 9000 + "x" + "}" * 9000 + " " * (n - 54001),
    }


def read(fn: Callable[[str], Any], text: str) -> Any:
    """What `fn` reads, or the refusal's message."""
    try:
        return fn(text)
    except ValueError as exc:  # first_object's refusal past MAX_REPLY_BRACKETS
        return f"refused: {exc}"


def best(fn: Callable[[str], Any], text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        read(fn, text)
        times.append(time.perf_counter() - t0)
    return min(times)


def load(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location("baseline_text", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FIRST_CALL = """
import resource, sys, time
import numpy  # noqa: F401  (every cogleague process has it)
from reply_text_cap import shapes
from cogleague.core import text
reply = shapes(int(sys.argv[1]))[sys.argv[2]]
fn = getattr(text, sys.argv[3])
before = resource.getrusage(resource.RUSAGE_SELF).ru_stime
t0 = time.perf_counter()
try:
    fn(reply)
except ValueError:  # first_object's refusal past MAX_REPLY_BRACKETS
    pass
elapsed = time.perf_counter() - t0
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_stime - before)
"""


def first_call(src: str, size: int, label: str, name: str) -> tuple[float, float]:
    """Seconds (and kernel seconds) of `name` on `label`, the first call of a fresh process
    that imports cogleague from `src`."""
    here = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, str(here)])}
    out = subprocess.run([sys.executable, "-c", FIRST_CALL, str(size), label, name], env=env,
                         check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def main_first_call(args: argparse.Namespace) -> None:
    here = str(Path(__file__).resolve().parent.parent / "src")
    print(f"load average {os.getloadavg()[0]:.2f}; first calls on replies of {args.size:,} "
          "characters (kernel seconds in brackets)")
    print(f"{'reply':>17} {'function':>18} {'new s':>14} {'baseline s':>14} {'ratio':>7}")
    for label in shapes(16):
        if args.shapes and label not in args.shapes:
            continue
        for name in ("first_object", "first_object_span"):
            new, old = [], []
            for _ in range(args.repeat):  # alternate, so load drifts hit both alike
                new.append(first_call(here, args.size, label, name))
                if args.baseline_src:
                    old.append(first_call(args.baseline_src, args.size, label, name))
            t_new, k_new = min(new)
            line = f"{label:>17} {name:>18} {t_new:6.3f} ({k_new:5.3f})"
            if old:
                t_old, k_old = min(old)
                line += f" {t_old:6.3f} ({k_old:5.3f}) {t_old / t_new:6.1f}x"
            print(line)
    print(f"load average {os.getloadavg()[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=MAX_RESPONSE_BYTES)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", help="another core/text.py to time side by side")
    ap.add_argument("--shapes", nargs="*", help="only these shapes")
    ap.add_argument("--first-call", action="store_true",
                    help="time each shape as a fresh process's first call")
    ap.add_argument("--baseline-src", help="another version's src directory (--first-call)")
    args = ap.parse_args()
    if args.first_call:
        main_first_call(args)
        return
    old = load(args.baseline) if args.baseline else None
    print(f"load average {os.getloadavg()[0]:.2f}; replies of {args.size:,} characters")
    print(f"{'reply':>17} {'function':>18} {'new s':>8} {'baseline s':>11} {'ratio':>7}")
    for label, text in shapes(args.size).items():
        if args.shapes and label not in args.shapes:
            continue
        for name in ("first_object", "first_object_span"):
            new = getattr(current, name)
            t_new = best(new, text, args.repeat)
            if old is None:
                print(f"{label:>17} {name:>18} {t_new:8.3f}")
                continue
            base = getattr(old, name)
            got, was = read(new, text), read(base, text)
            refused = isinstance(got, str) and got.startswith("refused")
            if got != was and not refused:
                raise SystemExit(f"{label}: {name} reads differently from the baseline")
            t_old = best(base, text, args.repeat)
            print(f"{label:>17} {name:>18} {t_new:8.3f} {t_old:11.3f} {t_old / t_new:6.1f}x"
                  + ("  (refused)" if refused else ""))
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
