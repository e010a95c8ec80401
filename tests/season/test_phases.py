"""The season's phases on a real server (SQLite file): once registration closes, the final
line-ups are frozen, so nothing an owner does to its agents may leave a frozen line-up
unplayable — the season still reaches ``ended``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from cogleague.client import LobbyClient
from cogleague.client.lobby import LobbyError
from season.season import (
    account,
    constant_policy,
    file_b64,
    matchmaking_held,
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


async def _final_waiting_for_two(make_server: Any, tmp_path: Path, db: str | None = None
                                 ) -> tuple[str, str, dict[str, str], Path]:
    """A season closed with p1 and p2 (paused) at the top of dilemma: the final waits."""
    db = db or f"sqlite:///{tmp_path / 'league.db'}"
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    server = make_server(db, season=str(season_file(tmp_path, tables=3, final_top=2,
                                                    fill_after_s=0.0, max_running=2)),
                         policy_dir=str(tmp_path / "hosted"))
    url = server.url
    keys = {n: await account(url, OPERATOR_KEY, n) for n in ("ann", "ben", "cy")}
    # no table meanwhile: one that seated p1 or p2 before its pause would rate it between
    # the two writes below (a UNIQUE failure on a loaded machine)
    with matchmaking_held(db):
        for name, owner in (("p1", "ann"), ("p2", "ben")):  # the top two, waiting, paused
            await register(url, keys[owner], name=name, kind="policy", games=["dilemma"],
                           policy_file=file_b64(coop))
            await post(url, keys[owner], f"/agents/{name}/pause")
            agent_id = query(db, "SELECT id FROM agents WHERE name = :n", n=name)[0][0]
            _execute(db, "DELETE FROM ratings WHERE agent_id = :a", a=agent_id)
            _execute(db, "INSERT INTO ratings (season, game, agent_id, mu, sigma, games) "
                         "VALUES ('ci-season', 'dilemma', :a, 100.0, 1.0, 1)", a=agent_id)
    await register(url, keys["cy"], name="p3", kind="policy", games=["dilemma"],
                   policy_file=file_b64(coop))  # plays the rated tables with the baselines
    await wait_for(lambda: standings(url)["phase"] == "final", 60, "the close")
    return db, url, keys, coop


async def _ends(db: str, url: str, keys: dict[str, str],
                resume: tuple[tuple[str, str], ...] = (("p1", "ann"), ("p2", "ben"))) -> None:
    for name, owner in resume:
        await post(url, keys[owner], f"/agents/{name}/resume")
    await wait_for(lambda: standings(url)["phase"] == "ended", 30, "the end",
                   explain=lambda: repr(query(db, "SELECT phase, final_made, frozen FROM "
                                                  "seasons")))
    assert query(db, "SELECT COUNT(*) FROM season_tables WHERE phase = 'final'")[0][0] >= 1


async def test_a_new_version_after_the_close_does_not_stall_the_final(
        make_server: Any, tmp_path: Path) -> None:
    db, url, keys, coop = await _final_waiting_for_two(make_server, tmp_path)
    try:
        async with LobbyClient(url, keys["ann"]) as lobby:
            await lobby.request("POST", "/agents/p1/versions",
                                {"policy_file": file_b64(coop)})
    except LobbyError as exc:  # refused: the line-up keeps the version it froze
        assert exc.status == 409 and "closed" in exc.message, exc
    await _ends(db, url, keys)


async def test_retiring_a_finalist_does_not_stall_the_final(make_server: Any,
                                                            tmp_path: Path) -> None:
    db, url, keys, _ = await _final_waiting_for_two(make_server, tmp_path)
    try:
        await post(url, keys["ann"], "/agents/p1/retire")
    except LobbyError as exc:  # refused: a frozen line-up cannot be played without it
        assert exc.status == 409 and "final" in exc.message, exc
        await _ends(db, url, keys)
    else:
        await _ends(db, url, keys, (("p2", "ben"),))


async def test_a_season_of_hours_closes_on_time_and_forms_nothing_after(
        make_server: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    path = season_file(tmp_path, tables=100000, final_top=2, fill_after_s=0.0, max_running=2)
    path.write_text(path.read_text().replace("[season]\n", "[season]\nhours = 0.002\n", 1))
    server = make_server(db, season=str(path), policy_dir=str(tmp_path / "hosted"))
    url = server.url
    for name in ("p1", "p2"):
        key = await account(url, OPERATOR_KEY, name + "-owner")
        await register(url, key, name=name, kind="policy", games=["dilemma"],
                       policy_file=file_b64(coop))
    await wait_for(lambda: standings(url)["phase"] == "ended", 60, "the end")
    ((started, closed, ended),) = query(db, "SELECT started_at, closed_at, ended_at FROM "
                                            "seasons")
    assert 0.002 * 3600 <= closed - started < 0.002 * 3600 + 5 and closed <= ended
    made = query(db, "SELECT phase, created_at FROM season_tables")
    assert all(at <= closed for phase, at in made if phase == "rated"), (closed, made)
    assert all(closed <= at <= ended for phase, at in made if phase == "final"), (closed, made)
    board = standings(url)
    await asyncio.sleep(2.0)  # ten matchmaker ticks: nothing formed, nothing rated
    assert query(db, "SELECT COUNT(*) FROM season_tables")[0][0] == len(made)
    assert standings(url) == board and board["frozen"]


@pytest.mark.postgres
async def test_on_postgres_a_finalist_keeps_its_version_and_is_not_retired(
        make_server: Any, tmp_path: Path, pg_cluster: Any) -> None:
    db, url, keys, coop = await _final_waiting_for_two(make_server, tmp_path,
                                                       pg_cluster.new_database())
    for path, body in (("/agents/p1/versions", {"policy_file": file_b64(coop)}),
                       ("/agents/p2/retire", None)):
        with pytest.raises(LobbyError) as caught:
            async with LobbyClient(url, keys["ann" if "p1" in path else "ben"]) as lobby:
                await lobby.request("POST", path, body)
        assert caught.value.status == 409, caught.value
    await _ends(db, url, keys)


async def test_after_the_close_the_cap_changes_and_the_games_do_not(make_server: Any,
                                                                   tmp_path: Path) -> None:
    """The final line-ups froze the games at the close: new games are a 409 naming the
    closed registration; a new cap still counts (the frozen line-ups wait for room)."""
    db, url, keys, _ = await _final_waiting_for_two(make_server, tmp_path)
    async with LobbyClient(url, keys["ann"]) as lobby:
        with pytest.raises(LobbyError) as caught:
            await lobby.request("PATCH", "/agents/p1", {"games": ["dilemma", "commons"]})
        assert caught.value.status == 409 and "closed" in caught.value.message, caught.value
        assert (await lobby.request("PATCH", "/agents/p1", {"cap": 2}))["cap"] == 2
    assert query(db, "SELECT cap, games FROM agents WHERE name = 'p1'") == [(2, '["dilemma"]')]
    await _ends(db, url, keys)


async def test_a_game_an_agent_left_is_not_its_final(make_server: Any, tmp_path: Path) -> None:
    """An agent rated in dilemma that then plays commons only (`PATCH /agents/NAME`) is not
    in dilemma's frozen final: its rating there stays on the board, but a final table would
    seat it in a game it no longer plays (a remote bot for commons cannot play it)."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    server = make_server(db, season=str(season_file(tmp_path, tables=3, final_top=3,
                                                    fill_after_s=0.0, max_running=2)),
                         policy_dir=str(tmp_path / "hosted"))
    url = server.url
    keys = {n: await account(url, OPERATOR_KEY, n) for n in ("ann", "cy")}
    with matchmaking_held(db):
        await register(url, keys["ann"], name="mover", games=["dilemma"])
        mover = query(db, "SELECT id FROM agents WHERE name = 'mover'")[0][0]
        _execute(db, "INSERT INTO ratings (season, game, agent_id, mu, sigma, games) "
                     "VALUES ('ci-season', 'dilemma', :a, 100.0, 1.0, 1)", a=mover)
        async with LobbyClient(url, keys["ann"]) as lobby:
            await lobby.request("PATCH", "/agents/mover", {"games": ["commons"]})
    await register(url, keys["cy"], name="p3", kind="policy", games=["dilemma"],
                   policy_file=file_b64(coop))
    await wait_for(lambda: standings(url)["phase"] != "running", 60, "the close")
    frozen = json.loads(query(db, "SELECT frozen FROM seasons")[0][0])
    dilemma = [e["agents"] for e in frozen["final_plan"] if e["slot"] == 0]
    assert dilemma and all(mover not in ids for ids in dilemma), (mover, frozen)


async def test_registering_after_the_end_says_the_season_is_over_and_what_next(
        make_server: Any, tmp_path: Path) -> None:
    """A newcomer who registers once the example season has played its tables is told the
    season is over and how a new one starts, not only a phase name."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    server = make_server(db, season=str(season_file(tmp_path, tables=2, final_top=0,
                                                    fill_after_s=0.0)),
                         policy_dir=str(tmp_path / "hosted"))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="p1", kind="policy", games=["dilemma"],
                   policy_file=file_b64(coop))
    await wait_for(lambda: standings(server.url)["phase"] == "ended", 60, "the end")
    with pytest.raises(LobbyError) as caught:
        await register(server.url, key, name="late", games=["dilemma"])
    said = caught.value.message
    assert caught.value.status == 409, said
    assert "registration for season ci-season is closed: the season has ended" in said, said
    assert "league.name" in said, said
