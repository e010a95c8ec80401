"""A league's rules-engine episodes: each chunk's games dealt again (`Game.restart`) against a
new game per episode, side by side in one run.

    .venv/bin/python benchmarks/league_setup.py [--episodes N] [--repeat R]

Per game, chunks of league episodes (line-ups drawn from the game's baselines, a fresh seed
each) are played by `worker.play_chunk` (what a league worker runs: restarts where the game has
them) and by `worker.play_spec` one by one (a new game each), in turn, `--repeat` times; the
figures are episodes per CPU second, the medians and the ratio of the medians. Both must store
the same rows. The set-up columns time ``make`` + seats against ``restart`` + seats (with the
start and stop that finish the game again) alone, in µs per episode.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable

from cogleague.games import registry
from cogleague.league.episodes import EncodedRecord, EpisodeSpec, SeatRef
from cogleague.league.worker import play_chunk, play_spec
from cogleague.seats.factory import make_seat

CHUNK = 64  # the league's largest rules-engine chunk (`runner.MAX_CHUNK`)
CASES = [("dilemma", None, {}), ("dilemma", "classic200", {"rounds_total": 20}),
         ("ledger", None, {}), ("commons", None, {})]


def specs(game: str, variant: str | None, overrides: dict[str, int], n: int) -> list[EpisodeSpec]:
    desc = registry.get(game)
    rng = random.Random(f"{game}:{variant}")
    seats = desc.seats_of(variant, overrides)
    names = sorted(desc.baselines)
    return [EpisodeSpec(league="bench", game=game, variant=variant, seed=i,
                        seats=tuple(SeatRef(p, p) for p in (rng.choice(names)
                                                           for _ in range(seats))),
                        overrides=overrides, index=i) for i in range(n)]


def cpu_rate(fn: Callable[[], list[EncodedRecord]], n: int) -> tuple[float, list[EncodedRecord]]:
    start = time.process_time()
    rows = fn()
    return n / (time.process_time() - start), rows


def setup_us(desc_name: str, batch: list[EpisodeSpec]) -> tuple[float, float]:
    """µs per episode of ``make`` + seats, and of ``restart`` + seats on a finished game."""
    desc = registry.get(desc_name)
    s0 = batch[0]
    refs = [s.seat_ref for s in s0.seats]
    start = time.process_time()
    for s in batch:
        game = desc.make(s.variant, s.overrides, s.seed, refs, None)
        [make_seat(game, i, r) for i, r in enumerate(refs)]
    made = (time.process_time() - start) / len(batch) * 1e6
    game = desc.make(s0.variant, s0.overrides, s0.seed, refs, None)
    game.start()
    game.stop("deadline")
    start = time.process_time()
    for s in batch:
        if not game.restart(s.seed, refs):
            return made, float("nan")
        [make_seat(game, i, r) for i, r in enumerate(refs)]
        game.start()
        game.stop("deadline")
    return made, (time.process_time() - start) / len(batch) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=640, help="per game (chunks of 64)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.episodes < 1 or args.repeat < 1:
        parser.error(f"--episodes and --repeat must be at least 1 (got {args.episodes}, "
                     f"{args.repeat})")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"{'game':<22} {'new game/ep':>12} {'restarted':>10} {'ratio':>6}  "
          f"{'run by run':<12} {'set-up µs: make':>16} {'restart':>8}")
    for game, variant, overrides in CASES:
        todo = specs(game, variant, overrides, args.episodes)
        chunks = [todo[i:i + CHUNK] for i in range(0, len(todo), CHUNK)]
        play_chunk(chunks[0])  # warm both paths' caches and imports
        fresh_rates, chunk_rates = [], []
        for _ in range(args.repeat):
            rate, fresh = cpu_rate(lambda t=todo: [play_spec(s).encoded() for s in t], len(todo))
            fresh_rates.append(rate)
            rate, chunked = cpu_rate(lambda cs=chunks: [r for c in cs for r in play_chunk(c)],
                                     len(todo))
            chunk_rates.append(rate)
            assert [(r.id, r.results, r.series) for r in fresh] == \
                [(r.id, r.results, r.series) for r in chunked], f"{game}: rows differ"
        ratios = sorted(c / f for c, f in zip(chunk_rates, fresh_rates, strict=True))
        made, restarted = setup_us(game, todo[:200])
        label = f"{game} {variant or 'standard'}"
        print(f"{label:<22} {statistics.median(fresh_rates):>12,.0f} "
              f"{statistics.median(chunk_rates):>10,.0f} "
              f"{statistics.median(chunk_rates) / statistics.median(fresh_rates):>5.2f}x  "
              f"{ratios[0]:.2f}-{ratios[-1]:.2f}x   {made:>16.0f} {restarted:>8.0f}")
    print("episodes per CPU second, medians; a game without restart plays a new game either "
          "way (ratio ≈ 1, set-up 'nan')")


if __name__ == "__main__":
    main()
