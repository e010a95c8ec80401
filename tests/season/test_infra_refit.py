"""A season table a platform fault spoiled (``infra_error``: here a model provider that
refuses every call) is not rated live, and the batch refit — what the board shows beside
the live rating and what `cogleague league standings --store` ranks — leaves it out too:
it is stored as ``infra_error``, as the offline league stores such an episode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cogleague.league.store import episode_id_for_table
from cogleague.server.season_board import compute_refit
from helpers.provider_server import ProviderServer, Reply
from season.season import account, query, recorded, register, season_file, wait_for
from server.support import OPERATOR_KEY


def _status(db: str, episode: str) -> list[Any]:
    return recorded(db, "SELECT status FROM league_episodes WHERE id = :e", e=episode)


async def test_an_infra_error_table_is_left_out_of_the_refit(
        make_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    db = f"sqlite:///{tmp_path / 'league.db'}"
    with ProviderServer(lambda _r: Reply(fault="401")) as provider:
        server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                        fill_after_s=0.0, max_running=2)),
                             model_provider="openai", model_name="m",
                             model_base_url=provider.openai_url)
        key = await account(server.url, OPERATOR_KEY, "iz")
        await register(server.url, key, name="broken", kind="model", games=["dilemma"],
                       prompt="Cooperate.", model="m")
        spoiled = "SELECT table_id FROM season_tables WHERE outcome = 'not_rated:infra_error'"
        tables = await wait_for(lambda: query(db, spoiled), 60, "an infra_error table",
                                explain=lambda: repr(query(db, "SELECT outcome FROM "
                                                               "season_tables")))
        table = tables[0][0]
        status = await wait_for(lambda: _status(db, episode_id_for_table(table)), 30,
                                "the table in the league store")
    assert status[0][0] == "infra_error", status
    episodes = compute_refit(db, "ci-season", ["dilemma"])["dilemma"]["episodes"]
    assert episodes["infra_error"] >= 1, episodes  # the board's refit: shown, not ranked
