"""`cogleague table new` as an operator runs it against a real server: what it prints names
the table's variant, and a refused option makes no table."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.client import LobbyError
from server.support import ServerProcess, new_account

cli = CliRunner()


def _tables(url: str) -> int:
    return len(httpx.get(f"{url}/tables", timeout=10).json()["tables"])


def test_open_zero_is_refused_before_a_table_is_made(shared_server: ServerProcess) -> None:
    """`--open 0` was taken as "the default" (one seat for a bot) without a word."""
    _, key = asyncio.run(new_account(shared_server))
    before = _tables(shared_server.url)
    done = cli.invoke(app, ["table", "new", "dilemma", "--fill", "tit_for_tat", "--open", "0",
                            "--key", key, "--server", shared_server.url])
    assert done.exit_code == 2, done.output
    assert "--open must be an integer of at least 1 (got 0)" in done.output, done.output
    assert _tables(shared_server.url) == before


def test_the_line_names_the_default_variant(shared_server: ServerProcess) -> None:
    """Without `--variant` the table plays its game's default variant: the line says which
    (it printed "dilemma  — 4 seats")."""
    _, key = asyncio.run(new_account(shared_server))
    done = cli.invoke(app, ["table", "new", "dilemma", "--fill", "tit_for_tat", "--key", key,
                            "--server", shared_server.url])
    assert done.exit_code == 0, done.output
    assert "dilemma standard — 4 seats" in done.output, done.output


def test_account_new_names_the_id_grants_are_made_to(shared_server: ServerProcess) -> None:
    """`POST /accounts/{id}/credits` takes the account's id, which `account new` did not
    print anywhere (only the key and the name)."""
    from server.support import OPERATOR_KEY

    done = cli.invoke(app, ["account", "new", "granted-later", "--operator-key", OPERATOR_KEY,
                            "--server", shared_server.url])
    assert done.exit_code == 0, done.output
    key = done.output.splitlines()[0]
    me = httpx.get(f"{shared_server.url}/account", headers={"authorization": f"Bearer {key}"},
                   timeout=10).json()
    assert f"account granted-later (id {me['id']}) created" in done.output, done.output


async def test_a_grant_to_the_operator_says_whose_account_it_is(shared_server: ServerProcess
                                                                ) -> None:
    """The operator's own account exists: a grant to it said "account N does not exist"."""
    from server.support import operator

    async with operator(shared_server) as op:
        me = await op.request("GET", "/account")
        with pytest.raises(LobbyError) as caught:
            await op.grant(me["id"], 5, "to-myself")
    assert "does not exist" not in caught.value.message, caught.value.message
    assert "operator" in caught.value.message and "player" in caught.value.message


@pytest.mark.parametrize("wait", ["700", "-1", "soon", "nan"])
def test_account_new_refuses_a_wait_out_of_range_in_one_line(wait: str) -> None:
    done = cli.invoke(app, ["account", "new", "x", "--operator-key", "k" * 20, "--server",
                            "http://127.0.0.1:9", "--wait", wait])
    assert done.exit_code == 2, done.output
    assert done.output.strip().splitlines() == [
        f"error: --wait must be a number in 0..600 (got {wait!r})"], done.output
