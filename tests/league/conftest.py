"""Fixtures for league tests (league files come from `leaguefiles.py`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from leaguefiles import league_text


@pytest.fixture
def write_league(tmp_path: Path) -> Callable[..., Path]:
    def write(text: str | None = None, filename: str = "league.toml", **kwargs: object) -> Path:
        path = tmp_path / filename
        path.write_text(text if text is not None else league_text(**kwargs), encoding="utf-8")
        return path

    return write
