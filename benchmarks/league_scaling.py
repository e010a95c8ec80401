"""Episodes per second for an all-scripted mixed league: 1 process, a pool of 2, Ray with 2 CPUs.

    .venv/bin/python benchmarks/league_scaling.py [--episodes N] [--skip-ray] [--cli [--repeat R]]

The league is `cogleague league init`'s example (six built-in policies over the dilemma, two
Commons Family variants and Ledger) with N episodes per game and variant. Each backend fills
its own fresh SQLite store; the figures include storing results and starting the process pool.
Ray's start-up (a few seconds) and a warm-up league of the same size (each Ray worker imports
the package and plays every game once) are timed apart, as a standing cluster pays them once,
not per league. The stores are compared
at the end: every backend must have stored identical results.

With ``--cli`` the local cases run what a user runs, ``cogleague league run FILE --workers N``
(its progress bar included) in a fresh process each, timed from outside: wall time and the
CPU of the command and its workers, start-up included; `--repeat` runs of each, in turn, and
the ratio of the medians (single runs on a shared machine move by a third).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cogleague.league import config, runner, store
from cogleague.league.example import example_league


def make_league(directory: Path, name: str, episodes: int) -> config.LeagueConfig:
    text = example_league()  # what `cogleague league init` writes for the installed games
    text = re.sub(r"(?m)^episodes = \d+.*$", f"episodes = {episodes}", text)
    text = re.sub(r'(?m)^\[\[games\]\]\nname = "ledger"\nvariants = \["standard"\]\nepisodes = \d+',
                  '[[games]]\nname = "ledger"\nvariants = ["standard"]', text)
    path = directory / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return config.load(path)


def fingerprint(url: str) -> list[tuple[str, str, str]]:
    return sorted((e.id, e.status, repr(e.results)) for e in store.load_episodes(url))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=150,
                        help="episodes per game and variant (4 of them)")
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--cli", action="store_true",
                        help="time `cogleague league run --workers 1|2` as separate processes")
    parser.add_argument("--repeat", type=int, default=5,
                        help="with --cli: runs of each command, in turn (medians printed)")
    parser.add_argument("--engine", default="auto", choices=("auto", "batch", "rules"),
                        help="`league run --engine` (auto: kernel chunks for what has a batch "
                             "twin, on the same workers)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1 (got {args.repeat})")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}, "
          f"--engine {args.engine}")
    if args.cli:
        cli_runs(args.episodes, args.engine, args.repeat)
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        cases = [("1 process", "one", "local", 1), ("local pool, 2 workers", "pool", "local", 2)]
        if not args.skip_ray:
            cases.append(("Ray, 2 CPUs", "ray", "ray", 2))
        stores = []
        cpus: list[tuple[str, float, float]] = []
        for label, name, backend, workers in cases:
            cfg = make_league(d, name, args.episodes)
            extra = ""
            if backend == "ray":
                import ray

                t0 = time.perf_counter()
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
                # a league of the same size first, so every Ray worker has imported the package
                # and played each game's kernel and rules engine (as a standing cluster's
                # workers have): what is timed is the league, not Ray's start-up or warm-up
                runner.run(make_league(d, "raywarm", args.episodes),
                           runner.make_backend(backend, workers), engine=args.engine)
                extra = (f" (Ray start-up and a warm-up league of the same size "
                         f"{time.perf_counter() - t0:.1f} s, not counted)")
            me, kids = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
            summary = runner.run(cfg, runner.make_backend(backend, workers), engine=args.engine)
            if backend == "ray":
                ray.shutdown()
            for worker in multiprocessing.active_children():  # the run does not wait for
                worker.join()  # its workers' exit; their CPU counts once they are reaped
            parent = cpu(resource.RUSAGE_SELF) - me
            child = cpu(resource.RUSAGE_CHILDREN) - kids
            assert summary.failed == 0, f"{label}: {summary.failed} episodes failed"
            rows.append((label, summary.played, summary.seconds, summary.rate, extra))
            cpus.append((label, parent, child))
            stores.append(cfg.store_url)
        same = all(fingerprint(u) == fingerprint(stores[0]) for u in stores[1:])
    print(f"{'backend':<24} {'episodes':>8} {'seconds':>8} {'episodes/s':>11}")
    for label, played, seconds, rate, extra in rows:
        print(f"{label:<24} {played:>8} {seconds:>8.2f} {rate:>11.1f}{extra}")
    print(f"identical stored results across backends: {same}")
    # CPU seconds per process group: on a busy machine the wall-clock ratio says little, but
    # the parent's share bounds the pool (it writes the store while the workers play).
    print(f"{'backend':<24} {'driver cpu s':>12} {'worker cpu s':>12}")
    for label, parent, child in cpus:
        print(f"{label:<24} {parent:>12.2f} {child:>12.2f}")
    if len(cpus) >= 2 and cpus[1][2] > 0:
        one = cpus[0][1]
        _, parent, child = cpus[1]
        bound = one / max(parent, (parent + child) / 2)
        print(f"2-process ratio an idle 2-core machine allows from these CPU times: "
              f"{bound:.2f}x (1-process CPU / max(driver, all CPU / 2))")
        print(f"pool CPU / 1-process CPU: {(parent + child) / one:.3f} (what the pool adds: "
              f"fork, page copies, pickling, more transactions)")
    if len(rows) >= 2:
        print(f"measured 2 processes / 1 process: {rows[1][3] / rows[0][3]:.2f}x (load average "
              f"{os.getloadavg()[0]:.1f})")
    print(f"this machine ran two CPU-bound processes at {two_cores():.2f}x one, just after: what "
          f"two workers can reach at most")


def cli_runs(episodes: int, engine: str, repeat: int) -> None:
    """`cogleague league run` with 1 and 2 workers, each a fresh command, `repeat` times in
    turn (a shared machine's noise moves single runs by a third: the medians are the figure)."""
    rows = []
    machine: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        same = True
        for r in range(repeat):
            stores = []
            for workers in (1, 2):
                name = f"cli{workers}-{r}"
                cfg = make_league(d, name, episodes)
                command = [sys.executable, "-c", "from cogleague.cli import main; main()",
                           "league", "run", str(d / f"{name}.toml"), "--workers", str(workers),
                           "--engine", engine]
                kids = cpu(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
                wall = time.perf_counter() - t0
                played = len(store.load_episodes(cfg.store_url))
                # the run's seconds from its rate (printed to 0.1 episode/s; its seconds only
                # to 0.1 s, a third of a short run)
                rate = re.search(r"played (\d+) episodes in [\d.]+ s \(([\d.]+) ep/s\)", out)
                rows.append((workers, played, wall, cpu(resource.RUSAGE_CHILDREN) - kids,
                             int(rate.group(1)) / float(rate.group(2)) if rate else float("nan")))
                stores.append(cfg.store_url)
            same = same and fingerprint(stores[0]) == fingerprint(stores[1])
            machine.append(two_cores())
    print(f"{'league run':<14} {'episodes':>8} {'command s':>9} {'cpu s':>7} {'run s':>7} "
          f"{'run episodes/s':>14}")
    for workers, played, wall, cpu_s, run_s in rows:
        print(f"{'--workers ' + str(workers):<14} {played:>8} {wall:>9.2f} {cpu_s:>7.2f} "
              f"{run_s:>7.3f} {played / run_s:>14.1f}")
    print(f"identical stored results: {same}")
    one, two = rows[0::2], rows[1::2]
    pairs = sorted(a[4] / b[4] for a, b in zip(one, two, strict=True))
    run = statistics.median(a[4] for a in one) / statistics.median(b[4] for b in two)
    best = min(a[4] for a in one) / min(b[4] for b in two)  # each command's least disturbed
    whole = statistics.median(a[2] for a in one) / statistics.median(b[2] for b in two)
    cpu_ratio = statistics.median(b[3] for b in two) / statistics.median(a[3] for a in one)
    print(f"--workers 2 / --workers 1, medians of {repeat} runs each: {run:.2f}x episodes/s in "
          f"the run ('run s', what the command reports; run by run {pairs[0]:.2f}-"
          f"{pairs[-1]:.2f}x; fastest run of each {best:.2f}x), {whole:.2f}x for the whole "
          f"command with its start-up; CPU {cpu_ratio:.2f}x (load average "
          f"{os.getloadavg()[0]:.1f})")
    print(f"this machine ran two CPU-bound processes at {statistics.median(machine):.2f}x one "
          f"(median; {min(machine):.2f}-{max(machine):.2f}x, measured after each pair): what "
          f"two workers can reach at most")


SPIN = "import time; t = time.perf_counter(); sum(range(10**7)); print(time.perf_counter() - t)"


def two_cores() -> float:
    """How much two CPU-bound processes get done beside each other, against one alone: 2.0
    on two idle cores; less when the cores are hyperthreads of one, or a busy host's."""
    def spin(n: int) -> float:
        procs = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE,
                                  text=True) for _ in range(n)]
        return max(float(p.communicate()[0]) for p in procs)

    return 2 * spin(1) / spin(2)


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
