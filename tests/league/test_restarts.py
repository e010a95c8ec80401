"""A rules-engine chunk deals its last finished game again for the next episode of the same
game, variant, options and seat count (`worker.Restarts`), and stores, byte for byte, what a
new game per episode stores; a failed episode's game and a fixed seed never come back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from cogleague.games.dilemma.config import MAX_SEED
from cogleague.games.dilemma.game import DilemmaGame
from cogleague.league.episodes import EpisodeSpec, SeatRef
from cogleague.league.worker import play_chunk, play_spec

FOUR = ("tit_for_tat", "pavlov", "always_defect", "grim_trigger")
OTHER_FOUR = ("random", "generous_tit_for_tat", "always_cooperate", "pavlov")
THREE = ("tit_for_tat", "random", "grim_trigger")
LEDGER = ("mirror", "shark", "grim", "saint", "opportunist", "mirror", "shark", "grim")


def spec(seed: int, lineup: Sequence[str], game: str = "dilemma",
         overrides: dict[str, Any] | None = None, variant: str | None = None) -> EpisodeSpec:
    return EpisodeSpec(league="L", game=game, variant=variant, seed=seed,
                       seats=tuple(SeatRef(p, p) for p in lineup), index=seed,
                       overrides={"rounds_total": 4} if overrides is None else overrides)


def rows(specs: Sequence[EpisodeSpec]) -> list[tuple[str, str | None, str | None, str | None]]:
    return [(r.id, r.status, r.results, r.series) for r in play_chunk(specs)]


def new_games(specs: Sequence[EpisodeSpec]) -> list[tuple[str, str | None, str | None,
                                                         str | None]]:
    return [(r.id, r.status, r.results, r.series)
            for r in (play_spec(s).encoded() for s in specs)]


@pytest.fixture
def restarted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seeds of every successful restart (the real method, counted)."""
    seeds: list[int] = []
    real = DilemmaGame.restart

    def counted(self: DilemmaGame, seed: int, names: Sequence[str],
                kinds: Sequence[str] | None = None) -> bool:
        done = real(self, seed, names, kinds)
        if done:
            seeds.append(seed)
        return done

    monkeypatch.setattr(DilemmaGame, "restart", counted)
    return seeds


def test_a_chunk_restarts_its_games_and_stores_what_new_games_store(
        restarted: list[int]) -> None:
    specs = [spec(1, FOUR), spec(2, OTHER_FOUR), spec(3, FOUR),
             spec(4, THREE),  # another size: a new game
             spec(5, FOUR, overrides={"rounds_total": 5}),  # other options: a new game
             spec(6, LEDGER, game="ledger", overrides={}),  # another game: never restarted
             spec(7, FOUR, overrides={"rounds_total": 5}),
             spec(8, FOUR, variant="classic200", overrides={"rounds_total": 5}),
             spec(9, OTHER_FOUR, variant="classic200", overrides={"rounds_total": 5})]
    assert rows(specs) == new_games(specs)
    assert restarted == [2, 3, 9]
    assert all(status == "ok" for _, status, _, _ in rows(specs))


def test_a_failed_episode_or_a_fixed_seed_gets_a_new_game(restarted: list[int]) -> None:
    specs = [spec(1, FOUR), spec(2, FOUR, overrides={"rounds_total": 4, "stake": -1}),
             spec(3, FOUR), spec(4, FOUR, overrides={"rounds_total": 4, "seed": 77}),
             spec(5, FOUR, overrides={"rounds_total": 4, "seed": 77}), spec(6, FOUR),
             spec(MAX_SEED + 1, FOUR), spec(7, FOUR), spec(8, FOUR)]
    got = rows(specs)
    assert got == new_games(specs)
    statuses = [status for _, status, _, _ in got]
    assert statuses == ["ok", "failed", "ok", "ok", "ok", "ok", "failed", "ok", "ok"]
    # the options' seed wins over the spec's, as in `make`: those two play one match
    assert got[3][2] == got[4][2]
    # a new game after the failed options, for each fixed seed and after it; the bad seed is
    # refused by name and its game (taken, then refused) is not handed out again
    assert restarted == [8]
    assert "seed" in (play_spec(specs[6]).error or "")
