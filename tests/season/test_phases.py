"""The season's phases on a real server (SQLite file): once registration closes, the final
line-ups are frozen, so nothing an owner does to its agents may leave a frozen line-up
unplayable — the season still reaches ``ended``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from cogleague.client import LobbyClient
from cogleague.client.lobby import LobbyError
from season.season import (
    account,
    constant_policy,
    file_b64,
    post,
    query,
    register,
    sa_url,
    season_file,
    standings,
    wait_for,
)
from server.support import OPERATOR_KEY


def _execute(db: str, sql: str, **params: Any) -> None:
    engine = create_engine(sa_url(db))
    try:
        with engine.begin() as conn:
            conn.execute(text(sql), params)
    finally:
        engine.dispose()


async def test_a_new_version_after_the_close_does_not_stall_the_final(
        make_server: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    server = make_server(db, season=str(season_file(tmp_path, tables=3, final_top=2,
                                                    fill_after_s=0.0, max_running=2)),
                         policy_dir=str(tmp_path / "hosted"))
    url = server.url
    keys = {n: await account(url, OPERATOR_KEY, n) for n in ("ann", "ben", "cy")}
    for name, owner in (("p1", "ann"), ("p2", "ben")):  # the top two, waiting while paused
        await register(url, keys[owner], name=name, kind="policy", games=["dilemma"],
                       policy_file=file_b64(coop))
        await post(url, keys[owner], f"/agents/{name}/pause")
        agent_id = query(db, "SELECT id FROM agents WHERE name = :n", n=name)[0][0]
        _execute(db, "DELETE FROM ratings WHERE agent_id = :a", a=agent_id)
        _execute(db, "INSERT INTO ratings (season, game, agent_id, mu, sigma, games) VALUES "
                     "('ci-season', 'dilemma', :a, 100.0, 1.0, 1)", a=agent_id)
    await register(url, keys["cy"], name="p3", kind="policy", games=["dilemma"],
                   policy_file=file_b64(coop))  # plays the rated tables with the baselines
    await wait_for(lambda: standings(url)["phase"] == "final", 60, "the close")

    try:
        async with LobbyClient(url, keys["ann"]) as lobby:
            await lobby.request("POST", "/agents/p1/versions",
                                {"policy_file": file_b64(coop)})
    except LobbyError as exc:  # refused: the line-up keeps the version it froze
        assert exc.status == 409 and "closed" in exc.message, exc
    for name, owner in (("p1", "ann"), ("p2", "ben")):
        await post(url, keys[owner], f"/agents/{name}/resume")
    await wait_for(lambda: standings(url)["phase"] == "ended", 30, "the end",
                   explain=lambda: repr(query(db, "SELECT phase, final_made, frozen FROM "
                                                  "seasons")))
    assert query(db, "SELECT COUNT(*) FROM season_tables WHERE phase = 'final'")[0][0] >= 1
