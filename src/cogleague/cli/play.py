"""`cogleague play GAME [options]`: one episode of any installed game, headless.

The command knows no game: `PlayGroup` lists the registry's games, and each game's command is
built from its descriptor — the variant choices, and one option per field of its config model
(`GameDescriptor.options`) with the field's type, range and help. After play it prints the
results table the descriptor's columns describe, and writes `results.json` and `replay.json`
to `--out` (default `runs/<game>-<variant>-<seed>/`).
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table as RichTable

from cogleague import api
from cogleague.cli.common import (
    console,
    err_console,
    fail,
    guarded,
    model_options,
    play_with_progress,
    print_model_costs,
    recording_params,
    replaying,
    split_seats,
    with_recording,
)
from cogleague.core.descriptor import GameDescriptor, per_seat
from cogleague.core.options import base_type, cli_name, field_choices, scalar_fields
from cogleague.core.rng import SEED_MAX
from cogleague.games import registry
from cogleague.seats.factory import ModelOptions
from cogleague.seats.faults import first_errors, summary_line
from cogleague.seats.llm.preflight import configured
from cogleague.seats.llm.pricing import load_prices

_COMMON = ("variant", "seed", "seats", "out", "model", "base_url", "provider", "transcript",
           "strict", "overwrite", "record", "replay", "replay_or_live", "prices")


def _param(name: str, annotation: Any, option: Any, default: Any = None) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[annotation, option])


def _option_params(desc: GameDescriptor) -> tuple[list[inspect.Parameter], dict[str, str]]:
    """One typer option per scalar field of the game's config model, and field → flag."""
    params: list[inspect.Parameter] = []
    flags: dict[str, str] = {}
    scalars = scalar_fields(desc.options)
    for field, info in desc.options.model_fields.items():
        kind = base_type(info.annotation)
        if field not in scalars or field in _COMMON:
            continue  # lists and nested objects: set them in a league file
        flag = cli_name(desc.options, field)
        choices = field_choices(desc.options, field)
        help_text = info.description or ""
        if choices:
            help_text += " (" + " | ".join(str(c) for c in choices) + ")"
        decls = [f"{flag}/--no-{flag[2:]}"] if kind is bool else [flag]
        params.append(_param(field, kind | None, typer.Option(*decls, help=help_text)))
        flags[field] = flag
    return params, flags


def _seats_help(desc: GameDescriptor) -> str:
    lo, hi = desc.seat_range
    count = str(lo) if lo == hi else f"{lo}..{hi}"
    return (f"{count} comma-separated policies: baselines ({', '.join(desc.baselines)}), "
            "llm[:PROMPT_FILE] or MODULE:CLASS (default: the variant's line-up)")


def register(app: typer.Typer, desc: GameDescriptor) -> None:
    """Add `cogleague play <game>` for one game, its options from the descriptor."""
    params, flags = _option_params(desc)
    common = [
        _param("variant", str | None, typer.Option(
            "--variant", help=" | ".join(desc.variants) + f" (default: {desc.default_variant})")),
        _param("seed", int | None, typer.Option(
            "--seed", help=f"0..{desc.rule_numbers.get('seed_max', SEED_MAX)} (default: random, "
                           "or the variant's)")),
        _param("seats", str | None, typer.Option("--seats", help=_seats_help(desc))),
        _param("out", Path | None, typer.Option("--out", help="directory for results.json and "
                                                              "replay.json")),
        _param("model", str | None, typer.Option("--model", help="model name for llm seats")),
        _param("base_url", str | None, typer.Option("--base-url", help="OpenAI-compatible "
                                                                       "endpoint")),
        _param("provider", str | None, typer.Option("--provider", help="openai | anthropic")),
        _param("transcript", str | None, typer.Option("--transcript", help="write model I/O "
                                                                           "JSONL")),
        _param("strict", bool, typer.Option("--strict", help="exit 1 if any decision fell "
                                                             "back"), False),
        _param("overwrite", bool, typer.Option("--overwrite", help="replace a run already in "
                                                                   "--out"), False),
        *recording_params(),
    ]

    def run(**kw: Any) -> None:
        given = {k: kw[k] for k in flags}
        variant = kw["variant"] if kw["variant"] is not None else desc.default_variant
        if variant is not None and variant not in desc.variants:
            fail(f"--variant must be one of {', '.join(desc.variants)} (got {variant!r})")
        options = with_recording(
            model_options(kw["model"], kw["base_url"], kw["provider"], kw["transcript"]),
            kw["record"], kw["replay"], kw["replay_or_live"])
        play_game(desc, variant, kw["seed"], split_seats(kw["seats"]), kw["out"], options,
                  given, flags, strict=bool(kw["strict"]), overwrite=bool(kw["overwrite"]),
                  prices=kw["prices"])

    run.__signature__ = inspect.Signature([*common, *params])  # type: ignore[attr-defined]
    run.__name__ = f"play_{desc.name}"
    run.__doc__ = f"Play one {desc.title} episode ({desc.version})."
    app.command(desc.name)(run)


def play_game(desc: GameDescriptor, variant: str | None, seed: int | None,
              names: list[str] | None, out: Path | None, options: ModelOptions,
              given: dict[str, Any], flags: dict[str, str], *, strict: bool = False,
              overwrite: bool = False, prices: Path | None = None) -> None:
    option_for = {**flags, "seed": "--seed", "seats": "--seats", "variant": "--variant",
                  "provider": "--provider", "model": "--model"}
    if out is not None:
        check_out(out, overwrite)
    _, game, seats = guarded(lambda: api.prepare(desc, names, variant=variant, seed=seed,
                                                 model=options, **given), option_for)
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
    report_faults(result.faults, strict)


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


def report_faults(section: dict[str, Any], strict: bool) -> None:
    """The one-line fault summary (and each bot's first exception, once) on stderr; with
    --strict any fallback is exit 1."""
    line = summary_line(section)
    if line is None:
        return
    err_console.print(f"[yellow]{line}[/]", highlight=False, soft_wrap=True)
    for error in first_errors(section):
        err_console.print(error, highlight=False, soft_wrap=True, markup=False)
    if strict:
        err_console.print("[bold red]--strict:[/] a decision fell back (exit 1)",
                          highlight=False)
        raise typer.Exit(1)


def print_results(desc: GameDescriptor, game: Any, results: dict[str, Any]) -> None:
    """One row per seat, best score first (equal scores share a rank), then the game's own
    summary lines."""
    scores = list(results["scores"])
    aliases = list(getattr(game, "aliases", None) or [f"seat {i}" for i in range(len(scores))])
    table = RichTable(title=f"{desc.title} results ({results.get('reason')})")
    widths = {"alias": max(map(len, aliases), default=5),
              "policy": max(map(len, game.policy_names), default=6)}
    for column in ("#", "alias", "policy", desc.score_label,
                   *(c.label for c in desc.result_columns)):
        text = column in widths
        table.add_column(column, justify="left" if text else "right", no_wrap=True,
                         min_width=widths.get(column))
    for s in sorted(range(len(scores)), key=lambda seat: (-scores[seat], seat)):
        rank = 1 + sum(score > scores[s] for score in scores)
        table.add_row(str(rank), aliases[s], game.policy_names[s],
                      desc.score_fmt.format(scores[s]),
                      *(c.render(per_seat(results, c.key, s)) for c in desc.result_columns))
    console.print(table)
    for line in desc.summary(game, results) if desc.summary else []:
        console.print(line, highlight=False)


play_app = typer.Typer(no_args_is_help=True,
                       help="Play one episode of an installed game (`cogleague games`).")
for _desc in registry.available():
    register(play_app, _desc)
