"""`cogleague serve`: the table server on uvicorn."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from cogleague.cli import app
from cogleague.cli.common import console, err_console, fail, int_in, int_option
from cogleague.cli.model_opts import MaxReplyTokensOpt
from cogleague.core.errors import ConfigError
from cogleague.core.model_limits import PROVIDERS
from cogleague.core.settlement import BPS

# uvicorn's level names (`uvicorn.config.LOG_LEVELS`; importing uvicorn would slow `--help`).
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


@app.command("serve")
def serve(
    host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
    port_text: Annotated[str, typer.Option(
        "--port", metavar="<int>", help="TCP port (0..65535; 0: any free one)")] = "8000",
    db: Annotated[str | None, typer.Option(help="database URL: sqlite:///FILE (default "
                                                "cogleague-server.db) or postgresql://…")] = None,
    operator_key: Annotated[str | None, typer.Option(
        "--operator-key", envvar="COGLEAGUE_OPERATOR_KEY",
        help="the operator's API key (generated and printed at the first start when not "
             "given); the variable keeps it out of the process list")] = None,
    open_registration: Annotated[bool, typer.Option(
        help="let anyone create an account without the operator key")] = False,
    web_signup: Annotated[bool, typer.Option(
        "--web-signup/--no-web-signup",
        help="let people sign themselves up with a password at /signup")] = True,
    log_level: Annotated[str, typer.Option(help="uvicorn log level: " + " | ".join(LOG_LEVELS))
                         ] = "info",
    record_models: Annotated[str | None, typer.Option(
        "--record-models", help="record every model seat's calls here (one file per table)")
                             ] = None,
    replay_models: Annotated[str | None, typer.Option(
        "--replay-models", help="answer model seats from this recording (no provider)")
                             ] = None,
    node_url: Annotated[str | None, typer.Option(
        help="this process's own address as the other server processes on the same "
             "PostgreSQL reach it (default http://HOST:PORT); seats are redirected there "
             "(docs/deploy.md)")] = None,
    create_db: Annotated[bool, typer.Option(
        "--create-db", help="start a new database in an existing but empty one (a zero-byte "
                            "file, tables without data); without it such a database is "
                            "refused")] = False,
    policy_dir: Annotated[str | None, typer.Option(
        "--policy-dir", help="a folder of trained policy files (.npz) the operator may seat "
                             "at tables (join kind policy)")] = None,
    model_provider: Annotated[str | None, typer.Option(
        "--model-provider", help="openai | anthropic: the provider llm seats and season model "
                                 "agents play through (its key from OPENAI_API_KEY / "
                                 "ANTHROPIC_API_KEY); without it they play the game's "
                                 "baseline")] = None,
    model_name: Annotated[str | None, typer.Option(
        "--model", help="the model of llm seats that name none (and of model agents when the "
                        "season lists no models)")] = None,
    model_base_url: Annotated[str | None, typer.Option(
        "--model-base-url", help="an OpenAI-compatible endpoint (a local server such as "
                                 "Ollama)")] = None,
    max_reply_tokens: MaxReplyTokensOpt = None,
    rake_bps: Annotated[int | None, typer.Option(
        "--rake-bps", help="the house's rake on paid tables, in basis points of the pot "
                           f"(0..{BPS}; a game refuses more than its own maximum): players' "
                           "tables take it and may not set another (default: each game's "
                           "own, the dilemma's 500)", show_default=False,
        parser=int_in("--rake-bps", 0, BPS))] = None,
    season: Annotated[str | None, typer.Option(
        "--season", help="a league file with a [season] table: run it as the standing "
                         "league agents join (docs/league.md)")] = None,
    config: Annotated[Path | None, typer.Option(
        "--config", envvar="COGLEAGUE_SERVE_CONFIG",
        help="a TOML file of server limits (Settings fields: timeouts, caps, windows, lease "
             "times); COGLEAGUE_SERVE_<FIELD> variables win over it (docs/deploy.md)")] = None,
) -> None:
    """Serve the HTTP lobby and WebSocket play for every installed game."""
    from cogleague.server import listen, serving
    from cogleague.server.app import create_app
    from cogleague.server.integrity import DatabaseRefused
    from cogleague.server.settings import DEFAULT_DB_URL
    from cogleague.server.settings_source import SettingsSourceError, build, read_sources
    from cogleague.server.sqlite_lock import DatabaseInUse

    if log_level not in LOG_LEVELS:
        fail(f"--log-level must be one of {', '.join(LOG_LEVELS)} (got {log_level!r})")
    if operator_key is not None and len(operator_key) < 16:
        fail(f"--operator-key must be at least 16 characters (got {len(operator_key)})")
    if record_models is not None and replay_models is not None:
        fail("--record-models and --replay-models exclude each other")
    for option, folder in (("--policy-dir", policy_dir), ("--record-models", record_models)):
        if folder is not None and Path(folder).exists() and not Path(folder).is_dir():
            fail(f"{option} {folder} is a file, not a folder")
    if replay_models is not None and not Path(replay_models).is_dir():
        fail(f"--replay-models {replay_models} is not a folder of recordings")
    port = int_option("--port", port_text, 0, 65535)
    if model_provider in PROVIDERS and model_base_url is None:
        from cogleague.seats.llm.providers import API_KEY_ENV

        if not os.environ.get(API_KEY_ENV[model_provider]):  # every model turn would fail
            fail(f"--model-provider {model_provider}: {API_KEY_ENV[model_provider]} is not "
                 "set (model seats need a key, or --model-base-url for a local "
                 "OpenAI-compatible server)")
    try:  # every value judged before a port is bound or a database opened
        tuned, origin = read_sources(config, os.environ)
        settings = build({**origin, "node_url": "--node-url", "db_url": "--db",
                          "rake_bps": "--rake-bps", "model_provider": "--model-provider",
                          "model_max_reply_tokens": "--max-reply-tokens"}, **tuned,
                         db_url=db or DEFAULT_DB_URL, operator_key=operator_key,
                         open_registration=open_registration, web_signup=web_signup,
                         model_recording=record_models or replay_models,
                         model_recording_mode="replay" if replay_models else "record",
                         model_provider=model_provider, model_name=model_name,
                         model_base_url=model_base_url,
                         model_max_reply_tokens=max_reply_tokens,
                         node_url=node_url, policy_dir=policy_dir, create_db=create_db,
                         season=season, rake_bps=rake_bps)
    except SettingsSourceError as exc:
        fail(str(exc))
    _check_model_endpoint(settings)
    try:  # bound first: a busy port is one line, and "serving on" comes once it listens
        sock = listen.bind(host, port)
    except listen.CannotListen as exc:
        fail(str(exc))
    port = listen.bound_port(sock)
    if node_url is None:
        settings = replace(settings, node_url=f"http://{host}:{port}")
        if host in ("0.0.0.0", "::", "") and not settings.db_url.startswith("sqlite"):
            err_console.print(  # other processes send seats to node_url: this one is nowhere
                f"warning: --node-url defaults to http://{host}:{port}, which bots on other "
                "hosts cannot reach when another process redirects a seat here; pass "
                "--node-url http://THIS_HOST:PORT (docs/deploy.md)", highlight=False,
                soft_wrap=True, markup=False)
    serving.install_logging(log_level)  # before create_app: its start-up lines show too
    try:
        application = create_app(settings)
    except (DatabaseInUse, DatabaseRefused) as exc:
        fail(str(exc))
    except ConfigError as exc:
        fail("--rake-bps" + str(exc).removeprefix("rake_bps") if exc.field == "rake_bps"
             else f"--season {season}: {exc}")
    except Exception as exc:  # an unreachable database, a bad URL
        fail(f"--db {settings.db_url!r} cannot be opened: {type(exc).__name__}: {exc}")
    generated = application.state.generated_operator_key
    if generated:
        console.print(f"operator key (shown once, keep it): {generated}", highlight=False,
                      soft_wrap=True)
    console.print(f"serving on http://{host}:{port}  (protocol: /protocol, API: /docs)",
                  highlight=False)
    serving.run(application, settings, sock, log_level)


SERVE_MODEL_OPTIONS = {"base_url": "--model-base-url", "model": "--model",
                       "provider": "--model-provider"}
"""The `serve` option behind each field a model endpoint's check can refuse."""


def _check_model_endpoint(settings: Any) -> None:
    """Every served model seat would fall back if its endpoint cannot serve: a base URL that
    is not the API's root, a model the server does not know or a refused key stops `serve`
    before it listens, naming the option. An endpoint that does not answer at all (a local
    model server started after this one) is a warning: the seats fall back until it does."""
    if settings.model_provider is None or settings.model_recording_mode == "replay":
        return
    from cogleague.seats.factory import ModelOptions
    from cogleague.seats.llm.preflight import ProviderUnreachable, check_provider

    try:
        check_provider(ModelOptions(provider=settings.model_provider, model=settings.model_name,
                                    base_url=settings.model_base_url))
    except ProviderUnreachable as exc:
        said = str(exc).replace("(--base-url)", "(--model-base-url)")
        err_console.print(f"warning: {said}: model seats play the game's baseline until it "
                          "answers", highlight=False, soft_wrap=True, markup=False)
    except ConfigError as exc:
        option = SERVE_MODEL_OPTIONS.get(exc.field, exc.field)
        fail(str(exc.renamed(option)) if str(exc).startswith(exc.field) else f"{option}: {exc}")
