"""`cogleague play dilemma`: one Prisoner's Dilemma table, a progress bar, then the standings.

Writes `results.json` and `replay.json` to `--out` (default `runs/dilemma-<seed>/`);
`cogleague replay verify DIR/replay.json` re-derives the replay.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
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
from cogleague.games.dilemma import GAME, DilemmaGame
from cogleague.games.dilemma.config import VARIANTS
from cogleague.seats.factory import make_seats

SEATS_HELP = ("3..8 comma-separated policies: baselines (" + ", ".join(GAME.baselines)
              + "), llm[:PROMPT_FILE] or MODULE:CLASS (default: "
              + ",".join(GAME.default_lineup(None)) + ")")
# config field → the option that sets it, so errors name what the user typed
OPTION_FOR = {"rounds_total": "--rounds", "rake_bps": "--rake-bps", "stake": "--stake",
              "seats": "--seats", "seed": "--seed", "variant": "--variant"}


@play_app.command("dilemma")
def play_dilemma(
    seats: Annotated[str | None, typer.Option("--seats", help=SEATS_HELP)] = None,
    rounds: Annotated[int | None, typer.Option("--rounds", help="rounds per pairing, 1..1000 "
                                               "(default: the variant's)")] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="default: random")] = None,
    stake: Annotated[int | None, typer.Option("--stake", help="credits per seat, 0..10^9 "
                                              "(0: a free table)")] = None,
    rake_bps: Annotated[int | None, typer.Option("--rake-bps", help="house share of the pot "
                                                 "in basis points, 0..2000")] = None,
    no_promises: Annotated[bool, typer.Option("--no-promises", help="no messages")] = False,
    variant: Annotated[str, typer.Option("--variant", help=" | ".join(VARIANTS))] = "standard",
    out: OutOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    provider: ProviderOpt = None,
    transcript: TranscriptOpt = None,
) -> None:
    """Play one Prisoner's Dilemma table: a round robin with promises and standings."""
    names = split_seats(seats) or GAME.default_lineup(variant)
    overrides: dict[str, Any] = {}
    for key, value in (("rounds_total", rounds), ("stake", stake), ("rake_bps", rake_bps)):
        if value is not None:
            overrides[key] = value
    if no_promises:
        overrides["promises"] = False
    game: DilemmaGame = guarded(lambda: GAME.make(variant, overrides, seed, names), OPTION_FOR)
    options = model_options(model, base_url, provider, transcript)
    seat_objects = guarded(lambda: make_seats(game, game.policy_names, options), OPTION_FOR)
    cfg = game.config
    paid = f", stake {cfg.stake}, rake {cfg.rake_bps} bps" if cfg.paid else ""
    console.print(f"[bold]Prisoner's Dilemma[/] {cfg.variant}, seed {cfg.seed}, {cfg.seats} "
                  f"seats, {cfg.rounds_total} rounds per pairing, promises "
                  f"{'on' if cfg.promises else 'off'}{paid}", highlight=False)
    outcome = play_with_progress(game, seat_objects, cfg.rounds_total)
    _print_standings(outcome.results)
    results = outcome.results
    results = results_with_models(results, seat_objects)
    target = out or Path("runs") / f"dilemma-{cfg.seed}"
    results_path, replay_path = write_artifacts(target, results,
                                                game.replay_document(outcome.log))
    console.print(f"wrote {results_path} and {replay_path}", highlight=False)


def _print_standings(results: dict[str, Any]) -> None:
    title = (f"Standings ({results['rounds_played']} of {results['rounds_total']} rounds, "
             f"{results['reason']})")
    table = RichTable(box=box.SIMPLE_HEAD, pad_edge=False, title=title,
                      caption="coop: cooperation rate · promises: kept/made · t/o: timeouts")
    for column in ("#", "alias", "policy", "points", "coop", "promises", "t/o", "payout"):
        table.add_column(column, justify="left" if column in ("alias", "policy") else "right",
                         no_wrap=True)
    for s in sorted(results["seats"], key=lambda s: (s["rank"], s["seat"])):
        rate = s["cooperation_rate"]
        table.add_row(str(s["rank"]), s["alias"], s["policy"], str(s["points"]),
                      "—" if rate is None else f"{rate:.0%}",
                      f"{s['promises_kept']}/{s['promises_made']}", str(s["timeouts"]),
                      "—" if s["payout"] is None else str(s["payout"]))
    console.print(table)
    if results["stake"]:
        console.print(f"pot {results['pot']}, rake {results['rake']}", highlight=False)
