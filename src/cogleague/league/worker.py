"""What a worker does with one episode spec: build the game and seats, play, summarize.

This module is the whole of what a process-pool worker or a Ray task imports and runs. It never
touches the store: outcomes go back to the driver, which is the only writer, so SQLite works
unchanged and a remote Ray node needs no database access.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Sequence

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.core.game import Game
from cogleague.league import batch, gamestats
from cogleague.league.episodes import (
    STATUS_FAILED,
    STATUS_INFRA,
    Chunk,
    EncodedRecord,
    EpisodeRecord,
    EpisodeSpec,
)
from cogleague.league.games import resolve_game
from cogleague.league.policies import add_python_path
from cogleague.seats.factory import ModelOptions, make_seat
from cogleague.seats.faults import faults_section, platform_failures, summary_line
from cogleague.seats.llm.recording import RecordingMiss

ERROR_MAX_CHARS = 2000


class Restarts:
    """A chunk's last finished game, dealt again for its next episode when that one plays the
    same game, variant, options and seat count (`Game.restart`): a league repeats one line-up's
    set-up for thousands of episodes. A game is kept only after its episode was read whole, and
    handed out once, so a failed episode's game never comes back."""

    def __init__(self) -> None:
        self.kept: tuple[EpisodeSpec, Game] | None = None  # the last episode's spec and game

    def take(self, spec: EpisodeSpec, refs: list[str]) -> Game | None:
        kept, self.kept = self.kept, None
        if kept is None:
            return None
        last, game = kept
        if ((spec.game, spec.game_module, spec.variant)
                != (last.game, last.game_module, last.variant)
                or spec.overrides != last.overrides
                or "seed" in spec.overrides):  # an options' seed wins over the spec's in make
            return None
        return game if game.restart(spec.seed, refs) else None

    def keep(self, spec: EpisodeSpec, game: Game) -> None:
        self.kept = (spec, game)


def play_spec(spec: EpisodeSpec, restarts: Restarts | None = None) -> EpisodeRecord:
    """Play one episode (on `restarts`' last game when it can be dealt again). Any exception
    is an infrastructure failure: recorded, never ranked."""
    started = time.perf_counter()
    record = EpisodeRecord(id=spec.id, league=spec.league, game=spec.game, variant=spec.variant,
                           seed=spec.seed, policies=spec.policies, index=spec.index,
                           source=spec.source)
    try:
        add_python_path(spec.python_path)
        info = resolve_game(spec.game, spec.game_module)
        # games read the line-up as the seat factory does (baseline, llm:PROMPT, MODULE:CLASS);
        # the league's own policy names live in the store
        refs = [s.seat_ref for s in spec.seats]
        game = restarts.take(spec, refs) if restarts is not None else None
        if game is None:
            game = info.make(spec.variant, spec.overrides, spec.seed, refs, None)
        seats = [make_seat(game, i, s.seat_ref, ModelOptions(**s.model) if s.model else None)
                 for i, s in enumerate(spec.seats)]
        outcome = play_headless(game, seats)
        # canonical JSON round trip: what every backend stores is byte-for-byte the same
        results = dict(outcome.results)
        faults = faults_section(outcome.faults, seats, outcome.reasons)
        if faults["fallbacks"]:  # kept, as results.json keeps it: the standings count them
            results["faults"] = faults
        if any(getattr(s, "kind", None) == "model" for s in seats):
            from cogleague.seats.llm import accounting_for

            results["models"] = accounting_for(seats)  # tokens, for league costs
        record.results = json.loads(jsonio.dumps(results, sort_keys=True))
        record.series = gamestats.series(spec.game, game, outcome, len(seats))
        if len(record.scores) != len(seats):
            raise ValueError(f"results.scores has {len(record.scores)} entries for "
                             f"{len(seats)} seats")
        if platform_failures(faults):  # the platform failed a seat: never score the policy
            record.status = STATUS_INFRA
            record.error = summary_line(faults)
        if restarts is not None:
            restarts.keep(spec, game)
    except (Exception, RecordingMiss) as exc:  # a replay's missing request fails the episode
        record.status = "failed"
        record.results = None
        record.series = None
        record.error = error_text(exc)
    record.duration_s = time.perf_counter() - started
    return record


def play_chunk(specs: Sequence[EpisodeSpec]) -> list[EncodedRecord]:
    """A batch of episodes in one task (amortizes the per-task cost of pools and Ray), sent
    back as the store's rows with their JSON already encoded: the driver only inserts them.
    A kernel `Chunk` is stepped through the game's batch kernel, the rest episode by
    episode through the rules engine, each game dealt again where it can (`Restarts`)."""
    if isinstance(specs, Chunk) and specs.kernel:
        try:
            return batch.play_chunk(specs)
        except Exception as exc:  # a kernel bug fails its chunk, as a game bug fails an episode
            return failed_records(specs, error_text(exc, "batch kernel: "))
    restarts = Restarts()
    return [play_spec(s, restarts).encoded() for s in specs]


def error_text(exc: BaseException, prefix: str = "") -> str:
    """What a record (or a run) says of the exception being handled: its type, message and
    the last frames of its traceback, at most `ERROR_MAX_CHARS`."""
    tail = traceback.format_exc(limit=-3)
    return f"{prefix}{type(exc).__name__}: {exc}\n{tail}"[:ERROR_MAX_CHARS]


def failed_records(specs: Sequence[EpisodeSpec], error: str,
                   status: str = STATUS_FAILED) -> list[EncodedRecord]:
    """Failures for a whole chunk: its kernel's (failed), or its worker's, lost while it
    played (`STATUS_INFRA`: the platform's failure, never the policies')."""
    return [EpisodeRecord(id=s.id, league=s.league, game=s.game, variant=s.variant, seed=s.seed,
                          policies=s.policies, index=s.index, status=status,
                          error=error).encoded()
            for s in specs]
