"""A provider's usage block is read as counts of tokens: a negative count (a broken or
hostile OpenAI-compatible server) is not added to the seat's tokens and cost."""

from __future__ import annotations

import pytest

from cogleague.core.episode import run_episode
from cogleague.core.errors import ConfigError
from cogleague.seats.llm import accounting_for
from cogleague.seats.llm.pricing import parse_prices
from helpers.model_toys import TextToyGame, model_seats, options_for
from helpers.provider_server import ProviderServer, Reply


async def test_a_negative_token_count_is_not_counted(server: ProviderServer,
                                                      shape: str) -> None:
    server.script = lambda _req: Reply('{"n": 2}', input_tokens=-1_000_000, output_tokens=5)
    game = TextToyGame(seats=1, rounds=2)
    seats = model_seats(game, options_for(server, shape))
    outcome = await run_episode(game, seats)
    models = accounting_for(seats)
    assert models is not None
    assert models["input_tokens"] == [0] and models["output_tokens"] == [10]
    assert outcome.faults[0] == {} and models["requests"] == [2]  # each reply was read


async def test_a_huge_integer_in_a_field_nobody_reads_leaves_the_response_readable(
        server: ProviderServer, shape: str) -> None:
    """Before: json.loads raised on the 5,000-digit integer (Python's conversion limit) and
    the whole completion was an unreadable response, a transport failure."""
    server.script = lambda _req: Reply('{"n": 2}', extra='"created_ns": ' + "1" * 5000)
    game = TextToyGame(seats=1, rounds=1)
    seats = model_seats(game, options_for(server, shape))
    outcome = await run_episode(game, seats)
    models = accounting_for(seats)
    assert models is not None
    assert outcome.faults[0] == {} and models["requests"] == [1]


def test_a_bad_currency_names_its_range_once() -> None:
    """The message read ``1...8 characters``: a range is written ``1..8``."""
    with pytest.raises(ConfigError) as bad:
        parse_prices({"currency": "US DOLLARS"}, "price table p.toml")
    assert bad.value.field == "prices"
    assert str(bad.value) == ("price table p.toml: currency must be a string of 1..8 "
                              "characters (got 'US DOLLARS')")
