"""The operator key across restarts: a start with another `--operator-key` replaces the stored
one (docs/deploy.md), and says so in the log — a typo on one of several processes would
otherwise retire the key every other process and script uses, without a word."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from cogleague.server.app import bootstrap
from cogleague.server.store import Store


def test_a_new_operator_key_is_logged_and_the_same_one_is_not(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture
                                                              ) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        with caplog.at_level(logging.INFO, logger="cogleague.server"):
            bootstrap(store, "first-operator-key-123456")
            bootstrap(store, "first-operator-key-123456")
            assert not [r for r in caplog.records if "operator key" in r.getMessage()]
            bootstrap(store, "second-operator-key-123456")
    finally:
        store.close()
    replaced = [r for r in caplog.records if "operator key" in r.getMessage()]
    assert len(replaced) == 1 and replaced[0].levelno == logging.WARNING
    assert "replaced" in replaced[0].getMessage()
    assert "second-operator-key" not in replaced[0].getMessage()  # never the key itself
