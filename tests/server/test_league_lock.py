"""`cogleague league run` takes the same one-writer lock as `cogleague serve`: pointed at the
SQLite file a running server writes, it stops with one clear line instead of writing beside
it; the server keeps serving."""

from __future__ import annotations

from pathlib import Path

import httpx
from typer.testing import CliRunner

from cogleague.cli import app
from server.support import ServerProcess


def test_league_run_refuses_a_file_a_server_is_writing(tmp_path: Path) -> None:
    league = tmp_path / "league.toml"
    assert CliRunner().invoke(app, ["league", "init", str(league)]).exit_code == 0
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    server = ServerProcess(db, tmp_path / "server.log").start()
    try:
        result = CliRunner().invoke(app, ["league", "run", str(league), "--store", db,
                                          "--workers", "1"])
        assert result.exit_code == 2, result.output
        assert "store: the SQLite database" in result.output
        assert f"already served by process {server.proc.pid}" in result.output  # type: ignore[union-attr]
        assert "played" not in result.output
        assert httpx.get(server.url + "/healthz").status_code == 200
    finally:
        server.stop()
