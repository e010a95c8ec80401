"""A bad server setting is refused when Settings are made, naming the field and its range —
from code, from `cogleague serve`'s options, its `--config` file and `COGLEAGUE_SERVE_*`
variables — before a port is bound or a database file is made; never taken silently."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogleague.core.errors import ConfigError
from cogleague.server.app import create_app
from cogleague.server.settings import WS_PING_MAX_S, Settings
from helpers.serving import start_serve, stop
from server.test_cli import COGLEAGUE, wait_up

ROOT = Path(__file__).resolve().parents[2]

BAD: list[tuple[dict[str, Any], str, str]] = [
    # (fields, the field named, a piece of the allowed range)
    ({"start_timeout_s": -1.0}, "start_timeout_s", "above 0"),
    ({"body_timeout_s": 0}, "body_timeout_s", "above 0"),
    ({"ping_interval_s": float("nan")}, "ping_interval_s", "above 0"),
    ({"sign_in_window_s": 0.0}, "sign_in_window_s", "above 0"),
    ({"lease_ttl_s": 1.0, "lease_renew_s": 1.0}, "lease_ttl_s", "above lease_renew_s"),
    ({"lease_ttl_s": 0.5}, "lease_ttl_s", "above lease_renew_s"),
    ({"lease_renew_s": -0.5}, "lease_renew_s", "above 0"),
    ({"max_start_timeout_s": 60.0}, "max_start_timeout_s", "start_timeout_s"),
    ({"max_open_tables_per_account": 0}, "max_open_tables_per_account", "1 or more"),
    ({"max_connections": -5}, "max_connections", "1 or more"),
    ({"move_burst": 2.5}, "move_burst", "integer"),
    ({"max_body_bytes": True}, "max_body_bytes", "integer"),
    ({"outbox_max_bytes": 0}, "outbox_max_bytes", "1 or more"),
    ({"max_frame_bytes": 64 * 1024 * 1024}, "max_frame_bytes", "1..4194304"),
    ({"max_connections_per_client": 9000}, "max_connections_per_client", "max_connections"),
    ({"moves_per_second": "50"}, "moves_per_second", "above 0"),
    ({"session_sweep_every_s": -1.0}, "session_sweep_every_s", "0 or more"),
    ({"tune_gc": "no"}, "tune_gc", "true or false"),
    ({"sqlite_synchronous": "SOMETIMES"}, "sqlite_synchronous", "NORMAL"),
    ({"model_recording_mode": "rec"}, "model_recording_mode", "replay_or_live"),
    ({"node_url": "http://127.0.0.1:70000"}, "node_url", "1..65535"),
    ({"node_url": "127.0.0.1:8000"}, "node_url", "http://HOST:PORT"),
]


@pytest.mark.parametrize(("fields", "named", "allowed"), BAD)
def test_code_gets_a_config_error_naming_the_field(fields: dict[str, Any], named: str,
                                                   allowed: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings(**fields)
    assert caught.value.field == named
    assert str(caught.value).startswith(f"{named} must be"), str(caught.value)
    assert allowed in str(caught.value) and "got" in str(caught.value)


def test_a_field_assigned_after_making_is_checked_before_the_database(tmp_path: Path) -> None:
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'server.db'}")
    settings.lease_renew_s = 10.0  # now above the lease's 5 s time to live
    with pytest.raises(ConfigError, match="lease_ttl_s must be a number above lease_renew_s"):
        create_app(settings)
    assert not (tmp_path / "server.db").exists(), "nothing may be stored on a bad setting"


def test_the_short_leases_tests_use_stay_legal() -> None:
    """Tests force lapses with short times; the rule is positivity and ttl > renew only."""
    for ttl, renew in ((0.5, 0.2), (1.0, 0.2), (1.5, 0.3), (3.0, 0.5)):
        assert Settings(lease_ttl_s=ttl, lease_renew_s=renew).lease_ttl_s == ttl
    assert Settings(session_sweep_every_s=0.0).session_sweep_every_s == 0.0
    assert Settings(ping_interval_s=0.5, key_recheck_s=1.0, header_timeout_s=2.0).ping_interval_s


TIMES_AND_COUNTS = ("start_timeout_s", "ping_interval_s", "moves_per_second", "sign_in_window_s",
                    "sign_up_window_s", "key_recheck_s", "lease_renew_s", "header_timeout_s",
                    "body_timeout_s", "ws_ping_interval_s", "ws_ping_timeout_s", "move_burst",
                    "max_frame_bytes", "max_open_tables_per_account", "sign_in_failures",
                    "sign_ins_per_client", "sign_ups_per_client", "max_connections",
                    "max_body_bytes", "outbox_max_bytes")


@given(st.sampled_from(TIMES_AND_COUNTS), st.integers(-10**6, 0))
def test_no_count_or_time_may_be_zero_or_negative(name: str, value: int) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings(**{name: value})
    assert str(caught.value).startswith(name)


def _serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("COGLEAGUE_SERVE_")}
    done = subprocess.run([*COGLEAGUE, "serve", "--port", "0", "--db",
                           f"sqlite:///{tmp_path / 'server.db'}", "--log-level", "warning",
                           *args], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          env={**full, "COLUMNS": "300", **(env or {})})
    assert done.returncode == 2, (args, env, done.stdout, done.stderr)
    assert done.stdout == "", done.stdout  # neither "serving on" nor an operator key
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "server.db").exists(), "a refused start must store nothing"
    return done


CLI_BAD: list[tuple[list[str], dict[str, str], str, str]] = [
    # (arguments, environment, config file text, the one line's expected piece)
    (["--port", "70000"], {}, "", "--port must be an integer in 0..65535 (got 70000)"),
    (["--node-url", "http://h:99999"], {}, "",
     "--node-url: node_url must be http://HOST:PORT with a port in 1..65535"),
    ([], {"COGLEAGUE_SERVE_LEASE_TTL_S": "0.5"}, "",
     "lease_ttl_s must be a number above lease_renew_s (1) (got 0.5): lease_ttl_s from "
     "COGLEAGUE_SERVE_LEASE_TTL_S, lease_renew_s from its default"),
    ([], {"COGLEAGUE_SERVE_HEADER_TIMEOUT_S": "-3"}, "",
     "COGLEAGUE_SERVE_HEADER_TIMEOUT_S: header_timeout_s must be a number above 0 (got -3.0)"),
    ([], {"COGLEAGUE_SERVE_MAX_CONNECTIONS": "lots"}, "",
     "COGLEAGUE_SERVE_MAX_CONNECTIONS: max_connections must be an integer of 1 or more "
     "(got 'lots')"),
    ([], {"COGLEAGUE_SERVE_TUNE_GC": "maybe"}, "",
     "COGLEAGUE_SERVE_TUNE_GC: tune_gc must be true or false (got 'maybe')"),
    ([], {"COGLEAGUE_SERVE_LEASE_TTL": "3"}, "", "COGLEAGUE_SERVE_LEASE_TTL is not a server "
                                                  "setting"),
    (["--config", "CFG"], {}, "sign_in_window_s = 0\n",
     "sign_in_window_s must be a number above 0 (got 0)"),
    (["--config", "CFG"], {}, 'move_burst = "100"\n',
     "move_burst must be an integer of 1 or more (got '100')"),
    (["--config", "CFG"], {}, "max_open_tables_per_account = -1\n",
     "max_open_tables_per_account must be an integer of 1 or more (got -1)"),
    (["--config", "CFG"], {}, "outbox_max_bytes = 0\n",
     "outbox_max_bytes must be an integer of 1 or more (got 0)"),
    (["--config", "CFG"], {}, "lease_renew_s = 0.5\nlease_ttl_s = 0.5\n",
     "lease_ttl_s must be a number above lease_renew_s (0.5) (got 0.5): lease_ttl_s from CFG, "
     "lease_renew_s from CFG"),
    # a clash of two fields names where each value came from
    (["--config", "CFG"], {}, "lease_renew_s = 10\n",
     "lease_ttl_s must be a number above lease_renew_s (10) (got 5.0): lease_ttl_s from its "
     "default, lease_renew_s from CFG"),
    (["--config", "CFG"], {"COGLEAGUE_SERVE_LEASE_RENEW_S": "4"}, "lease_ttl_s = 3\n",
     "lease_ttl_s must be a number above lease_renew_s (4) (got 3): lease_ttl_s from CFG, "
     "lease_renew_s from COGLEAGUE_SERVE_LEASE_RENEW_S"),
    ([], {"COGLEAGUE_SERVE_START_TIMEOUT_S": "999999999"}, "",
     "max_start_timeout_s must be a number of start_timeout_s (1e+09) or more (got 604800.0): "
     "max_start_timeout_s from its default, start_timeout_s from "
     "COGLEAGUE_SERVE_START_TIMEOUT_S"),
    (["--config", "CFG"], {"COGLEAGUE_SERVE_MAX_CONNECTIONS": "5"},
     "max_connections_per_client = 10\n",
     "max_connections_per_client must be an integer in 1..max_connections (5) (got 10): "
     "max_connections_per_client from CFG, max_connections from COGLEAGUE_SERVE_MAX_CONNECTIONS"),
    (["--config", "CFG"], {}, "lease_tll_s = 3\n", "lease_tll_s is not a server setting"),
    # a file path or another database is named as such, not as SQLAlchemy's parse failure
    (["--db", "/tmp/cogleague-plain-path.db"], {}, "",
     "--db: db_url must be sqlite:///FILE or postgresql://USER@HOST/DATABASE (got "
     "'/tmp/cogleague-plain-path.db')"),
    (["--db", "mysql://u@h/d"], {}, "",
     "--db: db_url must be sqlite:///FILE or postgresql://USER@HOST/DATABASE (got "
     "'mysql://u@h/d')"),
    (["--db", "sqlite://"], {}, "",
     "--db: db_url must name an SQLite file (sqlite:///FILE): an in-memory database is not "
     "shared by the server's connections and keeps nothing (got 'sqlite://')"),
    (["--db", "sqlite:///:memory:"], {}, "",
     "--db: db_url must name an SQLite file (sqlite:///FILE): an in-memory database is not "
     "shared by the server's connections and keeps nothing (got 'sqlite:///:memory:')"),
    (["--db", "sqlite:////no-such-folder-cogleague/x.db"], {}, "",
     "the folder /no-such-folder-cogleague of the SQLite database "
     "/no-such-folder-cogleague/x.db does not exist"),
    (["--config", "CFG"], {}, "lease_ttl_s = [\n", "is not TOML"),
    (["--config", "CFG"], {"COGLEAGUE_SERVE_BODY_TIMEOUT_S": "0"}, "body_timeout_s = 30\n",
     "COGLEAGUE_SERVE_BODY_TIMEOUT_S: body_timeout_s must be a number above 0"),
]


@pytest.mark.parametrize(("args", "env", "config", "expected"), CLI_BAD)
def test_serve_refuses_a_bad_setting_in_one_line(tmp_path: Path, args: list[str],
                                                  env: dict[str, str], config: str,
                                                  expected: str) -> None:
    cfg = tmp_path / "server.toml"
    cfg.write_text(config)
    done = _serve(tmp_path, *[str(cfg) if a == "CFG" else a for a in args], env=env)
    assert done.stderr.startswith("error: "), done.stderr
    assert expected.replace("CFG", str(cfg)) in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_serve_takes_its_limits_from_the_file_and_the_environment(tmp_path: Path) -> None:
    """The file's and the variables' values are the server's (the variable wins)."""
    cfg = tmp_path / "server.toml"
    cfg.write_text("max_body_bytes = 100000\nlease_ttl_s = 4.0\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGLEAGUE_SERVE_")}
    proc, port = start_serve([*COGLEAGUE, "serve", "--port", "0", "--db",
                              f"sqlite:///{tmp_path / 'server.db'}", "--log-level", "warning",
                              "--config", str(cfg)], tmp_path / "serve.log", cwd=ROOT,
                             env={**env, "COGLEAGUE_SERVE_MAX_BODY_BYTES": "300"})
    try:
        wait_up(port)
        r = httpx.post(f"http://127.0.0.1:{port}/accounts", content=b"x" * 400,
                       headers={"content-type": "application/json"})
        assert r.status_code == 413, r.text
        assert "300" in r.json()["error"]["message"], r.text
    finally:
        stop(proc)


@pytest.mark.parametrize("name", ["ws_ping_interval_s", "ws_ping_timeout_s"])
def test_the_websocket_pings_have_a_top_so_a_dead_peer_is_let_go_in_bounded_time(
        name: str) -> None:
    # their sum bounds how long a silently dead socket is held (`test_dead_sockets.py`)
    assert getattr(Settings(**{name: WS_PING_MAX_S}), name) == WS_PING_MAX_S
    with pytest.raises(ConfigError) as caught:
        Settings(**{name: WS_PING_MAX_S + 1})
    assert str(caught.value) == (f"{name} must be a number above 0 and at most "
                                 f"{WS_PING_MAX_S:g} (got {WS_PING_MAX_S + 1!r})")
