"""The server reads the descriptor: `GET /games` carries each game's options JSON Schema, replay
format and capabilities, and `POST /tables` refuses a bad config value with a 400 naming the
field (a real server process on loopback, over SQLite)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from cogleague.games import registry
from server.support import ServerProcess, new_account

BUILT_IN = ("commons", "dilemma", "ledger")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    d = tmp_path_factory.mktemp("seam-server")
    proc = ServerProcess(f"sqlite:///{d / 'server.db'}", d / "server.log").start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def served(server: ServerProcess) -> dict[str, dict[str, Any]]:
    response = httpx.get(server.url + "/games", timeout=30)
    assert response.status_code == 200
    return {g["name"]: g for g in response.json()["games"]}


@pytest.mark.parametrize("name", BUILT_IN)
def test_get_games_carries_schema_replay_format_and_capabilities(
        name: str, served: dict[str, dict[str, Any]]) -> None:
    desc = registry.get(name)
    game = served[name]
    assert game["options"] == desc.options.model_json_schema()
    assert set(game["options"]["properties"]) == set(desc.options.model_fields)
    assert game["replay_format"] == desc.replay_format
    assert game["capabilities"] == desc.capabilities
    assert game["rules_version"] == desc.version
    assert game["seat_range"] == list(desc.seat_range)


def test_the_schema_states_the_ranges(served: dict[str, dict[str, Any]]) -> None:
    rounds = served["ledger"]["options"]["properties"]["rounds"]
    assert {"type": "integer", "minimum": 4, "maximum": 28} in rounds["anyOf"]
    assert served["ledger"]["options"]["additionalProperties"] is False
    module = served["commons"]["options"]["properties"]["module"]
    assert module["enum"] == ["cleanup", "harvest", "allelopathic", "mushrooms"]
    assert served["dilemma"]["capabilities"][0] == "paid_tables"


@pytest.mark.parametrize(("game", "config", "message"), [
    ("ledger", {"rounds": 3}, "config.rounds must be an integer in 4..28 (got 3)"),
    ("ledger", {"round": 8}, "config.round is not a ledger config setting (known: "
                             "decision_timeout_s, episode_timeout_s, play_budget_fraction, "
                             "rounds)"),
    ("dilemma", {"rounds_total": True},
     "config.rounds_total must be an integer in 1..1000 (got True)"),
    ("dilemma", {"payoffs": {"reward": -2}},
     "config.payoffs.reward must be an integer in 0..1000000 (got -2)"),
    ("commons", {"module": "harvest", "sanction_cost": 1e9},
     "config.sanction_cost must be a number in 0..10 (got 1000000000.0)"),
    ("commons", {"module": "orchard"},
     "config.module must be one of cleanup, harvest, allelopathic, mushrooms (got 'orchard')"),
])
async def test_post_tables_with_a_bad_config_value_is_a_400_naming_the_field(
        server: ServerProcess, game: str, config: dict[str, Any], message: str) -> None:
    _, key = await new_account(server, prefix="seam")
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=30) as http:
        before = (await http.get("/tables")).json()["tables"]
        response = await http.post("/tables", json={"game": game, "config": config})
        assert response.status_code == 400, response.text
        assert response.json()["error"] == {"code": "bad_request", "message": message}
        assert (await http.get("/tables")).json()["tables"] == before
