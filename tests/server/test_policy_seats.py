"""A trained policy file as an operator-hosted seat at a server table (issue 14, item 4)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from cogleague.client import LobbyClient, LobbyError
from server.support import ServerProcess, operator

POLICY = Path(__file__).resolve().parents[2] / "examples" / "rl" / "dilemma.npz"


async def test_an_operator_seats_a_policy_file_and_it_plays(make_server: object,
                                                            tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    shutil.copy(POLICY, folder / "trained.npz")
    server: ServerProcess = make_server(  # type: ignore[operator]
        f"sqlite:///{tmp_path / 'p.db'}", policy_dir=str(folder))
    async with operator(server) as op:
        table = await op.create_table("dilemma", fill_with="tit_for_tat", pacing=False,
                                      config={"rounds_total": 3})
        with pytest.raises(LobbyError, match="not a file in the server's policy folder"):
            await op.join(table["id"], "policy", policy="../p.db")
        joined = await op.join(table["id"], "policy", policy="trained.npz")
        assert joined["kind"] == "policy"
        await op.start(table["id"])
        for _ in range(200):
            state = (await op.table(table["id"]))["state"]
            if state == "finished":
                break
            await asyncio.sleep(0.1)
        results = await op.results(table["id"])
    assert results["reason"] == "complete"
    assert results["seats"][joined["seat"]]["policy"] == "policy:trained.npz"


async def test_a_policy_that_does_not_fit_the_game_is_refused(make_server: object,
                                                              tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    shutil.copy(POLICY, folder / "trained.npz")
    server: ServerProcess = make_server(  # type: ignore[operator]
        f"sqlite:///{tmp_path / 'q.db'}", policy_dir=str(folder))
    async with operator(server) as op:
        table = await op.create_table("commons", fill_with="steward", pacing=False)
        with pytest.raises(LobbyError, match="policy file"):
            await op.join(table["id"], "policy", policy="trained.npz")
    async with LobbyClient(server.url) as anonymous:
        with pytest.raises(LobbyError):
            await anonymous.join(table["id"], "policy", policy="trained.npz")


async def test_a_refused_policy_seat_names_what_the_operator_may_seat(make_server: object,
                                                                      tmp_path: Path) -> None:
    """A misspelt policy file: the refusal lists the folder's policy files (the allowed
    values); a server started without a policy folder names the option that gives it one
    (it said "(Settings.policy_dir)", a name the operator never typed)."""
    folder = tmp_path / "policies"
    folder.mkdir()
    shutil.copy(POLICY, folder / "trained.npz")
    hosting: ServerProcess = make_server(  # type: ignore[operator]
        f"sqlite:///{tmp_path / 'r.db'}", policy_dir=str(folder))
    async with operator(hosting) as op:
        table = await op.create_table("dilemma", fill_with="tit_for_tat", pacing=False)
        with pytest.raises(LobbyError) as caught:
            await op.join(table["id"], "policy", policy="trainde.npz")
    assert "policy: 'trainde.npz' is not a file" in caught.value.message, caught.value.message
    assert "(its policy files: trained.npz)" in caught.value.message, caught.value.message
    bare: ServerProcess = make_server(f"sqlite:///{tmp_path / 's.db'}")  # type: ignore[operator]
    async with operator(bare) as op:
        table = await op.create_table("dilemma", fill_with="tit_for_tat", pacing=False)
        with pytest.raises(LobbyError) as caught:
            await op.join(table["id"], "policy", policy="trained.npz")
    assert "cogleague serve --policy-dir" in caught.value.message, caught.value.message
