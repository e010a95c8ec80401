"""`cogleague play GAME` after its arguments are read: prepare the line-up, play with a
progress bar, print the results table the descriptor's columns describe, write the run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer
from rich.table import Table as RichTable

from cogleague import api
from cogleague.cli.common import (
    console,
    err_console,
    fail,
    guarded,
    play_with_progress,
    print_model_costs,
    replaying,
)
from cogleague.core.descriptor import GameDescriptor, per_seat
from cogleague.core.episode import WRONG_SHAPE
from cogleague.core.errors import ConfigError
from cogleague.seats.factory import ModelOptions
from cogleague.seats.faults import first_errors, summary_line
from cogleague.seats.llm.preflight import configured
from cogleague.seats.llm.pricing import load_prices


def play_game(desc: GameDescriptor, variant: str | None, seed: int | None,
              names: list[str] | None, out: Path | None, options: ModelOptions,
              given: dict[str, Any], flags: dict[str, str], *, strict: bool = False,
              overwrite: bool = False, prices: Path | None = None) -> None:
    option_for = {**flags, "seed": "--seed", "seats": "--seats", "variant": "--variant",
                  "provider": "--provider", "model": "--model", "base_url": "--base-url",
                  "requests_per_minute": "--requests-per-minute",
                  "max_reply_tokens": "--max-reply-tokens"}
    if out is not None:
        check_out(out, overwrite)
    _, game, seats = guarded(lambda: prepare(desc, variant, seed, names, options, given),
                             option_for)
    guarded(lambda: api.check_models(seats, options), option_for)
    if api.has_model_seats(seats) and not configured(options):
        err_console.print("note: no model provider is set (--model, --provider, --base-url): "
                          "llm seats play the fallback baseline "
                          f"{desc.fallback_baseline} on every turn", highlight=False)
    for line in desc.headline(game) if desc.headline else [f"[bold]{desc.title}[/]"]:
        console.print(line, highlight=False)
    price_table = guarded(lambda: load_prices(prices)) if prices is not None else None
    outcome = replaying(lambda: play_with_progress(game, seats, game.max_rounds))
    result = api.Result(desc, game, seats, outcome)
    print_results(desc, game, outcome.results)
    print_model_costs(seats, price_table)
    target = out or unique_folder(Path("runs") / f"{desc.name}-{variant or 'default'}-"
                                                 f"{game.seed}")
    try:
        result.save(target, overwrite=True)
    except OSError as exc:
        fail(f"--out {target}: cannot write the run there ({exc.strerror or exc})")
    console.print(f"wrote {target / 'results.json'} and {target / 'replay.json'}",
                  highlight=False)
    report_faults(result.faults, strict, model_errors(seats))


def prepare(desc: GameDescriptor, variant: str | None, seed: int | None,
            names: list[str] | None, options: ModelOptions, given: dict[str, Any]
            ) -> tuple[GameDescriptor, Any, list[Any]]:
    """`api.prepare`; when the variant's own line-up no longer fits (``--num-players 3``),
    the error says so: the user gave no --seats to blame."""
    try:
        return api.prepare(desc, names, variant=variant, seed=seed, model=options, **given)
    except ConfigError as exc:
        if names is not None or exc.field != "seats":
            raise
        line_up = variant or desc.default_variant or "default"
        raise ConfigError("seats", f"{exc}: that is the {line_up} variant's line-up; pass "
                                   "--seats") from None


def check_out(out: Path, overwrite: bool) -> None:
    """Refuse, before playing, an --out that holds a run (unless --overwrite) or that cannot
    be a folder we write to."""
    if out.exists() and not out.is_dir():
        fail(f"--out {out} is a file, not a folder")
    if not overwrite and ((out / "results.json").exists() or (out / "replay.json").exists()):
        fail(f"--out {out} already holds a run (results.json/replay.json): choose another "
             "folder or pass --overwrite")
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not os.access(probe, os.W_OK):
        fail(f"--out {out}: {probe} is not writable")


def unique_folder(base: Path) -> Path:
    """`base`, or `base-2`, `base-3`… — a default run folder never overwrites an earlier run."""
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def model_errors(seats: list[Any]) -> list[str]:
    """``seat N CAUSE: ERROR`` for the first error behind each model seat's transport,
    disabled or rate_budget fallbacks (`models.errors`): the count alone says nothing of why."""
    if not api.has_model_seats(seats):
        return []
    from cogleague.seats.llm import accounting_for

    models = accounting_for(seats) or {}
    return [f"seat {seat} {cause}: {error}"
            for seat, errors in enumerate(models.get("errors", []))
            for cause, error in errors.items()]


def report_faults(section: dict[str, Any], strict: bool, errors: list[str] | None = None
                  ) -> None:
    """The one-line fault summary (each bot's first exception, once, and each model seat's
    first provider error per cause) on stderr; with --strict any fallback is exit 1."""
    line = summary_line(section)
    if line is None:
        return
    err_console.print(f"[yellow]{line}[/]", highlight=False, soft_wrap=True)
    for error in [*first_errors(section), *(errors or [])]:
        err_console.print(error, highlight=False, soft_wrap=True, markup=False)
    if strict:
        err_console.print(f"[bold red]--strict:[/] {strict_reason(section)} (exit 1)",
                          highlight=False)
        raise typer.Exit(1)


def strict_reason(section: dict[str, Any]) -> str:
    """What `--strict` refused: a decision that fell back, or only a reply read in part (a
    ``wrong_shape`` fault: a field dropped, the seat's move stood)."""
    causes = {cause for row in section["seats"] for cause, n in row["fallbacks"].items() if n}
    if causes == {WRONG_SHAPE}:
        return "a reply was read only in part (a field dropped; the move stood)"
    return "a decision fell back"


def print_results(desc: GameDescriptor, game: Any, results: dict[str, Any]) -> None:
    """One row per seat, best score first (equal scores share a rank), then the game's own
    summary lines. Names are cut to fit the terminal (80 columns or more), never numbers."""
    scores = list(results["scores"])
    aliases = list(getattr(game, "aliases", None) or [f"seat {i}" for i in range(len(scores))])
    order = sorted(range(len(scores)), key=lambda seat: (-scores[seat], seat))
    rows = [[str(1 + sum(score > scores[s] for score in scores)), aliases[s],
             game.policy_names[s], desc.score_fmt.format(scores[s]),
             *(c.render(per_seat(results, c.key, s)) for c in desc.result_columns)]
            for s in order]
    headers = ["#", "alias", "policy", desc.score_label, *(c.label for c in desc.result_columns)]
    fit_names(rows, headers, console.width)
    table = RichTable(title=f"{desc.title} results ({results.get('reason')})")
    for i, column in enumerate(headers):
        table.add_column(column, justify="left" if i in (1, 2) else "right", no_wrap=True,
                         min_width=max(len(column), *(len(r[i]) for r in rows)))
    for row in rows:
        table.add_row(*row)
    console.print(table)
    for line in desc.summary(game, results) if desc.summary else []:
        console.print(line, highlight=False)


def fit_names(rows: list[list[str]], headers: list[str], width: int) -> None:
    """Shorten the alias (column 1) and policy (column 2) cells in place so that the table,
    with rich's borders (3 characters a column, plus 1), fits `width`."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    spare = width - (sum(widths) + 3 * len(widths) + 1)
    for col in (2, 1):  # policy names first: they are the long ones
        if spare >= 0:
            return
        keep = max(len(headers[col]), 6, widths[col] + spare)
        spare += widths[col] - keep
        widths[col] = keep
        for row in rows:
            if len(row[col]) > keep:
                row[col] = row[col][:keep - 1] + "…"
