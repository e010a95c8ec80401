"""Commons Family's descriptor: what hosts may know of the game (`core/descriptor.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogleague.core.descriptor import Column, ConnectTimeout, GameDescriptor
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.core.options import Option, option_model
from cogleague.games.commons.actions import NOTE_MAX_CHARS
from cogleague.games.commons.baselines import BASELINES, DEFAULT_BASELINE
from cogleague.games.commons.books import SEAT_EVENT_PRIVATE
from cogleague.games.commons.config import (
    _BOOLS,
    _INT_RANGES,
    _NUMBER_RANGES,
    CERTIFICATION_SEATS,
    MAX_SEED,
    NAME_MAX_CHARS,
    NORM_MAX_CHARS,
    STANDARD_SEATS,
    VARIANTS,
    CommonsConfig,
    make_config,
)
from cogleague.games.commons.conformance import CONFORMANCE
from cogleague.games.commons.game import CommonsGame
from cogleague.games.commons.modules import MODULES, allelopathic, cleanup, harvest, mushrooms
from cogleague.games.commons.modules.harvest import PROPERTY_RIGHTS
from cogleague.games.commons.probes import PROBES_EXTRA
from cogleague.games.commons.replay import FORMAT, build_document, game_from_replay
from cogleague.games.commons.rl import ENCODING

HERE = Path(__file__).parent
HUMAN_ROUND_S = CommonsConfig(module="cleanup").round_seconds
"""A person's attempt lasts the rules' whole round (§2: 20 s), not the 8 s sized for programs
(an integer, as the ``decision_timeout_seconds`` option it sets is)."""
DEFAULT_VARIANT = "cleanup"

_HELP = {
    "rounds": "rounds in the episode (default: the variant's)",
    "num_players": "cogs at the table (the standard game has six)",
    "effort_budget": "effort units per cog and round (fixed by the rules)",
    "round_seconds": "seconds per round", "min_round_seconds": "pacing floor per round (s)",
    "decision_timeout_seconds": "seconds per decision attempt",
    "connect_timeout_seconds": "seconds to wait for remote seats",
    "episode_timeout_seconds": "the episode's wall-clock budget (s)",
    "chat_max_chars": "code points per chat line",
    "max_sanctions_received": "sanctions one cog may receive per round",
    "patch_count": "patches of the harvest module",
    "sanction_cost": "what a sanction costs its giver", "sanction_burn": "what it burns",
    "ledger_public": "whether the ledger is public", "chat_enabled": "whether chat is on",
    "sanctions_enabled": "whether sanctions are on",
}

CommonsOptions = option_model("CommonsOptions", {
    "module": Option(str, "the physics module", choices=tuple(MODULES)),
    **{k: Option(int, _HELP[k], lo, hi) for k, (lo, hi) in _INT_RANGES.items() if k != "seed"},
    **{k: Option(float, _HELP[k], lo, hi) for k, (lo, hi) in _NUMBER_RANGES.items()},
    **{k: Option(bool, _HELP[k]) for k in _BOOLS},
    "norm_text": Option(str, f"the posted norm (cut to {NORM_MAX_CHARS} code points)"),
    "property_rights": Option(str, "harvest rights", choices=tuple(PROPERTY_RIGHTS)),
    "names": Option(list, f"one display name per cog (1..{NAME_MAX_CHARS} code points)"),
})


def _commons_kind(kind: str) -> str:
    if kind.startswith("scripted"):
        return "scripted"
    return "model" if kind == "model" else "remote"


def make(variant: str | None, overrides: Mapping[str, Any], seed: int | None,
         policy_names: Sequence[str], seat_kinds: Sequence[str] | None = None) -> CommonsGame:
    """A ready game. With a line-up whose length differs from the variant's six seats, the
    seat count follows the line-up (an experiment; the standard game has six)."""
    given = dict(overrides)
    if policy_names and "num_players" not in given and len(policy_names) != seats_for(
            variant, given):
        given["num_players"] = len(policy_names)
    config = make_config(variant if variant is not None or "module" in given
                         else DEFAULT_VARIANT, given, seed)
    if policy_names and len(policy_names) != config.num_players:
        raise ConfigError("seats", f"seats must list exactly {config.num_players} policies "
                                   f"(got {len(policy_names)})")
    kinds = None if seat_kinds is None else [_commons_kind(k) for k in seat_kinds]
    return CommonsGame(config, list(policy_names) or None, seat_kinds=kinds)


def default_lineup(variant: str | None) -> list[str]:
    if variant == "certification":
        return list(CERTIFICATION_SEATS)
    return [DEFAULT_BASELINE] * STANDARD_SEATS


def seats_for(variant: str | None, overrides: Mapping[str, Any]) -> int:
    n = overrides.get("num_players", STANDARD_SEATS)
    return n if isinstance(n, int) and not isinstance(n, bool) else STANDARD_SEATS


def _headline(game: Game) -> list[str]:
    assert isinstance(game, CommonsGame)
    c = game.config
    # the module only when the variant's name does not say it; seats, as the other games say
    module = "" if c.variant == c.module else f" ({c.module} module)"
    return [f"[bold]Commons Family[/] {c.variant}{module}, seed {c.seed}, {c.rounds} "
            f"rounds, {c.num_players} seats"]


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float]) -> str:
    """One block character per value, scaled from 0 to the largest value."""
    top = max(values, default=0.0)
    if top <= 0:
        return SPARKS[0] * len(values)
    return "".join(SPARKS[min(len(SPARKS) - 1, int(v / top * (len(SPARKS) - 1) + 0.5))]
                   for v in values)


def _summary(game: Game, results: Mapping[str, Any]) -> list[str]:
    """Welfare, collapse, dead patches, an error, and the resource's course."""
    assert isinstance(game, CommonsGame)
    lines = [f"welfare {results['welfare']:.3f} ({results['rounds']} rounds, "
             f"{results['reason']})"]
    if results["collapse_round"] is not None:
        lines.append(f"collapse in round {results['collapse_round']}")
    if results["dead_patches"]:
        lines.append(f"dead patches: {results['dead_patches']}")
    if results["error"]:
        lines.append(f"[red]stopped by an error:[/] {results['error']}")
    totals = [rec["series"]["total"] for rec in game.records]
    effort = [float(rec["series"]["maintenance"]) for rec in game.records]
    if totals:
        lines.append(f"resource  {sparkline(totals)}  {totals[0]:.1f} → {totals[-1]:.1f} "
                     f"(min {min(totals):.1f}, max {max(totals):.1f})")
        lines.append(f"upkeep    {sparkline(effort)}  {sum(effort):.0f} effort units in all")
    return lines


def seat_extras(results: Mapping[str, Any], seat: int) -> dict[str, float | None]:
    """A seat's share of group welfare and whether the resource survived."""
    welfare = results.get("welfare")
    scores = results.get("scores")
    score = scores[seat] if isinstance(scores, list) and seat < len(scores) else None
    share = (score / welfare if isinstance(welfare, int | float) and welfare
             and isinstance(score, int | float) else None)
    dead = results.get("dead_patches")
    dead_count = len(dead) if isinstance(dead, list) else 0
    survived = results.get("collapse_round") is None and not dead_count
    return {"welfare_share": share, "survival": 1.0 if survived else 0.0}


def series(game: Game, outcome: EpisodeOutcome, seats: int) -> dict[str, Any] | None:
    """The resource's residual value after each round, from the round records (what
    ``round_end`` events show)."""
    assert isinstance(game, CommonsGame)
    values = [float(rec["series"]["total"]) for rec in game.records]
    return {"label": "resource value", "group": values}


def _grade(doc: Mapping[str, Any]) -> dict[str, Any]:
    from cogleague.games.commons.grade import grade

    return grade(doc)


GAME = GameDescriptor(
    name="commons",
    version=CommonsGame.rules_version,
    title="Commons Family",
    options=CommonsOptions,
    make=make,
    variants=list(VARIANTS),
    default_variant=DEFAULT_VARIANT,
    seat_range=(2, 12),
    baselines=list(BASELINES),
    fallback_baseline=DEFAULT_BASELINE,
    default_lineup=default_lineup,
    seats_for=seats_for,
    replay_format=FORMAT,
    replay_document=lambda game, log: build_document(game, log),  # type: ignore[arg-type]
    game_from_replay=game_from_replay,
    spectator_secrets=frozenset(SEAT_EVENT_PRIVATE),  # who sits in which slot: the replay's
    conformance=CONFORMANCE,
    replay_sort_keys=True,
    rules_file=HERE / "rules.md",
    viewer=HERE / "viewer.js",
    tagline="Six players share a resource that dies if overused, for twenty rounds.",
    example_bot="examples/commons_bot.py:Steward",
    starter=HERE / "starter_bot.tmpl",
    model_prompts=True,
    # rules §12 `no_players`: nobody connected within the config's connect timeout (180 s)
    connect_timeout=ConnectTimeout(option="connect_timeout_seconds"),
    grade=_grade,
    score_fmt="{:.3f}",
    result_columns=(Column("total_extracted", "extracted", "{:.3f}"),
                    Column("public_effort", "effort", "{}"),
                    Column("sanctions_given", "given", "{}"),
                    Column("sanctions_received", "recv", "{}"),
                    Column("fallbacks", "fallbacks", "{}")),
    summary=_summary,
    headline=_headline,
    standings_columns=(Column("welfare_share", "welfare share", "{:.1%}"),
                       Column("survival", "survival", "{:.0%}")),
    seat_extras=seat_extras,
    series=series,
    league_example={"archetypes": {"reciprocator": "reciprocator", "cooperator": "steward",
                                   "defector": "free_rider", "grudger": "punisher",
                                   "opportunist": "deterrable", "fair-share": "fair_share"},
                    "table": {"variants": ["cleanup", "harvest-open"]}},
    human_config={"decision_timeout_seconds": HUMAN_ROUND_S},
    human_deadline_s=float(HUMAN_ROUND_S),
    rule_numbers={"seed_max": MAX_SEED, "norm_max_chars": NORM_MAX_CHARS,
                  "name_max_chars": NAME_MAX_CHARS, "seats_min": 2, "seats_max": 12,
                  "note_max_chars": NOTE_MAX_CHARS,  # the Play page's note box
                  # the Theater's scales (viewer.js reads them instead of restating them)
                  "apple_capacity": cleanup.CAPACITY, "apple_regrowth": cleanup.REGROWTH,
                  "collapse_apples": cleanup.COLLAPSE_THRESHOLD,
                  "patch_capacity": harvest.PATCH_CAPACITY, "field_size": allelopathic.FIELD_SIZE,
                  "mushroom_colour_cap": mushrooms.COLOR_CAP},
    extras={"rl": ENCODING, "probes": PROBES_EXTRA,
            "batch": "cogleague.games.commons.kernel:BATCH"},  # numpy: loaded on use
)
