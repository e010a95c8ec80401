"""A standing season: the ``[season]`` table of a league file (`league/config.py`).

The same file an operator runs offline (`cogleague league run`) describes the season the table
server runs continuously (`cogleague serve --season FILE`): its ``[[games]]`` (games, variants,
overrides, seats) are what the matchmaker forms tables of, its baseline ``[[policies]]`` are
registered as operator baselines, and ``[season]`` adds what only a standing league has — a
table budget or an end time, the collusion guard, caps, the wait before baselines fill a
table, held-out agents and the frozen final evaluation. One config model, one store: the
server keeps the file's text with the season, so it can be rerun offline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cogleague.core.config import check_bool, check_int, check_number, check_str, reject_unknown
from cogleague.core.errors import ConfigError

SEASON_KEYS = ("tables", "hours", "same_account", "max_tables_per_hour", "fill_after_s",
               "max_running", "held_out", "final_top", "final_tables_per_pair", "pacing",
               "models", "token_budget", "refit_every_s")
TABLES_MAX = 10_000_000
TOKEN_BUDGET_MAX = 10**12


@dataclass(frozen=True)
class SeasonSettings:
    """What the matchmaker and the board read (docs/league.md lists each field)."""

    tables: int = 1000
    """Rated tables before registration closes (the final evaluation follows)."""
    hours: float | None = None
    """Or a duration: registration closes this long after the season started."""
    same_account: bool = False
    """Allow two agents of one account at a rated table (the collusion guard when false)."""
    max_tables_per_hour: int = 600
    fill_after_s: float = 30.0
    """A ready agent that waited this long for a table gets one filled with baselines; a game
    stuck this long on its fair share seats its free entrants at one table, then waits again."""
    max_running: int = 50
    """Season tables running at once, across every server process."""
    held_out: tuple[str, ...] = ()
    """Agent names rated and matched but not shown on the board until the season ends."""
    final_top: int = 0
    """The top K agents per game play the final evaluation (0: no final evaluation)."""
    final_tables_per_pair: int = 1
    pacing: bool = True
    """Honour each game's minimum step time (false: as fast as the seats answer)."""
    models: tuple[str, ...] = ()
    """The models a ``model`` agent may name (the operator holds the keys)."""
    token_budget: int = 200_000
    """Model tokens a ``model`` agent may use per day (an agent may ask for less)."""
    refit_every_s: float = 10.0
    """How often the board's batch refit (Bradley–Terry, bootstrap intervals) is recomputed."""


def parse_season(doc: Any) -> SeasonSettings:
    """``[season]`` → `SeasonSettings`; every mistake names its field."""
    if not isinstance(doc, Mapping):
        raise ConfigError("season", "season must be a table ([season])")
    reject_unknown("[season]", doc, SEASON_KEYS)
    hours = doc.get("hours")
    held = _names("season.held_out", doc.get("held_out", []))
    models = _names("season.models", doc.get("models", []))
    return SeasonSettings(
        tables=check_int("season.tables", doc.get("tables", 1000), 1, TABLES_MAX),
        hours=None if hours is None else check_number("season.hours", hours, 0.001, 24 * 366),
        same_account=check_bool("season.same_account", doc.get("same_account", False)),
        max_tables_per_hour=check_int("season.max_tables_per_hour",
                                      doc.get("max_tables_per_hour", 600), 1, 1_000_000),
        fill_after_s=check_number("season.fill_after_s", doc.get("fill_after_s", 30.0),
                                  0.0, 86_400.0),
        max_running=check_int("season.max_running", doc.get("max_running", 50), 1, 100_000),
        held_out=held,
        final_top=_final_top(doc.get("final_top", 0)),
        final_tables_per_pair=check_int("season.final_tables_per_pair",
                                        doc.get("final_tables_per_pair", 1), 1, 1000),
        pacing=check_bool("season.pacing", doc.get("pacing", True)),
        models=models,
        token_budget=check_int("season.token_budget", doc.get("token_budget", 200_000), 1,
                               TOKEN_BUDGET_MAX),
        refit_every_s=check_number("season.refit_every_s", doc.get("refit_every_s", 10.0),
                                   0.0, 86_400.0))


def _final_top(value: Any) -> int:
    """0 (no final) or 2..1000: a final of one agent has no pair to seat, so it would play
    nothing (`Matchmaker._final_lineups`)."""
    if isinstance(value, bool) or not isinstance(value, int) or not (
            value == 0 or 2 <= value <= 1000):
        raise ConfigError("season.final_top", "season.final_top must be 0 (no final "
                          f"evaluation) or an integer in 2..1000 (got {value!r})")
    return value


def _names(field: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigError(field, f"{field} must be a list of names (got {value!r})")
    return tuple(check_str(f"{field}[{i}]", v, 200, 1) for i, v in enumerate(value))
