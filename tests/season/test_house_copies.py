"""A baseline's `copies`: several distinct house agents of one scripted policy, so a game of
more seats than baselines + 1 (Ledger) forms a table with a single entrant. Each copy is its
own named, rated agent; bad values are refused naming the field; a restart that adds copies
keeps the first's agent, and one whose copy name an account's agent holds is refused."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from cogleague.core.errors import ConfigError
from cogleague.league.config import load
from cogleague.server.season_runtime import load_season, lone_waits
from season.season import account, post, query, register, season_file
from server.support import OPERATOR_KEY


def with_copies(path: Path, policy: str, copies: Any) -> Path:
    """`season_file`'s file with ``copies`` on the ``[[policies]]`` table named `policy`."""
    text = path.read_text()
    anchor = f'name = "{policy}"\n'
    assert anchor in text
    path.write_text(text.replace(anchor, f"{anchor}copies = {copies}\n", 1))
    return path


def test_copies_make_distinct_named_baselines(tmp_path: Path) -> None:
    config = load(with_copies(season_file(tmp_path), "tft", 3))
    tft = [p for p in config.policies if p.ref == "tit_for_tat"]
    assert [p.name for p in tft] == ["tft", "tft-2", "tft-3"]
    assert all(p.kind == "baseline" for p in tft)
    dilemma = next(g for g in config.games if g.name == "dilemma")
    assert {"tft", "tft-2", "tft-3", "defector"} == set(dilemma.policies)


@pytest.mark.parametrize("copies", [0, 17, '"2"', 2.5, "true"])
def test_a_bad_count_is_refused_naming_the_field(tmp_path: Path, copies: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        load(with_copies(season_file(tmp_path), "tft", copies))
    assert caught.value.field == "policies[0].copies"
    assert "policies[0].copies must be an integer in 1..16" in str(caught.value)


def test_copies_of_a_model_policy_are_refused(tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text("Cooperate.")
    path = season_file(tmp_path)
    path.write_text(path.read_text() + '\n[[policies]]\nname = "m"\nprompt = "p.txt"\n'
                    'model = "x"\ngames = ["dilemma"]\ncopies = 2\n')
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert caught.value.field == "policies[4].copies"
    assert "baseline policies only" in str(caught.value) and "m is a model" in str(caught.value)


def test_a_copy_named_like_another_policy_is_refused(tmp_path: Path) -> None:
    """Whichever comes second in the file is named: a policy after a copy, or a copy."""
    path = season_file(tmp_path)
    plain = path.read_text()
    path.write_text(plain.replace('name = "defector"', 'name = "tft-2"'))
    with pytest.raises(ConfigError) as caught:
        load(with_copies(path, "tft", 2))
    assert caught.value.field == "policies[1].name"
    assert "'tft-2' is used twice (policies[0] and policies[1]" in str(caught.value)
    path.write_text(plain.replace('name = "tft"', 'name = "defector-2"'))
    with pytest.raises(ConfigError) as caught:
        load(with_copies(path, "defector", 2))
    assert caught.value.field == "policies[1].copies"
    assert "'defector-2' is used twice (policies[0] and policies[1]" in str(caught.value)


def test_a_game_a_lone_agent_would_wait_in_is_said_at_the_start(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Ledger's eight seats with its five baselines: a lone entrant would wait for two more.
    Said at the start with the remedy; two more copies silence it."""
    path = season_file(tmp_path, ledger=True)
    with caplog.at_level(logging.WARNING, logger="cogleague.server"):
        config, _text = load_season(str(path))
    assert lone_waits(config) == [
        "games[2] (ledger quickfire) has 5 house agents for 8 seats, so a table waits for 3 "
        "registered agents; give a baseline policy copies = N for a table with one "
        "(docs/league.md)"]
    assert "ledger quickfire) has 5 house agents" in caplog.text
    assert lone_waits(load(with_copies(with_copies(path, "grim", 2), "saint", 2))) == []


async def test_a_restart_that_adds_copies(make_server: Any, tmp_path: Path) -> None:
    """Copies added to a running season register new house agents and keep the plain
    name's (its rating goes on); a copy name an account's agent holds is refused, naming it."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    path = season_file(tmp_path, tables=100000, final_top=0)
    first = make_server(db, season=str(path))
    key = await account(first.url, OPERATOR_KEY, "ada")
    await register(first.url, key, name="defector-2", games=["dilemma"])
    first.stop()
    (tft_id,) = query(db, "SELECT id FROM agents WHERE name = 'tft'")[0]
    plain = path.read_text()
    with_copies(path, "defector", 2)
    with pytest.raises(RuntimeError) as caught:
        make_server(db, season=str(path))
    assert "policies.defector-2: the name is a remote agent's" in str(caught.value)
    path.write_text(plain)
    with_copies(path, "tft", 2)
    make_server(db, season=str(path))
    rows = query(db, "SELECT name, id, kind, baseline FROM agents WHERE name LIKE 'tft%' "
                     "ORDER BY name")
    assert [(r[0], r[2], r[3]) for r in rows] == [("tft", "baseline", "tit_for_tat"),
                                                   ("tft-2", "baseline", "tit_for_tat")]
    assert rows[0][1] == tft_id


def _house(db: str) -> dict[str, tuple[int, str, str | None]]:
    """Each baseline agent: (id, state, reason)."""
    return {r[0]: (r[1], r[2], r[3]) for r in query(
        db, "SELECT name, id, state, reason FROM agents WHERE kind = 'baseline'")}


async def test_a_restart_with_fewer_copies_retires_the_others_and_more_bring_them_back(
        make_server: Any, tmp_path: Path) -> None:
    """The house follows the file: a copy (or a baseline policy) the file no longer has is
    retired at the start, said in the log — not deleted, so its agent page, results and
    rating stay, and it is no longer matched — and the file giving it back brings it back,
    the same agent. A baseline the operator registered by hand (never in the file) and a
    copy the operator retired by hand are left as they are."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    path = season_file(tmp_path, tables=100000, final_top=0)
    plain = path.read_text()
    with_copies(path, "tft", 3)
    first = make_server(db, season=str(path))
    await register(first.url, OPERATOR_KEY, name="extra", kind="baseline", games=["dilemma"],
                   baseline="tit_for_tat")
    first.stop()
    before = _house(db)
    assert {"tft", "tft-2", "tft-3", "defector", "extra"} <= set(before), before
    assert {s for _i, s, _r in before.values()} == {"active"}, before

    path.write_text(plain)  # tft alone again, and no defector
    path.write_text(path.read_text().replace('name = "defector"', 'name = "defector2"'))
    second = make_server(db, season=str(path))
    after = _house(db)
    for name in ("tft-2", "tft-3", "defector"):
        assert after[name] == (before[name][0], "retired", "no longer in the season file"), (
            name, after[name])
    assert after["tft"][1] == after["extra"][1] == "active", after
    said = second.log_path.read_text()
    assert "retired house agents defector, tft-2, tft-3: no longer in the season file" \
        in said, said[-3000:]
    page = httpx.get(f"{second.url}/agents/tft-3", timeout=10).json()["versions"][0]
    assert (page["state"], page["reason"]) == ("retired", "no longer in the season file")
    await post(second.url, OPERATOR_KEY, "/agents/tft/retire")  # the operator's own
    second.stop()

    with_copies(path, "tft", 2)  # tft-2 comes back; tft-3 and defector stay retired
    third = make_server(db, season=str(path))
    back = _house(db)
    assert back["tft-2"] == (before["tft-2"][0], "active", None), back
    assert back["tft-3"][1] == back["defector"][1] == "retired", back
    assert back["tft"][1] == "retired" and back["tft"][2] is None, back  # not the file's
    assert "house agent tft-2 is back: in the season file again" in \
        third.log_path.read_text()
