"""The Python face of record and replay: one episode of any game, its model calls recorded to
or replayed from a directory (for `cogleague.play`, when the package exposes one).

    from cogleague.seats.llm.api import play
    results, replay = play(game, ["llm:prompt.txt", "tit_for_tat", "always_defect"],
                           seed=3, model=ModelOptions(provider="openai", model="gpt-4o-mini"),
                           record="calls/")
    again, same = play(..., replay="calls/")            # no network, no tokens; same == replay
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogleague.core.episode import run_episode
from cogleague.core.errors import ConfigError
from cogleague.games import registry
from cogleague.seats.factory import ModelOptions, make_seats
from cogleague.seats.faults import faults_section
from cogleague.seats.llm.accounting import accounting_for
from cogleague.seats.llm.preflight import check_provider


def with_recording(options: ModelOptions | None, *, record: str | Path | None = None,
                   replay: str | Path | None = None,
                   replay_or_live: bool = False) -> ModelOptions:
    """`options` recording to `record`, or replaying from `replay` (``replay_or_live``: send
    what the recording lacks and add it)."""
    base = options or ModelOptions()
    if record is not None and replay is not None:
        raise ConfigError("record", "record and replay exclude each other")
    if replay_or_live and replay is None:
        raise ConfigError("replay_or_live", "replay_or_live needs replay=DIR")
    if record is not None:
        return dataclasses.replace(base, recording=str(record), recording_mode="record")
    if replay is not None:
        return dataclasses.replace(base, recording=str(replay),
                                   recording_mode="replay_or_live" if replay_or_live
                                   else "replay")
    return base


def play(game: str, seats: Sequence[str], *, seed: int | None = None,
         variant: str | None = None, overrides: Mapping[str, Any] | None = None,
         model: ModelOptions | None = None, record: str | Path | None = None,
         replay: str | Path | None = None,
         replay_or_live: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """Play one episode; returns (results with the ``models`` and ``faults`` sections, as
    results.json holds them, and the replay document).
    A provider that cannot serve (`preflight.check_provider`) raises `ConfigError` before
    anything is played; a request missing from a replayed recording raises `RecordingMiss`."""
    desc = registry.get(game)
    options = with_recording(model, record=record, replay=replay, replay_or_live=replay_or_live)
    instance = desc.make(variant, dict(overrides or {}), seed, list(seats), None)
    if any(name == "llm" or name.startswith("llm:") for name in seats):
        check_provider(options)  # a key, an endpoint, a base URL that cannot serve: not played
    seat_objects = make_seats(instance, list(seats), options)
    outcome = asyncio.run(run_episode(instance, seat_objects))
    results = dict(outcome.results)
    models = accounting_for(seat_objects)
    if models is not None:
        results["models"] = models
    results["faults"] = faults_section(outcome.faults, seat_objects, outcome.reasons)
    return results, desc.replay_document(instance, outcome.log)
