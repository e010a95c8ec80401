"""The threshold game's descriptor: everything a cogleague host may know of it.

The entry point ``threshold = "cogleague_threshold.descriptor:GAME"`` (pyproject.toml) is how
`cogleague games`, `cogleague play`, the server, the league and the Theater find it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogleague.core.descriptor import Column, GameDescriptor
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game

from cogleague_threshold.baselines import BASELINES, FALLBACK
from cogleague_threshold.config import (
    DEFAULT_SEATS,
    DEFAULT_VARIANT,
    MAX_BONUS,
    MAX_ENDOWMENT,
    MAX_ROUNDS,
    MAX_SEATS,
    MAX_SEED,
    MIN_SEATS,
    OPTIONS,
    VARIANTS,
    make_config,
)
from cogleague_threshold.conformance import CONFORMANCE
from cogleague_threshold.game import TIMING, ThresholdGame
from cogleague_threshold.replay import FORMAT, game_from_replay, replay_document

HERE = Path(__file__).parent


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str], seat_kinds: Sequence[str] | None = None) -> ThresholdGame:
    """A ready game; the seat count is the line-up's length. Policy names are free text (a
    server's account names): only scripted seats are built from baselines, by the host."""
    if not MIN_SEATS <= len(policy_names) <= MAX_SEATS:
        raise ConfigError("seats", f"seats must list {MIN_SEATS}..{MAX_SEATS} policies "
                                   f"(got {len(policy_names)})")
    given = dict(overrides)
    if given.get("seats") is not None and given["seats"] != len(policy_names):
        raise ConfigError("seats", f"seats is {given['seats']!r} but the line-up names "
                                   f"{len(policy_names)} policies")
    given["seats"] = len(policy_names)
    chosen = seed if seed is not None else secrets.randbelow(MAX_SEED + 1)
    return ThresholdGame(make_config(variant, given, chosen), policy_names)


def default_lineup(variant: str | None) -> list[str]:
    return ["fair_share", "reciprocator", "altruist", "free_rider"]


def seats_for(variant: str | None, overrides: Mapping[str, Any]) -> int:
    return int(overrides.get("seats") or DEFAULT_SEATS)


def _headline(game: Game) -> list[str]:
    assert isinstance(game, ThresholdGame)
    c = game.config
    return [f"[bold]Threshold[/] {c.variant}, seed {c.seed}, {c.seats} seats, {c.rounds} "
            f"rounds, threshold {c.threshold} of {c.seats * c.endowment}, bonus {c.bonus}, "
            f"pledges {'on' if c.pledges else 'off'}, refund {'on' if c.refund else 'off'}"]


def _summary(game: Game, results: Mapping[str, Any]) -> list[str]:
    return [f"threshold met in {results['rounds_met']} of {results['rounds_played']} rounds"]


def seat_extras(results: Mapping[str, Any], seat: int) -> dict[str, float | None]:
    row = results["seats"][seat]
    return {"give_rate": row["give_rate"], "pledge_kept": row["pledge_kept"],
            "met_rate": (results["rounds_met"] / results["rounds_played"]
                         if results["rounds_played"] else None)}


def series(game: Game, outcome: EpisodeOutcome, seats: int) -> dict[str, Any] | None:
    """The fund's total per round, as a share of the threshold."""
    totals = [e.data["total"] / e.data["threshold"] for e in outcome.log.events
              if e.kind == "round_settled"]
    return {"label": "fund / threshold", "group": totals}


GAME = GameDescriptor(
    name="threshold",
    version=ThresholdGame.rules_version,
    title="Threshold public goods",
    tagline="Pledge in public, give in secret; everyone gains if the fund reaches the bar.",
    options=OPTIONS,
    make=make,
    variants=list(VARIANTS),
    default_variant=DEFAULT_VARIANT,
    seat_range=(MIN_SEATS, MAX_SEATS),
    baselines=list(BASELINES),
    fallback_baseline=FALLBACK,
    default_lineup=default_lineup,
    seats_for=seats_for,
    replay_format=FORMAT,
    replay_document=lambda game, log: replay_document(game, log),  # type: ignore[arg-type]
    game_from_replay=game_from_replay,
    conformance=CONFORMANCE,
    rules_file=HERE / "rules.md",
    viewer=None,  # the Theater's generic renderer
    human_deadline_s=TIMING.decision_timeout_s,  # the rules' 10 s a decision, people's too:
    # the Lobby card and the Play page say so before a person joins
    model_prompts=True,
    score_label="tokens",
    result_columns=(Column("contributed", "gave", "{}"),
                    Column("give_rate", "give rate", "{:.0%}"),
                    Column("pledge_kept", "pledges kept", "{:.0%}")),
    summary=_summary,
    headline=_headline,
    standings_columns=(Column("give_rate", "give rate", "{:.0%}"),
                       Column("pledge_kept", "pledges kept", "{:.0%}"),
                       Column("met_rate", "threshold met", "{:.0%}")),
    seat_extras=seat_extras,
    series=series,
    rule_numbers={"seed_max": MAX_SEED, "seats_min": MIN_SEATS, "seats_max": MAX_SEATS,
                  "rounds_max": MAX_ROUNDS, "endowment_max": MAX_ENDOWMENT,
                  "bonus_max": MAX_BONUS},
)
