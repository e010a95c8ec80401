"""The first line `cogleague play commons` prints says the variant once and counts seats as
the other games' lines do: `cleanup (cleanup)` and `6 cogs` (the rules' own word, unexplained
on that line) read as a typo and jargon to someone who just typed the README's command."""

from __future__ import annotations

import pytest

from cogleague.games import registry


def headline(variant: str, seats: int | None = None) -> str:
    desc = registry.get("commons")
    lineup = desc.default_lineup(variant)
    if seats is not None:
        lineup = (lineup * 3)[:seats]
    game = desc.make(variant, {}, 5, lineup, None)
    (line,) = desc.headline(game)
    return line.replace("[bold]", "").replace("[/]", "")


def test_a_variant_named_after_its_module_is_said_once() -> None:
    assert headline("cleanup") == "Commons Family cleanup, seed 5, 20 rounds, 6 seats"


@pytest.mark.parametrize(("variant", "module"), [("harvest-open", "harvest"),
                                                 ("certification", "cleanup")])
def test_another_variant_names_its_module(variant: str, module: str) -> None:
    line = headline(variant)
    assert line.startswith(f"Commons Family {variant} ({module} module), seed 5, "), line
    assert line.endswith(" seats") and "cogs" not in line, line
