"""Ledger's descriptor: what hosts may know of the game (`core/descriptor.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogleague.core.descriptor import Column, GameDescriptor
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.game import Game
from cogleague.core.options import Option, option_model
from cogleague.games.ledger import conduct, rings
from cogleague.games.ledger.aliases import SEATS
from cogleague.games.ledger.baselines import BASELINES, FALLBACK_BASELINE
from cogleague.games.ledger.config import (
    CERTIFICATION,
    CERTIFICATION_SEED,
    DECISION_TIMEOUT_S,
    DRIVER_MODEL,
    DRIVER_REMOTE,
    EPISODE_TIMEOUT_S,
    PLAY_BUDGET_FRACTION,
    ROUNDS_MAX,
    ROUNDS_MIN,
    SEED_MAX,
    STANDARD,
    VARIANT_ROUNDS,
    VARIANTS,
    build_config,
    default_lineup,
)
from cogleague.games.ledger.conformance import CONFORMANCE
from cogleague.games.ledger.game import RULES_VERSION, LedgerGame
from cogleague.games.ledger.probes import PROBES_EXTRA
from cogleague.games.ledger.replay import (
    REPLAY_FORMAT,
    game_from_replay,
    replay_bytes,
    replay_document,
)
from cogleague.games.ledger.rl import ENCODING

HERE = Path(__file__).parent

LedgerOptions = option_model("LedgerOptions", {
    "rounds": Option(int, "rounds in the episode (default: the variant's)", ROUNDS_MIN,
                     ROUNDS_MAX),
    "episode_timeout_s": Option(float, "the episode's wall-clock budget in seconds",
                                EPISODE_TIMEOUT_S[0], EPISODE_TIMEOUT_S[1]),
    "play_budget_fraction": Option(float, "share of the budget rounds may start in",
                                   PLAY_BUDGET_FRACTION[0], PLAY_BUDGET_FRACTION[1]),
    "decision_timeout_s": Option(float, "seconds per decision attempt", DECISION_TIMEOUT_S[0],
                                 DECISION_TIMEOUT_S[1]),
})


def _driver(kind: str) -> str:
    if kind.startswith("scripted:"):
        return kind
    return DRIVER_MODEL if kind == "model" else DRIVER_REMOTE


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str], seat_kinds: Sequence[str] | None = None) -> LedgerGame:
    """A ready game; with `seat_kinds` the policy names are free text (a server's accounts)."""
    given = dict(overrides)
    if seat_kinds is not None:
        given["seats"] = [{"policy_name": n, "driver": _driver(k)}
                          for n, k in zip(policy_names, seat_kinds, strict=True)]
    return LedgerGame(build_config(variant, given, seed, policy_names))


def _headline(game: Game) -> list[str]:
    assert isinstance(game, LedgerGame)
    c = game.config
    return [f"[bold]Ledger[/] {c.variant}, seed {c.seed}, {c.rounds} rounds",
            "aliases: " + ", ".join(game.aliases)]


def _summary(game: Game, results: Mapping[str, Any]) -> list[str]:
    pairs = results["rings"]["pairs"]
    if not pairs:
        return ["ring pairs flagged: none"]
    aliases = results["aliases"]
    lines = [f"ring pairs flagged: {len(pairs)} (reported, never scored)"]
    lines += [f"  {aliases[p['a']]} & {aliases[p['b']]}: in {p['inMean']}, out {p['outMean']}, "
              f"delta {p['delta']}" for p in pairs]
    lines += ["  ring: " + ", ".join(aliases[s] for s in component)
              for component in results["rings"]["components"]]
    return lines


def seat_extras(results: Mapping[str, Any], seat: int) -> dict[str, float | None]:
    """Mean payoff beside the median score; how many flagged ring pairs the seat is in."""
    mean = results.get("mean")
    rings = results.get("rings") or {}
    pairs = rings.get("pairs", []) if isinstance(rings, Mapping) else []
    flags = sum(1 for p in pairs if isinstance(p, Mapping) and seat in (p.get("a"), p.get("b")))
    value = mean[seat] if isinstance(mean, list) and seat < len(mean) else None
    return {"mean_payoff": float(value) if isinstance(value, int | float) else None,
            "ring_flags": float(flags)}


def series(game: Game, outcome: EpisodeOutcome, seats: int) -> dict[str, Any] | None:
    """Mean payoff per meeting, per seat and round, from the table's record of meetings (what
    ``meeting`` events show)."""
    assert isinstance(game, LedgerGame)
    totals: dict[int, list[list[float]]] = {}
    for m in game.table.record:
        row = totals.get(m.round)
        if row is None:
            row = totals[m.round] = [[0.0, 0.0] for _ in range(seats)]
        for seat, pay in ((m.a, m.pay_a), (m.b, m.pay_b)):
            row[seat][0] += float(pay)
            row[seat][1] += 1
    rounds = [totals[r] for r in sorted(totals)]
    return {"label": "payoff per meeting",
            "seats": [[(r[s][0] / r[s][1]) if r[s][1] else None for r in rounds]
                      for s in range(seats)]}


GAME = GameDescriptor(
    name="ledger",
    version=RULES_VERSION,
    title="Ledger",
    options=LedgerOptions,
    make=make,
    variants=list(VARIANTS),
    default_variant=STANDARD,
    seat_range=(SEATS, SEATS),
    baselines=list(BASELINES),
    fallback_baseline=FALLBACK_BASELINE,
    default_lineup=default_lineup,
    replay_format=REPLAY_FORMAT,
    replay_document=lambda game, log: replay_document(game, log, frames=True),  # type: ignore[arg-type]
    replay_bytes=lambda game, log: replay_bytes(game, log),  # type: ignore[arg-type]
    game_from_replay=game_from_replay,
    replay_optional_keys=("frames",),
    spectator_secrets=frozenset({"memo", "memoA", "memoB"}),  # a memo is its author's alone
    conformance=CONFORMANCE,
    rules_file=HERE / "rules.md",
    viewer=HERE / "viewer.js",
    tagline="Eight aliases in random one-shot meetings, scored by the median payoff.",
    example_bot="examples/ledger_bot.py:FairDealer",
    starter=HERE / "starter_bot.tmpl",
    model_prompts=True,
    score_label="median",
    result_columns=(Column("mean", "mean"), Column("total", "total", "{}"),
                    Column("kind", "kind", "{}"), Column("harsh", "harsh", "{}"),
                    Column("halo", "halo")),
    summary=_summary,
    headline=_headline,
    standings_columns=(Column("mean_payoff", "mean payoff"),
                       Column("ring_flags", "ring flags", "{:.2f}")),
    seat_extras=seat_extras,
    series=series,
    fixed_by_variant={CERTIFICATION: {"seed": CERTIFICATION_SEED,
                                      "rounds": VARIANT_ROUNDS[CERTIFICATION]}},
    league_example={"archetypes": {"reciprocator": "mirror", "cooperator": "saint",
                                   "defector": "shark", "grudger": "grim",
                                   "opportunist": "opportunist"},
                    "table": {"variants": ["standard"], "episodes": 32}},
    human_deadline_s=DECISION_TIMEOUT_S[2],  # the rules' own 30 s a decision suits people
    rule_numbers={"seed_max": SEED_MAX, "seats": SEATS, "rounds_min": ROUNDS_MIN,
                  "rounds_max": ROUNDS_MAX,
                  # what the Theater re-derives (conduct §7, rings §10), read by viewer.js
                  "trust_kind_send": conduct.TRUST_KIND_SEND,
                  "trust_kind_percent": conduct.TRUST_KIND_PERCENT,
                  "ultimatum_kind_offer": conduct.ULTIMATUM_KIND_OFFER,
                  "ultimatum_kind_floor": conduct.ULTIMATUM_KIND_FLOOR,
                  "neutral_halo": conduct.NEUTRAL_HALO,
                  "ring_min_meetings": rings.MIN_MUTUAL_MEETINGS,
                  "ring_min_in_mean": rings.MIN_IN_MEAN, "ring_min_delta": rings.MIN_DELTA,
                  "ring_min_size": rings.MIN_RING_SIZE},
    extras={"rl": ENCODING, "batch": "cogleague.games.ledger.kernel:BATCH", "probes": PROBES_EXTRA},
)
