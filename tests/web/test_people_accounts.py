"""People's accounts over HTTP on a real server: sign-up with a scrypt password, a session
cookie that is HttpOnly and SameSite=Strict, the CSRF header every changing cookie request
needs, sign-in and sign-out, a new API key for the person's bots, and the operator's switch
that turns self sign-up off."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from cogleague.server.people import COOKIE, CSRF_HEADER

from .conftest import OPERATOR_KEY, LiveServer

PASSWORD = "correct horse battery"


def _server(tmp: Path, **settings: Any) -> LiveServer:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    return LiveServer(create_app(Settings(db_url=f"sqlite:///{tmp / 'server.db'}",
                                          operator_key=OPERATOR_KEY, **settings)))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("people")
    with _server(tmp) as live:
        live.db = tmp / "server.db"  # type: ignore[attr-defined]
        yield live


def test_sign_up_sets_a_safe_cookie_and_stores_only_a_scrypt_hash(site: Any) -> None:
    with httpx.Client(base_url=site.url) as browser:
        res = browser.post("/people", json={"name": "ada", "password": PASSWORD})
        assert res.status_code == 201, res.text
        doc = res.json()
        assert doc["name"] == "ada" and doc["api_key"].startswith("clk_") and doc["csrf"]
        cookie = res.headers["set-cookie"].lower()
        assert f"{COOKIE}=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
        me = browser.get("/session").json()
        assert me["signed_in"] and me["name"] == "ada" and me["csrf"] == doc["csrf"]
        # the key shown at sign-up works for bots
        assert httpx.get(f"{site.url}/account", headers={
            "Authorization": f"Bearer {doc['api_key']}"}).json()["name"] == "ada"
    with sqlite3.connect(site.db) as db:
        stored = db.execute("SELECT password FROM accounts WHERE name = 'ada'").fetchone()[0]
    assert stored.startswith("scrypt$16384$8$1$") and PASSWORD not in stored


def test_a_cookie_post_without_the_csrf_header_is_refused(site: Any) -> None:
    with httpx.Client(base_url=site.url) as browser:
        csrf = browser.post("/people", json={"name": "bea", "password": PASSWORD}).json()["csrf"]
        body = {"game": "dilemma", "fill_with": "tit_for_tat", "people": True}
        refused = browser.post("/tables", json=body)
        assert refused.status_code == 403 and CSRF_HEADER in refused.json()["error"]["message"]
        wrong = browser.post("/tables", json=body, headers={CSRF_HEADER: "0" * 64})
        assert wrong.status_code == 403
        made = browser.post("/tables", json=body, headers={CSRF_HEADER: csrf})
        assert made.status_code == 201, made.text
        table = made.json()
        # a table for people takes the game's human deadline (30 s a dilemma turn)
        assert table["config"]["turn_deadline_ms"] == 30_000
        joined = browser.post(f"/tables/{table['id']}/join", json={"kind": "human", "seat": 2},
                              headers={CSRF_HEADER: csrf})
        assert joined.status_code == 200, joined.text
        seats = browser.get(f"/tables/{table['id']}").json()["seats"]
        assert [s["person"] for s in seats] == [False, False, True, False]


def test_sign_in_sign_out_and_a_new_api_key(site: Any) -> None:
    with httpx.Client(base_url=site.url) as browser:
        first = browser.post("/people", json={"name": "cy", "password": PASSWORD}).json()
    with httpx.Client(base_url=site.url) as browser:
        bad = browser.post("/session", json={"name": "cy", "password": "not the password"})
        assert bad.status_code == 401 and not browser.get("/session").json()["signed_in"]
        assert browser.post("/session", json={"name": "nobody", "password": PASSWORD}
                            ).status_code == 401
        csrf = browser.post("/session", json={"name": "cy", "password": PASSWORD}).json()["csrf"]
        assert browser.post("/session/api-key").status_code == 403  # no CSRF header
        key = browser.post("/session/api-key", headers={CSRF_HEADER: csrf}).json()["api_key"]
        assert key != first["api_key"]
        assert httpx.get(f"{site.url}/account",
                         headers={"Authorization": f"Bearer {key}"}).status_code == 200
        assert httpx.get(f"{site.url}/account", headers={
            "Authorization": f"Bearer {first['api_key']}"}).status_code == 401
        assert browser.delete("/session", headers={CSRF_HEADER: csrf}).status_code == 200
        assert not browser.get("/session").json()["signed_in"]
        assert browser.post("/tables", json={"game": "dilemma"},
                            headers={CSRF_HEADER: csrf}).status_code == 401


def test_bad_sign_up_input_names_the_field(site: Any) -> None:
    short = httpx.post(f"{site.url}/people", json={"name": "dee", "password": "short"})
    assert short.status_code == 400 and "password" in short.json()["error"]["message"]
    spaced = httpx.post(f"{site.url}/people", json={"name": "two words", "password": PASSWORD})
    assert spaced.status_code == 400 and "name" in spaced.json()["error"]["message"]
    httpx.post(f"{site.url}/people", json={"name": "eve", "password": PASSWORD})
    taken = httpx.post(f"{site.url}/people", json={"name": "eve", "password": PASSWORD})
    assert taken.status_code == 409


def test_a_sign_up_at_a_taken_name_spends_no_password_hash(
        site: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A taken name is refused before scrypt (about 0.3 s of CPU each): a flood of sign-ups
    at taken names costs the server a read each, not a hash each."""
    from cogleague.server import passwords

    hashes: list[str] = []
    real = passwords.hash_password

    def counted(password: str) -> str:
        hashes.append(password)
        return real(password)

    httpx.post(f"{site.url}/people", json={"name": "fay", "password": PASSWORD})
    monkeypatch.setattr(passwords, "hash_password", counted)
    taken = httpx.post(f"{site.url}/people", json={"name": "fay", "password": PASSWORD})
    assert taken.status_code == 409 and "taken" in taken.json()["error"]["message"]
    assert hashes == []
    fresh = httpx.post(f"{site.url}/people", json={"name": "gus", "password": PASSWORD})
    assert fresh.status_code == 201 and len(hashes) == 1


def test_the_operator_can_turn_self_sign_up_off(tmp_path: Path) -> None:
    with _server(tmp_path, web_signup=False) as live:
        res = httpx.post(f"{live.url}/people", json={"name": "fay", "password": PASSWORD})
        assert res.status_code == 403 and "turned off" in res.json()["error"]["message"]
        assert httpx.get(f"{live.url}/session").json() == {"signed_in": False,
                                                           "web_signup": False}


def test_with_sign_up_off_a_person_signs_in_with_an_account_the_operator_made(
        tmp_path: Path) -> None:
    """docs/play.md: with --no-web-signup people sign in with accounts the operator made; the
    operator gives such an account its first password (only the operator may)."""
    op = {"Authorization": f"Bearer {OPERATOR_KEY}"}
    with _server(tmp_path, web_signup=False, open_registration=True) as live:
        made = httpx.post(f"{live.url}/accounts", headers=op,
                          json={"name": "gus", "password": PASSWORD})
        assert made.status_code == 201, made.text
        assert "password" not in made.json()
        with httpx.Client(base_url=live.url) as browser:
            signed_in = browser.post("/session", json={"name": "gus", "password": PASSWORD})
            assert signed_in.status_code == 200, signed_in.text
            assert browser.get("/session").json()["name"] == "gus"
        # open registration, but not the operator: no password (that would be sign-up)
        player = {"Authorization": f"Bearer {made.json()['api_key']}"}
        anyone = httpx.post(f"{live.url}/accounts", headers=player,
                            json={"name": "hal", "password": PASSWORD})
        assert anyone.status_code == 403 and "password" in anyone.json()["error"]["message"]
        assert httpx.post(f"{live.url}/accounts", json={"name": "hal", "password": PASSWORD}
                          ).status_code == 401
        short = httpx.post(f"{live.url}/accounts", headers=op,
                           json={"name": "ivy", "password": "short"})
        assert short.status_code == 400 and "password" in short.json()["error"]["message"]
        for name in ("hal", "ivy"):
            assert httpx.post(f"{live.url}/session", json={"name": name, "password": PASSWORD}
                              ).status_code == 401
    with sqlite3.connect(tmp_path / "server.db") as db:
        stored = db.execute("SELECT password FROM accounts WHERE name = 'gus'").fetchone()[0]
        assert db.execute("SELECT count(*) FROM accounts WHERE name IN ('hal', 'ivy')"
                          ).fetchone()[0] == 0
    assert stored.startswith("scrypt$") and PASSWORD not in stored
