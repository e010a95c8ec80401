"""The dilemma's descriptor: what hosts may know of the game (`core/descriptor.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogleague.core.descriptor import Column, GameDescriptor, PaidTables
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.core.options import GameOptions, Option, option_model
from cogleague.core.rng import random_seed
from cogleague.games.dilemma.baselines import FALLBACK, NAMES
from cogleague.games.dilemma.config import (
    DEFAULT_SEATS,
    DEFAULT_VARIANT,
    MAX_DEADLINE_MS,
    MAX_MESSAGE_CHARS,
    MAX_PAYOFF,
    MAX_RAKE_BPS,
    MAX_ROUNDS,
    MAX_SEATS,
    MAX_SEED,
    MAX_STAKE,
    MIN_DEADLINE_MS,
    MIN_ROUNDS,
    MIN_SEATS,
    VARIANTS,
    make_config,
)
from cogleague.games.dilemma.conformance import CONFORMANCE
from cogleague.games.dilemma.game import DilemmaGame
from cogleague.games.dilemma.probes import PROBES_EXTRA
from cogleague.games.dilemma.replay import FORMAT, game_from_replay, replay_bytes, replay_document
from cogleague.games.dilemma.rl import ENCODING

HERE = Path(__file__).parent

PayoffOptions = option_model("PayoffOptions", {
    k: Option(int, f"the {k} payoff", 0, MAX_PAYOFF)
    for k in ("reward", "punishment", "temptation", "sucker")})

DilemmaOptions = option_model("DilemmaOptions", {
    "seats": Option(int, "seats at the table (the CLI takes them from --seats)", MIN_SEATS,
                    MAX_SEATS),
    "rounds_total": Option(int, "rounds per pairing (default: the variant's)", MIN_ROUNDS,
                           MAX_ROUNDS, cli="rounds"),
    "promises": Option(bool, "whether first movers may send a promise"),
    "turn_deadline_ms": Option(int, "milliseconds per turn", MIN_DEADLINE_MS, MAX_DEADLINE_MS),
    "stake": Option(int, "credits per seat (0: a free table)", 0, MAX_STAKE),
    "rake_bps": Option(int, "house share of the pot in basis points", 0, MAX_RAKE_BPS),
    "payoffs": Option(PayoffOptions, "the payoff matrix (T > R > P >= S, 2R > T + S)"),
})
assert issubclass(DilemmaOptions, GameOptions)


HUMAN_DEADLINE_MS = 30_000
"""A person's turn at a people table: the default 10 s is sized for programs."""


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str], seat_kinds: Sequence[str] | None = None) -> DilemmaGame:
    """A ready game. The seat count is the line-up's length (3..8)."""
    if not MIN_SEATS <= len(policy_names) <= MAX_SEATS:
        raise ConfigError("seats", f"seats must list {MIN_SEATS}..{MAX_SEATS} policies "
                                   f"(got {len(policy_names)})")
    given = dict(overrides)
    if "seats" in given and given["seats"] != len(policy_names):
        raise ConfigError("seats", f"seats is {given['seats']!r} but the line-up names "
                                   f"{len(policy_names)} policies")
    given["seats"] = len(policy_names)
    chosen = seed if seed is not None else random_seed()
    return DilemmaGame(make_config(variant, given, chosen), policy_names)


def default_lineup(variant: str | None) -> list[str]:
    if variant is not None and not VARIANTS.get(variant, {}).get("promises", True):
        return ["tit_for_tat", "grim_trigger", "pavlov", "always_defect"]
    return ["tit_for_tat", "promise_keeper", "silver_tongue", "always_defect"]


def seats_for(variant: str | None, overrides: Mapping[str, Any]) -> int:
    return int(overrides.get("seats", DEFAULT_SEATS))


def _headline(game: Game) -> list[str]:
    assert isinstance(game, DilemmaGame)
    cfg = game.config
    paid = f", stake {cfg.stake}, rake {cfg.rake_bps} bps" if cfg.paid else ""
    return [f"[bold]Prisoner's Dilemma[/] {cfg.variant}, seed {cfg.seed}, {cfg.seats} seats, "
            f"{cfg.rounds_total} rounds per pairing, promises "
            f"{'on' if cfg.promises else 'off'}{paid}"]


def _summary(game: Game, results: Mapping[str, Any]) -> list[str]:
    lines = [f"{results['rounds_played']} of {results['rounds_total']} rounds"]
    if results["stake"]:
        lines.append(f"pot {results['pot']}, rake {results['rake']}")
    return lines


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def seat_extras(results: Mapping[str, Any], seat: int) -> dict[str, float | None]:
    """Cooperation rate, the share of its promises a seat kept, promises made."""
    seats = results.get("seats")
    row = seats[seat] if isinstance(seats, list) and seat < len(seats) else {}
    made = _num(row.get("promises_made"))
    kept = _num(row.get("promises_kept"))
    return {"cooperation_rate": _num(row.get("cooperation_rate")),
            "promises_kept": kept / made if made and kept is not None else None,
            "promises_made": made}


def series(game: Game, outcome: EpisodeOutcome, seats: int) -> dict[str, Any] | None:
    """Each seat's share of cooperate choices per revealed round, from its pairings' records
    (`PairRecord.coop`, what ``choices_revealed`` events show)."""
    assert isinstance(game, DilemmaGame)
    state = game.state
    rounds = state.rounds_played
    shares: list[list[float | None]] = []
    for seat in range(seats):
        pairs = state.by_seat[seat]
        if not pairs:
            shares.append([None] * rounds)
            continue
        columns = zip(*(rec.coop[rec.side_of(seat)][:rounds] for rec in pairs), strict=True)
        shares.append([sum(col) / len(pairs) for col in columns])
    return {"label": "cooperation rate", "seats": shares}


GAME = GameDescriptor(
    name="dilemma",
    version=DilemmaGame.rules_version,
    title="Prisoner's Dilemma tables",
    options=DilemmaOptions,
    make=make,
    variants=list(VARIANTS),
    default_variant=DEFAULT_VARIANT,
    seat_range=(MIN_SEATS, MAX_SEATS),
    baselines=list(NAMES),
    fallback_baseline=FALLBACK,
    default_lineup=default_lineup,
    seats_for=seats_for,
    replay_format=FORMAT,
    replay_document=lambda game, log: replay_document(game, log),  # type: ignore[arg-type]
    replay_bytes=lambda game, log: replay_bytes(game, log),  # type: ignore[arg-type]
    game_from_replay=game_from_replay,
    conformance=CONFORMANCE,
    rules_file=HERE / "rules.md",
    viewer=HERE / "viewer.js",
    tagline="A round robin of cooperate-or-defect with promises; the place to start.",
    example_bot="examples/dilemma_bot.py:PromiseKeeper",
    starter=HERE / "starter_bot.tmpl",
    paid_tables=PaidTables(),
    model_prompts=True,
    score_label="points",
    result_columns=(Column("cooperation_rate", "coop", "{:.0%}"),
                    Column("promises_kept", "kept", "{}"),
                    Column("promises_made", "promises", "{}"),
                    # every fallback, which the rules play as a timeout
                    Column("timeouts", "fallbacks", "{}"), Column("payout", "payout", "{}")),
    summary=_summary,
    headline=_headline,
    standings_columns=(Column("cooperation_rate", "cooperation", "{:.0%}"),
                       Column("promises_kept", "promises kept", "{:.0%}"),
                       Column("promises_made", "promises / episode", "{:.1f}")),
    seat_extras=seat_extras,
    series=series,
    league_example={"archetypes": {"reciprocator": "tit_for_tat",
                                   "cooperator": "always_cooperate",
                                   "defector": "always_defect", "grudger": "grim_trigger",
                                   "opportunist": "silver_tongue",
                                   "fair-share": "promise_keeper"},
                    "table": {"variants": ["standard"], "seats": 4}},
    human_config={"turn_deadline_ms": HUMAN_DEADLINE_MS},
    human_deadline_s=HUMAN_DEADLINE_MS / 1000,
    rule_numbers={"seed_max": MAX_SEED, "max_message_chars": MAX_MESSAGE_CHARS,
                  "max_stake": MAX_STAKE, "max_rake_bps": MAX_RAKE_BPS,
                  "seats_min": MIN_SEATS, "seats_max": MAX_SEATS},
    extras={"rl": ENCODING, "batch": "cogleague.games.dilemma.kernel:BATCH",  # numpy: on use
            "probes": PROBES_EXTRA},
)
