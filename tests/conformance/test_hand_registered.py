"""A game registered by hand (`registry.register`: tests, a server's extra games) exists only
in the process that registered it: the determinism check's child processes must load it from
the module that holds it, not ask their own registry for its name."""

from __future__ import annotations

import dataclasses

import pytest

from cogleague.games import registry
from cogleague.testing.determinism import descriptor_ref
from cogleague.testing.suite import check_game

HAND = dataclasses.replace(registry.get("dilemma"), name="handdilemma")


def test_a_hand_registered_game_passes_the_determinism_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._loaded, HAND.name, HAND)  # as register() does, undone after
    assert registry.get("handdilemma") is HAND
    assert descriptor_ref(HAND) == f"{__name__}:HAND"
    report = check_game(HAND, checks=["determinism"], seeds=1)
    assert "byte-identical" in report.passed["determinism"]


def test_an_installed_game_is_still_found_by_name() -> None:
    assert descriptor_ref(registry.get("dilemma")) == "dilemma"
