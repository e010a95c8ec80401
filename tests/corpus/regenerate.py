"""The byte corpus: today's results, episode logs and replay documents for a few seeds per game,
variant and line-up, kept in `tests/corpus/<game>/` and diffed against fresh runs by
`tests/core/test_corpus.py`. Files are gzipped JSON (one line each; an 800 kB replay
would not diff readably anyway): the test names the first differing field.

Speed work must not change a byte of what users store. A change that alters a rule or a format
on purpose regenerates the corpus in the same commit and says so in the commit message:

    PYTHONPATH=src python tests/corpus/regenerate.py          # rewrite every file
    PYTHONPATH=src python tests/corpus/regenerate.py --check  # exit 1 listing what differs

Every episode is played the way users play it: the game's descriptor builds the game
(`desc.new_game`), the seat factory builds the seats, the one runner plays it
(`play_headless`), and the descriptor's `replay_document` with `core.jsonio` writes the bytes.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.core.errors import ConfigError
from cogleague.games import registry
from cogleague.seats.factory import ModelOptions, make_seats

HERE = Path(__file__).resolve().parent
GAMES = ("commons", "dilemma", "ledger")  # the built-in games; plugins keep their own corpus
SEEDS = (1, 2)


@dataclass(frozen=True)
class Case:
    game: str
    variant: str
    lineup_name: str  # "default" (the variant's own) or "mixed" (every baseline, rotated)
    lineup: tuple[str, ...]
    seed: int | None  # None: a variant that fixes its own seed (certification)

    @property
    def stem(self) -> str:
        return f"{self.variant}-{self.lineup_name}-s{'fixed' if self.seed is None else self.seed}"


def _mixed(baselines: list[str], seats: int, shift: int) -> tuple[str, ...]:
    """Every baseline in turn (cycled, shifted per variant) so each one's code is covered."""
    return tuple(baselines[(shift + i) % len(baselines)] for i in range(seats))


def cases() -> Iterator[Case]:
    for game in GAMES:
        desc = registry.get(game)
        for shift, variant in enumerate(desc.variants):
            default = tuple(desc.default_lineup(variant))
            seats = len(default)
            lineups = [("default", default)]
            if desc.seat_range[0] <= seats <= desc.seat_range[1]:
                lineups.append(("mixed", _mixed(list(desc.baselines), seats, shift)))
            seeds: tuple[int | None, ...] = SEEDS
            try:
                desc.new_game(variant, {}, SEEDS[0], list(default))
            except ConfigError as exc:
                if exc.field != "seed":
                    raise
                seeds = (None,)
            for name, lineup in lineups:
                for seed in seeds:
                    yield Case(game, variant, name, lineup, seed)


def render(case: Case) -> dict[str, bytes]:
    """The three documents of one episode, as bytes: results, the runner's log, the replay."""
    return {kind: data for kind, data in render_all(case).items() if kind in KINDS}


KINDS = ("results", "log", "replay")
"""What the corpus stores; `render_all` adds ``replay_direct``, the replay's bytes as hosts
write them (`GameDescriptor.replay_json`: spliced from encoded parts where the game can),
which must equal ``replay``."""


def render_all(case: Case) -> dict[str, bytes]:
    desc = registry.get(case.game)
    game = desc.new_game(case.variant, {}, case.seed, list(case.lineup))
    seats = make_seats(game, list(case.lineup), ModelOptions())
    outcome = play_headless(game, seats)
    sort = desc.replay_sort_keys
    direct = desc.replay_json(game, outcome.log)  # first: before anything renders the log
    return {
        "results": jsonio.dumps(outcome.results, sort_keys=sort).encode(),
        "log": jsonio.dumps(outcome.log.to_json(), sort_keys=True).encode(),
        "replay": jsonio.dumps(desc.replay_document(game, outcome.log), sort_keys=sort).encode(),
        "replay_direct": direct,
    }


def path_of(case: Case, kind: str) -> Path:
    return HERE / case.game / f"{case.stem}.{kind}.json.gz"


def pack(data: bytes) -> bytes:
    """gzip with no timestamp or name: the same bytes give the same file."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def stored(case: Case, kind: str) -> bytes | None:
    path = path_of(case, kind)
    return gzip.decompress(path.read_bytes()) if path.exists() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    differing = []
    for case in cases():
        for kind, data in render(case).items():
            path = path_of(case, kind)
            if args.check:
                if stored(case, kind) != data:
                    differing.append(str(path.relative_to(HERE)))
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(pack(data))
    if differing:
        print("differs from the corpus:\n  " + "\n  ".join(differing))
        return 1
    print("corpus checked" if args.check else f"corpus written to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
