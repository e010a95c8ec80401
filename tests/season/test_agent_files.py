"""Policy files of agents on a real server: two accounts racing to register one name get one
agent, 201 and 409, and the agent plays the file its own owner uploaded; a refused upload
leaves no file behind."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from cogleague.client.lobby import LobbyError
from season.season import account, constant_policy, file_b64, query, register, season_file
from server.support import OPERATOR_KEY


async def test_a_race_for_one_name_keeps_the_winners_policy_file(make_server: Any,
                                                                 tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    hosted = tmp_path / "hosted"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)),
                         policy_dir=str(hosted))
    url = server.url
    uploads = {"ann": constant_policy(tmp_path / "coop.npz", "dilemma", 0),
               "ben": constant_policy(tmp_path / "defect.npz", "dilemma", 1)}
    keys = {n: await account(url, OPERATOR_KEY, n) for n in uploads}
    for attempt in range(3):
        name = f"dup{attempt}"
        done = await asyncio.gather(*(register(url, keys[n], name=name, kind="policy",
                                               games=["dilemma"], policy_file=file_b64(path))
                                      for n, path in uploads.items()), return_exceptions=True)
        refused = [d for d in done if isinstance(d, BaseException)]
        assert len(refused) == 1 and isinstance(refused[0], LobbyError), done
        assert refused[0].status == 409, refused[0]
        (row,) = query(db, "SELECT ac.name, a.policy_file FROM agents a JOIN accounts ac ON "
                           "ac.id = a.account_id WHERE a.name = :n", n=name)
        assert Path(row.policy_file).read_bytes() == uploads[row.name].read_bytes(), \
            (name, row.name)
    stored = sorted(p.name for p in (hosted / "agents").iterdir())
    kept = sorted(Path(r[0]).name for r in query(db, "SELECT policy_file FROM agents WHERE "
                                                     "policy_file IS NOT NULL"))
    assert stored == kept, (stored, kept)


async def test_a_policy_file_that_does_not_fit_is_refused_without_the_servers_path(
        make_server: Any, tmp_path: Path) -> None:
    """The refusal names the mismatch, not where the server keeps uploads (a path on the
    server's disk is none of the caller's business, and means nothing to them)."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    hosted = tmp_path / "hosted"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)),
                         policy_dir=str(hosted))
    key = await account(server.url, OPERATOR_KEY, "ann")
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    try:
        await register(server.url, key, name="pol", kind="policy", games=["commons"],
                       policy_file=file_b64(coop))
    except LobbyError as exc:
        refused = exc
    else:
        raise AssertionError("a dilemma policy file was registered for commons")
    assert refused.status == 400 and "was trained for game 'dilemma', not 'commons'" \
        in refused.message, refused
    assert str(hosted) not in refused.message and ".npz" not in refused.message, refused
