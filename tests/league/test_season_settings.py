"""`[season]` settings are refused naming the field and the allowed values (league/season.py)."""

from __future__ import annotations

import pytest

from cogleague.core.errors import ConfigError
from cogleague.league.season import parse_season


def test_a_final_of_one_agent_is_refused() -> None:
    """`final_top = 1` was taken and then silently played no final at all (a final needs a
    pair): refused, naming 0 (no final) and 2.. as the allowed values."""
    with pytest.raises(ConfigError) as caught:
        parse_season({"final_top": 1})
    assert caught.value.field == "season.final_top"
    assert str(caught.value) == ("season.final_top must be 0 (no final evaluation) or an "
                                 "integer in 2..1000 (got 1)")
    assert parse_season({"final_top": 0}).final_top == 0
    assert parse_season({"final_top": 2}).final_top == 2
