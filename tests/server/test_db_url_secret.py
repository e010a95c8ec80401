"""The database URL's password never reaches the server's log (the line that says a new
database gets its schema names the database, with the password masked)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from cogleague.server.app import create_app
from cogleague.server.settings import Settings

pytestmark = pytest.mark.postgres


def test_a_new_databases_log_line_masks_the_password(
        pg_cluster: Any, caplog: pytest.LogCaptureFixture) -> None:
    url = pg_cluster.new_database().replace("postgres@", "postgres:hunter2-secret@", 1)
    with caplog.at_level(logging.INFO, logger="cogleague.server"):
        app = create_app(Settings(db_url=url, operator_key="operator-key-for-url-tests"))
    app.state.store.close()
    lines = [r.getMessage() for r in caplog.records]
    assert any("creating the schema" in line for line in lines), lines
    assert not any("hunter2-secret" in line for line in lines), lines
