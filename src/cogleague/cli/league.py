"""`cogleague league init | run | standings | report` — the league from the command line."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from cogleague.cli import app
from cogleague.cli.common import console, fail, int_in, int_option
from cogleague.core.errors import ConfigError
from cogleague.league.rankings.ranks import LEVEL_NOTE, RESAMPLES_MAX, RESAMPLES_MIN

league_app = typer.Typer(no_args_is_help=True,
                         help="Run many episodes between policies and rank them.")
app.add_typer(league_app, name="league")

FileArg = Annotated[Path, typer.Argument(help="the league's TOML file")]
StoreOpt = Annotated[str | None, typer.Option(
    "--store", help="database URL (overrides league.store), e.g. postgresql+psycopg://…")]
ServerOpt = Annotated[bool, typer.Option(
    "--with-server", help="also rank tables the server recorded into the same store")]


class RateColumn(ProgressColumn):
    """Episodes per second over the run so far."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        rate = task.completed / elapsed if elapsed > 0 else 0.0
        return Text(f"{rate:,.1f} ep/s", style="cyan")


def _load(file: Path, store: str | None) -> Any:
    from cogleague.league import config

    try:
        return config.load(file, store_url=store)
    except ConfigError as exc:
        fail(str(exc))


@contextlib.contextmanager
def _store_errors(url: str) -> Iterator[None]:
    """A store that cannot be opened or used (a database server down or mistyped, a file
    that cannot be written) is one line naming it, password hidden, never a traceback; what
    was stored before stays stored."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import InterfaceError, OperationalError

    try:
        yield
    except (OperationalError, InterfaceError) as exc:
        why = str(exc.orig or exc).strip().splitlines()[0]
        shown = make_url(url).render_as_string(hide_password=True)
        fail(f"store {shown} cannot be used: {why}")


@league_app.command("init")
def init(path: Annotated[Path, typer.Argument(help="where to write it")] = Path("league.toml"),
         force: Annotated[bool, typer.Option("--force", help="overwrite")] = False) -> None:
    """Write a commented example league of built-in policies."""
    if path.exists() and not force:
        fail(f"{path} already exists (use --force to overwrite)")
    from cogleague.league.example import example_league

    text = example_league()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:  # a directory, no permission
        fail(f"{path}: cannot write the league file there ({exc.strerror or exc})")
    console.print(escape(f"wrote {path} — next: cogleague league run {path}"))


def _workers(text: str | int) -> int:
    """`--workers`, in the range the runner takes (its module is loaded only to run)."""
    from cogleague.league.runner import WORKERS_MAX

    return int_option("--workers", text, 1, WORKERS_MAX)


def _chunk_size(text: str | int) -> int:
    """`--chunk-size`, in the range the runner takes."""
    from cogleague.league.runner import CHUNK_SIZE_MAX

    return int_option("--chunk-size", text, 1, CHUNK_SIZE_MAX)


@league_app.command("run")
def run(file: FileArg,
        backend: Annotated[str, typer.Option("--backend", help="local | ray")] = "local",
        workers: Annotated[int | None, typer.Option(
            "--workers", help="processes (local) or CPUs (ray), 1..1024; default: all cores",
            parser=_workers)] = None,
        ray_address: Annotated[str | None, typer.Option(
            "--ray-address", help="join a Ray cluster (e.g. ray://head:10001 or auto)")] = None,
        chunk_size: Annotated[int | None, typer.Option(
            "--chunk-size", help="episodes per task, 1..1000000 (default: automatic)",
            parser=_chunk_size)] = None,
        retry_infra: Annotated[bool, typer.Option(
            "--retry-infra", help="play again the episodes stored as infra_error")] = False,
        play_engine: Annotated[str, typer.Option(
            "--engine", help="auto | batch | rules: episodes of baselines with a batch twin "
                             "through the game's batch kernel (auto), all (batch) or none")
        ] = "auto",
        store: StoreOpt = None) -> None:
    """Play every episode not yet finished (resumable: run it again after an interruption)."""
    from cogleague.league import runner
    from cogleague.league.batch import ENGINES

    config = _load(file, store)
    if play_engine not in ENGINES:  # before anything is written to the store
        fail(f"--engine must be one of {', '.join(ENGINES)} (got {play_engine!r})")
    try:
        engine = runner.make_backend(
            backend, workers if workers is not None else os.cpu_count() or 1, ray_address)
    except ConfigError as exc:  # named as the option the user typed
        fail(str(exc.renamed(f"--{exc.field.replace('_', '-')}")))
    with _store_errors(config.store_url), contextlib.ExitStack() as held:
        try:  # from the first read: two runs started together never both make the store
            held.enter_context(runner.writer_lock(config.store_url, config.name))
        except ConfigError as exc:
            fail(str(exc))
        _play(file, config, engine, chunk_size, retry_infra, play_engine)


def _play(file: Path, config: Any, engine: Any, chunk_size: int | None, retry_infra: bool,
          play_engine: str) -> None:
    from cogleague.league import runner

    try:
        todo, scheduled = runner.pending(config, retry_infra=retry_infra)
    except ConfigError as exc:
        fail(str(exc))
    console.print(f"league [bold]{escape(config.name)}[/]: {scheduled} episodes scheduled, "
                  f"{scheduled - len(todo)} already finished, {len(todo)} to play on "
                  f"{engine.name} × {engine.workers}", soft_wrap=True)
    if not todo:
        console.print(escape("nothing to play: every episode is finished "
                             f"(next: cogleague league standings {file})"), soft_wrap=True)
        return
    with progress_bar(len(todo)) as update:
        try:
            summary = runner.run(config, engine, progress=update, chunk_size=chunk_size,
                                 retry_infra=retry_infra, engine=play_engine)
        except ConfigError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            console.print("interrupted — finished episodes are stored; run again to resume")
            raise typer.Exit(130) from None
    console.print(f"played {summary.played} episodes in {summary.seconds:.1f} s "
                  f"({summary.rate:.1f} ep/s); {summary.failed} failed"
                  + (" (stored, shown by `league standings`, excluded from rankings; "
                     "a new run retries them)" if summary.failed else ""))
    from cogleague.league.summary import fallback_text

    fell_back = fallback_text(dict(sorted(summary.fallbacks.items())))
    if fell_back:
        console.print(f"[yellow]{escape(fell_back)}[/]", soft_wrap=True)
    if summary.infra:
        console.print(f"[yellow]{summary.infra} episodes stored as infra_error[/]: a seat fell "
                      "back for a platform reason (transport, rate budget, disabled provider) "
                      "or a worker process died; excluded from rankings — rerun them with "
                      "--retry-infra", soft_wrap=True)
    if summary.played and summary.failed + summary.infra == summary.played:
        what = ("every episode failed" if not summary.infra else
                "every episode failed or hit a platform fault (`league run --retry-infra` "
                "plays the infra_error ones again)")
        console.print(f"[red]{escape(what)}[/]: nothing to rank; `league standings "
                      f"{escape(str(file))} --json` lists each failure's error", soft_wrap=True)
        raise typer.Exit(1)


@contextlib.contextmanager
def progress_bar(total: int, out: Console | None = None) -> Iterator[Callable[[int, int], None]]:
    """The run's bar, redrawn by the driver as each chunk is stored: no refresh thread, so the
    driver stays single-threaded and the local pool forks its workers (`backends/local.py`)."""
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               RateColumn(), TextColumn("{task.fields[failed]}"), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=out or console, auto_refresh=False) as progress:
        task = progress.add_task("episodes", total=total, failed="")

        def update(done: int, failed: int) -> None:
            progress.update(task, completed=done,
                            failed=f"[red]{failed} failed or infra_error[/]" if failed else "",
                            refresh=True)  # the summary then says which is which

        yield update


def _standings(file: Path, store: str | None, game: str | None, with_server: bool,
               resamples: int) -> dict[str, Any]:
    config = _load(file, store)
    with _store_errors(config.store_url):
        return _read_standings(file, config, store, game, with_server, resamples)


def _read_standings(file: Path, config: Any, store: str | None, game: str | None,
                    with_server: bool, resamples: int) -> dict[str, Any]:
    from cogleague.league.api import check_game, missing_store, standings_of
    from cogleague.league.store import SERVER_LEAGUE

    db = missing_store(config)
    if db is not None:  # read, never made: a mistyped --store says so
        fail(f"no finished episodes: no store at {db} (run: cogleague league run {file}"
             f"{' --store ' + store if store else ''})")
    if game is not None and not with_server:
        try:
            check_game(config, game, "--game")
        except ConfigError as exc:
            fail(str(exc))
    leagues = [config.name, SERVER_LEAGUE] if with_server else [config.name]
    try:  # the same document as `cogleague.league_standings`
        return standings_of(config, game=game, leagues=leagues, resamples=resamples)
    except ConfigError as exc:  # a league file edited in a way the store refuses
        fail(str(exc))


def _season_over(config: Any) -> bool:
    """The season ends when every scheduled episode is settled (held-out names show then): an
    ``infra_error`` episode is not, since ``league run --retry-infra`` plays it again."""
    from cogleague.league.api import season_over

    try:
        return season_over(config)
    except ConfigError as exc:
        fail(str(exc))


def _num(value: float | None, fmt: str = "{:.2f}") -> str:
    return "—" if value is None else fmt.format(value)


def _interval(row: dict[str, Any], key: str) -> str:
    from cogleague.league.summary import two

    if row["low"] is None:
        return f"{two(row[key])} (one episode: no interval)"
    return f"{two(row[key])} [{two(row['low'])}, {two(row['high'])}]"


TABLE_WIDTH = 132
"""Standings tables are wide; piped output (80 columns by default) would fold every cell."""


def _print_standings(doc: dict[str, Any]) -> None:
    from cogleague.league import summary

    out = console if console.is_terminal else Console(width=TABLE_WIDTH, emoji=False)
    for table in doc["tables"]:
        title = (f"{table['game']} · {table['variant'] or 'default'} — {table['statistic']}, "
                 f"{table['episodes']} episodes, 95% bootstrap interval")
        t = Table(title=title, title_justify="left")
        t.add_column("rank", no_wrap=True)
        t.add_column("policy", no_wrap=True)
        t.add_column("author")
        t.add_column("games", justify="right")
        t.add_column("mean [95% CI]", no_wrap=True)
        for col in table["columns"]:
            t.add_column(col["label"], justify="right")
        for row in table["rows"]:
            extras = [_num(row["extras"].get(c["key"]),
                           "{:.0%}" if c["format"] == "percent" else "{:.2f}")
                      for c in table["columns"]]
            t.add_row(row["rank_label"], escape(row["policy"]), escape(row["author"]),
                      str(row["games"]),
                      _interval(row, "mean"), *extras)
        out.print(t)
        fell_back = summary.fallback_line(table)
        if fell_back:
            out.print(f"[yellow]{escape(fell_back)}[/]", soft_wrap=True)
    overall = doc["overall"]
    bt = overall["bradley_terry"]
    t = Table(title=f"all games — Bradley–Terry on {bt['matches']} within-episode pairs "
                    f"({bt['episodes']} episodes), 95% bootstrap interval", title_justify="left")
    for col in ("rank", "policy", "strength [95% CI]"):
        t.add_column(col, no_wrap=True)
    for row in bt["rows"]:
        t.add_row(row["rank_label"], escape(row["policy"]), _interval(row, "strength"))
    out.print(t)
    t = Table(title="all games — OpenSkill (Plackett–Luce), mu ± 1.96 sigma",
              title_justify="left")
    for col in ("rank", "policy", "mu", "sigma", "ordinal"):
        t.add_column(col)
    for row in overall["openskill"]["rows"]:
        t.add_row(row["rank_label"], escape(row["policy"]), f"{row['mu']:.2f}",
                  f"{row['sigma']:.2f}",
                  f"{row['ordinal']:.2f}")
    out.print(t)
    for extra in [*summary.held_out_tables(doc), summary.cost_table(doc)]:
        if extra is not None:
            out.print(extra)
    line = summary.held_out_line(doc)
    if line:
        out.print(line, highlight=False)
    if any(r["rank_label"].startswith("level") for table in doc["tables"] for r in table["rows"]):
        out.print(LEVEL_NOTE, highlight=False)
    failures = doc["failures"]
    if failures:
        out.print(f"[red]{len(failures)} episodes failed or hit platform faults "
                      "(excluded from the rankings; `league run` retries failed ones, "
                      "`league run --retry-infra` the infra_error ones):[/]")
        for f in failures[:10]:
            first_line = (f["error"] or "").splitlines()[0] if f["error"] else ""
            out.print(f"  {f['id']} [{f['status']}] {f['game']}/{f['variant'] or 'default'} "
                      f"seed {f['seed']} {','.join(f['lineup'])}: {first_line}",
                      highlight=False, markup=False)
        if len(failures) > 10:
            out.print(f"  … and {len(failures) - 10} more")


@league_app.command("standings")
def standings(file: FileArg, game: Annotated[str | None, typer.Option(
                  "--game", help="one game only")] = None,
              as_json: Annotated[bool, typer.Option("--json", help="print the JSON document")]
              = False, with_server: ServerOpt = False, store: StoreOpt = None,
              resamples: Annotated[int, typer.Option(
                  "--resamples", help=f"bootstrap resamples ({RESAMPLES_MIN}.."
                                      f"{RESAMPLES_MAX})",
                  parser=int_in("--resamples", RESAMPLES_MIN, RESAMPLES_MAX))] = 2000) -> None:
    """Rank the league's policies per game and variant, and across games."""
    doc = _standings(file, store, game, with_server, resamples)
    if as_json:
        typer.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    if not doc["tables"] and not doc["failures"]:
        fail(f"no finished episodes in the store for this league yet (run: cogleague league "
             f"run {file})")
    _print_standings(doc)


@league_app.command("report")
def report(file: FileArg, out: Annotated[Path, typer.Option("--out", help="output directory")],
           with_server: ServerOpt = False, store: StoreOpt = None) -> None:
    """Write PNG plots and one HTML page with the standings."""
    from cogleague.league import report as report_mod
    from cogleague.league import store as store_mod

    doc = _standings(file, store, None, with_server, 2000)
    if not doc["tables"] and not doc["failures"]:  # failures only: a page that lists them
        fail(f"no finished episodes in the store for this league yet (run: cogleague league "
             f"run {file})")
    config = _load(file, store)
    from cogleague.league.profiles import league_profiles

    with _store_errors(config.store_url):
        episodes = store_mod.load_episodes(config.store_url, leagues=doc["leagues"],
                                           status=store_mod.STATUS_OK)
        profiles = league_profiles(config, reveal_held_out=_season_over(config))
    try:
        page = report_mod.write_report(doc, episodes, out, title=f"League {config.name}",
                                       profiles=profiles)
    except OSError as exc:
        fail(f"--out {out}: cannot write the report there ({exc.strerror or exc})")
    console.print(escape(f"wrote {page}"))
