"""`cogleague play ledger`: one Ledger episode headless, with a progress bar and a results table.

Writes `results.json` and `replay.json` (with frames) to `--out` (default `runs/ledger-<seed>/`);
`cogleague replay verify DIR/replay.json` re-derives the replay.
"""

from __future__ import annotations

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
    guarded,
    model_options,
    play_with_progress,
    results_with_models,
    split_seats,
    write_artifacts,
)
from cogleague.games.ledger import GAME, LedgerGame
from cogleague.games.ledger.config import VARIANTS
from cogleague.seats.factory import make_seats

SEATS_HELP = ("8 comma-separated policies: baselines (" + ", ".join(GAME.baselines)
              + "), llm[:PROMPT_FILE] or MODULE:CLASS (default: a mix of all baselines)")


@play_app.command("ledger")
def play_ledger(
    variant: Annotated[str, typer.Option("--variant", help=" | ".join(VARIANTS))] = "standard",
    seed: Annotated[int | None, typer.Option("--seed", help="0..2147483647 (default: random)")]
    = None,
    seats: Annotated[str | None, typer.Option("--seats", help=SEATS_HELP)] = None,
    rounds: Annotated[int | None, typer.Option("--rounds", help="4..28 (default: variant's)")]
    = None,
    out: OutOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    provider: ProviderOpt = None,
    transcript: TranscriptOpt = None,
) -> None:
    """Play one Ledger episode: eight aliases, seeded Dilemma / Trust / Ultimatum meetings."""
    names = split_seats(seats) or []
    overrides: dict[str, Any] = {} if rounds is None else {"rounds": rounds}
    game: LedgerGame = guarded(lambda: GAME.make(variant, overrides, seed, names))
    options = model_options(model, base_url, provider, transcript)
    seat_objects = guarded(lambda: make_seats(game, game.policy_names, options))
    config = game.config
    console.print(f"[bold]Ledger[/] {config.variant}, seed {config.seed}, {config.rounds} rounds",
                  highlight=False)
    console.print("aliases: " + ", ".join(game.aliases), highlight=False)
    outcome = play_with_progress(game, seat_objects, config.rounds)
    results = outcome.results
    _print_results(results)
    results_file = results_with_models(results, seat_objects)
    target = out or Path("runs") / f"ledger-{config.seed}"
    results_path, replay_path = write_artifacts(
        target, results_file, game.replay_document(outcome.log, frames=True))
    console.print(f"wrote {results_path} and {replay_path}", highlight=False)


def _print_results(results: dict[str, Any]) -> None:
    """One row per seat, best median first (equal medians share a rank)."""
    table = RichTable(title=f"Ledger results ({results['rounds']} of {results['maxRounds']} "
                            f"rounds, {results['reason']}); ranked by median")
    for column in ("rank", "alias", "policy", "median", "mean", "total", "kind/harsh", "halo"):
        table.add_column(column, justify="left" if column in ("alias", "policy") else "right",
                         no_wrap=True)
    scores = results["scores"]
    for s in sorted(range(len(scores)), key=lambda seat: (-scores[seat], seat)):
        rank = 1 + sum(score > scores[s] for score in scores)
        table.add_row(str(rank), results["aliases"][s], results["policyNames"][s],
                      f"{scores[s]:g}", f"{results['mean'][s]:.2f}", str(results["total"][s]),
                      f"{results['kind'][s]}/{results['harsh'][s]}", f"{results['halo'][s]:.2f}")
    console.print(table)
    pairs = results["rings"]["pairs"]
    if not pairs:
        console.print("ring pairs flagged: none", highlight=False)
        return
    aliases = results["aliases"]
    console.print(f"ring pairs flagged: {len(pairs)} (reported, never scored)", highlight=False)
    for p in pairs:
        console.print(f"  {aliases[p['a']]} & {aliases[p['b']]}: in {p['inMean']}, "
                      f"out {p['outMean']}, delta {p['delta']}", highlight=False)
    for component in results["rings"]["components"]:
        console.print("  ring: " + ", ".join(aliases[s] for s in component), highlight=False)
