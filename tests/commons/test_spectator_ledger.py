"""The Commons spectator document carries the public ledger per cog when the rules make the
ledger public (§6), equal to what every seat reads in its own view, and nothing of it when the
ledger is private."""

from __future__ import annotations

from cogleague.core.episode import play_headless
from cogleague.games import registry
from cogleague.seats.factory import make_seats


def _played(overrides: dict[str, object]) -> object:
    info = registry.get("commons")
    game = info.new_game("cleanup", {"rounds": 3, **overrides}, 4)
    play_headless(game, make_seats(game, ["steward", "free_rider", "steward", "cleaner",
                                          "steward", "steward"]))
    return game


def test_a_public_ledger_reaches_spectators_per_cog() -> None:
    game = _played({})
    doc = game.spectator_state()  # type: ignore[attr-defined]
    ledger = doc["ledger"]
    assert sorted(ledger) == sorted(doc["aliases"])
    results = game.results()  # type: ignore[attr-defined]
    for slot, alias in enumerate(game.aliases):  # type: ignore[attr-defined]
        assert ledger[alias]["total_extracted"] == results["total_extracted"][slot]
        assert ledger[alias]["public_effort"] == results["public_effort"][slot]
    assert any(row["total_extracted"] > 0 for row in ledger.values())


def test_a_private_ledger_stays_out_of_the_spectator_document() -> None:
    doc = _played({"ledger_public": False}).spectator_state()  # type: ignore[attr-defined]
    assert "ledger" not in doc
