"""A throwaway PostgreSQL cluster for tests (server store, league store), on loopback.

Debian's `postgresql` binaries are used directly (initdb + pg_ctl in a temp dir, a free port,
fsync off). Without them the tests skip with a reason — except under CI=true, where `.ci/run`
installs them and a missing binary is a failure. Registered for every test directory by
`tests/conftest.py`.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.net import free_port


def _pg_bindir() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return str(Path(found[-1]).parent)
    initdb = shutil.which("initdb")
    return str(Path(initdb).parent) if initdb else None


PORT_TRIES = 5
"""Ports tried when the one chosen was taken before PostgreSQL bound it."""


class PgCluster:
    """A throwaway PostgreSQL cluster in a temp dir, on a free loopback port."""

    def __init__(self, bindir: str) -> None:
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="cogleague-pg-"))
        self.port = 0  # chosen at `start`
        self.as_postgres = os.geteuid() == 0  # initdb refuses to run as root
        self._n = 0

    def _run(self, *args: str) -> None:
        cmd = [str(Path(self.bindir) / args[0]), *args[1:]]
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=180)

    def start(self) -> PgCluster:
        if self.as_postgres:
            shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        self._run("initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync",
                  "-E", "UTF8")
        for attempt in range(PORT_TRIES):
            # chosen just before the bind, and chosen again if something took it meanwhile
            # (another xdist worker's server or cluster, an outgoing connection's local port)
            self.port = free_port()
            log = self.dir / f"pg{attempt}.log"
            try:
                self._run("pg_ctl", "-D", str(data), "-l", str(log), "-w", "-t", "120",
                          "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                                "-c fsync=off -c max_connections=200", "start")
                return self
            except subprocess.CalledProcessError:
                text = log.read_text(errors="replace") if log.exists() else ""
                if "could not bind" not in text or attempt == PORT_TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def new_database(self) -> str:
        import psycopg

        self._n += 1
        name = f"cl{self._n}_{int(time.time() * 1000) % 10**8}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    bindir = _pg_bindir()
    if bindir is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL binaries (initdb, pg_ctl) are missing; .ci/run installs "
                        "Debian's postgresql")
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found under "
                    "/usr/lib/postgresql/*/bin: apt-get install postgresql to run these tests")
    cluster = PgCluster(bindir).start()
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database of each backend: an SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'server.db'}"
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    return cluster.new_database()


