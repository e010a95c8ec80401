"""`cogleague play commons`: one Commons Family episode headless, with a progress bar, a results
table and the resource's course over the rounds.

Writes `results.json` (with `welfare`) and `replay.json` (``commons-family/1``, sorted keys) to
`--out` (default `runs/commons-<variant>-<seed>/`); `cogleague replay verify DIR/replay.json`
re-derives the replay.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table as RichTable

from cogleague.cli import play_app
from cogleague.cli.common import (
    BaseUrlOpt,
    ModelOpt,
    OutOpt,
    ProviderOpt,
    TranscriptOpt,
    console,
    fail,
    guarded,
    model_options,
    play_with_progress,
    results_with_models,
    split_seats,
    write_artifacts,
)
from cogleague.games.commons import GAME, CommonsGame
from cogleague.games.commons.config import VARIANTS
from cogleague.seats.factory import is_bot_ref, make_seats

SEATS_HELP = ("comma-separated policies, one per cog (2..12): baselines ("
              + ", ".join(GAME.baselines) + "), llm[:PROMPT_FILE] or MODULE:CLASS "
              "(default: six stewards; certification: its fixed line-up)")
SPARKS = "▁▂▃▄▅▆▇█"


def check_policy(name: str) -> None:
    """A typo must not silently play steward: unknown plain names are refused."""
    if name in GAME.baselines or name == "llm" or name.startswith("llm:") or is_bot_ref(name):
        return
    fail(f"--seats: unknown policy {name!r} (baselines: {', '.join(GAME.baselines)}; or "
         "llm[:PROMPT_FILE], MODULE:CLASS)")


@play_app.command("commons")
def play_commons(
    variant: Annotated[str, typer.Option("--variant", help=" | ".join(VARIANTS))] = "cleanup",
    seats: Annotated[str | None, typer.Option("--seats", help=SEATS_HELP)] = None,
    rounds: Annotated[int | None, typer.Option("--rounds", help="1..100 (default: variant's)")]
    = None,
    seed: Annotated[int | None, typer.Option("--seed", help="0..2^63-1 (default: variant's)")]
    = None,
    out: OutOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    provider: ProviderOpt = None,
    transcript: TranscriptOpt = None,
) -> None:
    """Play one Commons Family episode: cogs share one destructible resource."""
    if variant not in VARIANTS:
        fail(f"--variant must be one of {', '.join(VARIANTS)} (got {variant!r})")
    names = split_seats(seats) or GAME.default_lineup(variant)
    lo, hi = GAME.seat_range
    if not lo <= len(names) <= hi:
        fail(f"--seats must list {lo}..{hi} policies (got {len(names)})")
    for name in names:
        check_policy(name)
    overrides: dict[str, Any] = {} if rounds is None else {"rounds": rounds}
    game: CommonsGame = guarded(lambda: GAME.make(variant, overrides, seed, names))
    options = model_options(model, base_url, provider, transcript)
    seat_objects = guarded(lambda: make_seats(game, game.policy_names, options))
    game.generated_at = datetime.now(UTC).isoformat(timespec="seconds")  # the CLI owns the clock
    config = game.config
    console.print(f"[bold]Commons Family[/] {config.variant} ({config.module}), seed "
                  f"{config.seed}, {config.rounds} rounds, {config.num_players} cogs",
                  highlight=False)
    outcome = play_with_progress(game, seat_objects, config.rounds)
    results = outcome.results
    results = results_with_models(results, seat_objects)
    print_results(game, results)
    print_course(game)
    target = out or Path("runs") / f"commons-{config.variant}-{config.seed}"
    results_path, replay_path = write_artifacts(target, results,
                                                game.replay_document(outcome.log),
                                                sort_keys=True)
    console.print(f"wrote {results_path} and {replay_path}", highlight=False)


def print_results(game: CommonsGame, results: dict[str, Any]) -> None:
    table = RichTable(title=f"Commons Family results ({results['rounds']} rounds, "
                            f"{results['reason']}); welfare {results['welfare']:.3f}")
    for column in ("alias", "policy", "score", "extracted", "effort", "sanctions given/recv",
                   "fallbacks"):
        table.add_column(column, justify="left" if column in ("alias", "policy") else "right")
    for s in sorted(range(game.num_seats), key=lambda s: -results["scores"][s]):
        table.add_row(results["aliases"][s], game.policy_names[s], f"{results['scores'][s]:.3f}",
                      f"{results['total_extracted'][s]:.3f}", str(results["public_effort"][s]),
                      f"{results['sanctions_given'][s]}/{results['sanctions_received'][s]}",
                      str(results["fallbacks"][s]))
    console.print(table)
    if results["collapse_round"] is not None:
        console.print(f"collapse in round {results['collapse_round']}", highlight=False)
    if results["dead_patches"]:
        console.print(f"dead patches: {results['dead_patches']}", highlight=False)
    if results["error"]:
        console.print(f"[red]stopped by an error:[/] {results['error']}", highlight=False)


def sparkline(values: list[float]) -> str:
    """One block character per value, scaled from 0 to the largest value."""
    top = max(values, default=0.0)
    if top <= 0:
        return SPARKS[0] * len(values)
    return "".join(SPARKS[min(len(SPARKS) - 1, int(v / top * (len(SPARKS) - 1) + 0.5))]
                   for v in values)


def print_course(game: CommonsGame) -> None:
    """The resource left after each round, and the maintenance effort spent per round."""
    totals = [rec["series"]["total"] for rec in game.records]
    effort = [float(rec["series"]["maintenance"]) for rec in game.records]
    if not totals:
        return
    console.print(f"resource  {sparkline(totals)}  {totals[0]:.1f} → {totals[-1]:.1f} "
                  f"(min {min(totals):.1f}, max {max(totals):.1f})", highlight=False)
    console.print(f"upkeep    {sparkline(effort)}  {sum(effort):.0f} effort units in all",
                  highlight=False)

