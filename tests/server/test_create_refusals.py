"""`POST /tables` refusals an operator met: each names the field and its range, and nothing is
stored when a table is refused (the Lobby lists no half-made table).

- `--open N` above the table's seats made the table, then refused it (the CLI checked only
  after the server had stored it; the game's largest seat count let `--open 6` through for a
  4-seat dilemma): `GET /games` now publishes each variant's seats.
- A player set `rake_bps` on the paid table they made: the house's share was theirs to set.
- ``rounds_total: 10.0``, ``stake: 5.0``… were read as 10 and 5 (JSON's lax view of numbers):
  an integer field takes an integer, never a float, a string or a bool.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from server.support import OPERATOR_KEY, ServerProcess, new_account

cli = CliRunner()


def _ids(url: str) -> set[str]:
    return {t["id"] for t in httpx.get(f"{url}/tables", timeout=10).json()["tables"]}


def _post(server: ServerProcess, key: str, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.url}{path}", json=body, timeout=10,
                      headers={"Authorization": f"Bearer {key}"})


# -- --open above the table's seats ----------------------------------------------------------------
def test_open_above_the_tables_seats_is_refused_before_a_table_is_made(
        shared_server: ServerProcess) -> None:
    """A dilemma table has 4 seats by default (the game allows up to 8): `--open 6` made the
    table and only then said so."""
    _, key = asyncio.run(new_account(shared_server))
    before = _ids(shared_server.url)
    done = cli.invoke(app, ["table", "new", "dilemma", "--fill", "tit_for_tat", "--open", "6",
                            "--key", key, "--server", shared_server.url])
    assert done.exit_code == 2, done.output
    assert "--open must be an integer in 1..4 for dilemma standard (got 6)" in done.output, \
        done.output
    assert "(got 6)" in done.output, done.output
    assert "was made" not in done.output, done.output
    assert _ids(shared_server.url) == before


def test_games_publish_each_variants_seats(shared_server: ServerProcess) -> None:
    games = {g["name"]: g for g in httpx.get(f"{shared_server.url}/games",
                                             timeout=10).json()["games"]}
    assert games["dilemma"]["variant_seats"] == {"standard": 4, "classic200": 4}
    assert set(games["commons"]["variant_seats"]) == set(games["commons"]["variants"])


# -- the house's rake ------------------------------------------------------------------------------
def test_a_player_cannot_set_the_rake_of_a_paid_table(shared_server: ServerProcess) -> None:
    _, key = asyncio.run(new_account(shared_server, credits=100))
    before = _ids(shared_server.url)
    for rake in (0, 2000):
        r = _post(shared_server, key, "/tables", {"game": "dilemma", "stake": 10,
                                                  "config": {"seats": 3, "rake_bps": rake}})
        assert r.status_code == 403, r.text
        message = r.json()["error"]["message"]
        assert message.startswith("config.rake_bps: "), message
        assert "house" in message and "500" in message and f"(got {rake})" in message, message
    assert _ids(shared_server.url) == before


def test_a_player_may_restate_the_house_rake_and_the_operator_may_set_it(
        shared_server: ServerProcess) -> None:
    _, key = asyncio.run(new_account(shared_server, credits=100))
    same = _post(shared_server, key, "/tables", {"game": "dilemma", "stake": 10,
                                                 "config": {"seats": 3, "rake_bps": 500}})
    assert same.status_code == 201, same.text
    assert same.json()["config"]["rake_bps"] == 500
    house = _post(shared_server, OPERATOR_KEY, "/tables", {
        "game": "dilemma", "stake": 10, "config": {"seats": 3, "rake_bps": 250}})
    assert house.status_code == 201, house.text
    assert house.json()["config"]["rake_bps"] == 250


# -- integers are integers -------------------------------------------------------------------------
@pytest.mark.parametrize(("body", "says"), [
    ({"game": "dilemma", "config": {"rounds_total": 10.0}},
     "config.rounds_total must be an integer in 1..1000 (got 10.0)"),
    ({"game": "dilemma", "config": {"rounds": 10.0}},
     "config.rounds_total must be an integer in 1..1000 (got 10.0)"),
    ({"game": "dilemma", "config": {"seats": True}},
     "config.seats must be an integer in 3..8 (got True)"),
    ({"game": "dilemma", "config": {"seats": "3"}},
     "config.seats must be an integer in 3..8 (got '3')"),
    ({"game": "dilemma", "stake": 5.0}, "stake: must be an integer in 0..1000000000 (got 5.0)"),
    ({"game": "dilemma", "seed": 7.0}, "seed: must be an integer in 0..9223372036854775807"),
    # a number field takes a number, never true (read as 1 second) or a string
    ({"game": "dilemma", "start_timeout_s": True}, "start_timeout_s: must be a number"),
    ({"game": "dilemma", "start_timeout_s": "30"}, "start_timeout_s: must be a number"),
])
def test_an_integer_field_refuses_a_float_a_string_and_a_bool(
        shared_server: ServerProcess, body: dict[str, Any], says: str) -> None:
    _, key = asyncio.run(new_account(shared_server))
    before = _ids(shared_server.url)
    r = _post(shared_server, key, "/tables", body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["message"].startswith(says), r.text
    assert _ids(shared_server.url) == before


def test_integer_fields_of_accounts_grants_and_joins_refuse_a_float(
        shared_server: ServerProcess) -> None:
    account, key = asyncio.run(new_account(shared_server))
    r = _post(shared_server, OPERATOR_KEY, "/accounts", {"name": "floaty", "credits": 5.0})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["message"].startswith("credits: must be an integer in "), r.text
    assert "(got 5.0)" in r.json()["error"]["message"], r.text
    r = _post(shared_server, OPERATOR_KEY, f"/accounts/{account}/credits",
              {"amount": 100.0, "idempotency_key": "float-grant"})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["message"].startswith("amount: must be an integer"), r.text
    made = _post(shared_server, key, "/tables", {"game": "dilemma", "fill_with": "tit_for_tat"})
    assert made.status_code == 201, made.text
    r = _post(shared_server, key, f"/tables/{made.json()['id']}/join", {"seat": 1.0})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["message"].startswith("seat: must be an integer"), r.text


def test_the_operators_rake_setting_is_every_players_paid_table(make_server: Any,
                                                                 tmp_path: Any) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'rake.db'}", rake_bps=300)
    _, key = asyncio.run(new_account(server, credits=100))
    made = _post(server, key, "/tables", {"game": "dilemma", "stake": 10,
                                          "config": {"seats": 3}})
    assert made.status_code == 201, made.text
    assert made.json()["config"]["rake_bps"] == 300
    r = _post(server, key, "/tables", {"game": "dilemma", "stake": 10,
                                       "config": {"seats": 3, "rake_bps": 500}})
    assert r.status_code == 403, r.text
    assert "this server takes 300" in r.json()["error"]["message"], r.text


def test_a_rake_setting_no_paid_game_allows_is_refused_at_start(tmp_path: Any) -> None:
    from cogleague.core.errors import ConfigError
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path / "never.db"
    with pytest.raises(ConfigError) as caught:
        create_app(Settings(db_url=f"sqlite:///{db}", rake_bps=3000))
    assert caught.value.field == "rake_bps"
    assert str(caught.value) == ("rake_bps must be an integer in 0..2000 for dilemma, whose paid "
                                 "tables take the house's rake (got 3000)")
    assert not db.exists()


def test_the_cli_names_an_option_the_server_refused_in_the_options_words(
        shared_server: ServerProcess) -> None:
    """The server's ``seed: must be …`` came out as ``--seed: must be …``, unlike every other
    option's ``--open must be …``."""
    _, key = asyncio.run(new_account(shared_server))
    done = cli.invoke(app, ["table", "new", "dilemma", "--seed", str(2**63), "--key", key,
                            "--server", shared_server.url])
    assert done.exit_code == 2, done.output
    assert done.output.startswith("error: --seed must be an integer in 0..9223372036854775807 "
                                  f"(got {2**63})"), done.output


@pytest.mark.parametrize("written", ["7.0", "%207", "+7", "7e0"])
def test_an_account_id_in_a_path_is_digits_only(shared_server: ServerProcess,
                                                 written: str) -> None:
    """`POST /accounts/7.0/credits` granted account 7 (the path's text read laxly)."""
    account, _ = asyncio.run(new_account(shared_server))
    path = f"/accounts/{written.replace('7', str(account))}/credits"
    r = _post(shared_server, OPERATOR_KEY, path, {"amount": 1, "idempotency_key": path})
    assert r.status_code == 400, r.text
    message = r.json()["error"]["message"]
    assert message.startswith("path.account_id: must be an integer in 1.."), message


@pytest.mark.parametrize("game", ["commons", "dilemma"])
def test_a_table_for_people_takes_the_games_own_deadlines(shared_server: ServerProcess,
                                                          game: str) -> None:
    """Commons declares its human deadline as 20.0 for an integer option: the server's own
    merge of it must not be refused as if a client had sent a float."""
    _, key = asyncio.run(new_account(shared_server))
    r = _post(shared_server, key, "/tables", {"game": game, "people": True})
    assert r.status_code == 201, r.text
    human = next(g for g in httpx.get(f"{shared_server.url}/games", timeout=10).json()["games"]
                 if g["name"] == game)["human"]["config"]
    for field, value in human.items():
        assert r.json()["config"][field] == value, (field, r.json()["config"])
