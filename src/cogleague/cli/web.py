"""`cogleague replay open FILE`: watch a replay in the browser (served on loopback)."""

from __future__ import annotations

from pathlib import Path

import typer

from cogleague.cli.common import fail, int_in
from cogleague.cli.replay_cmd import refuse_results_file, replay_app, replay_file


@replay_app.command("open")
def open_replay(
    file: Path = typer.Argument(..., help="a replay.json written by cogleague, or its run "
                                          "folder"),
    host: str = typer.Option("127.0.0.1", "--host", help="loopback address to listen on"),
    port: int = typer.Option(0, "--port", help="port (0..65535; 0: any free port)",
                             parser=int_in("--port", 0, 65535)),
    no_browser: bool = typer.Option(False, "--no-browser", help="only print the URL"),
) -> None:
    """Serve the Theater for FILE (or a run folder's replay.json) on loopback and print its
    URL (Ctrl-C stops)."""
    from cogleague.web.replay_server import check_loopback, check_replay, serve

    file = replay_file(file)
    refuse_results_file(file)
    try:
        check_loopback(host)
        check_replay(file)
    except ValueError as exc:
        fail(str(exc))
    try:
        serve(file, host, port, open_browser=not no_browser,
              announce=lambda url: print(f"Theater: {url}", flush=True))
    except OSError as exc:
        fail(f"--port {port} cannot be used on {host}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        pass
