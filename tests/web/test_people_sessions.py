"""Sessions and accounts on a real server, from the attacker's side: a cookie after sign-out,
past its expiry, altered by one character or replaced by its stored digest is refused; one
person's session cannot act for another (their CSRF token, table, seat or wallet); and no
body sent to sign-up or sign-in, however malformed, gets a 500 or stores anything."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogleague.server.people import COOKIE, CSRF_HEADER

from .conftest import OPERATOR_KEY, LiveServer

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    tmp = tmp_path_factory.mktemp("sessions")
    app = create_app(Settings(db_url=f"sqlite:///{tmp / 'server.db'}",
                              operator_key=OPERATOR_KEY))
    with LiveServer(app) as live:
        live.db = tmp / "server.db"  # type: ignore[attr-defined]
        yield live


def _person(site: Any, name: str) -> tuple[httpx.Client, dict[str, Any]]:
    browser = httpx.Client(base_url=site.url)
    res = browser.post("/people", json={"name": name, "password": PASSWORD})
    assert res.status_code == 201, res.text
    return browser, res.json()


def _signed_in(site: Any, cookie: str) -> bool:
    return bool(httpx.get(f"{site.url}/session", cookies={COOKIE: cookie}).json()["signed_in"])


def test_a_stale_or_altered_cookie_is_refused(site: Any) -> None:
    browser, me = _person(site, "stale")
    cookie = browser.cookies[COOKIE]
    assert _signed_in(site, cookie)
    altered = cookie[:-1] + ("A" if cookie[-1] != "A" else "B")
    assert not _signed_in(site, altered)
    assert not _signed_in(site, hashlib.sha256(cookie.encode()).hexdigest())  # what is stored
    assert browser.delete("/session", headers={CSRF_HEADER: me["csrf"]}).status_code == 200
    assert not _signed_in(site, cookie)  # the server forgot it, not only the browser
    replayed = httpx.post(f"{site.url}/tables", json={"game": "dilemma"},
                          cookies={COOKIE: cookie}, headers={CSRF_HEADER: me["csrf"]})
    assert replayed.status_code == 401

    again, me = _person(site, "expiring")
    with sqlite3.connect(site.db) as db:
        db.execute("UPDATE web_sessions SET expires_at = ? WHERE account_id = ?",
                   (time.time() - 1, me["id"]))
    assert not again.get("/session").json()["signed_in"]
    assert again.post("/tables", json={"game": "dilemma"},
                      headers={CSRF_HEADER: me["csrf"]}).status_code == 401


def test_one_persons_session_cannot_act_for_another(site: Any) -> None:
    a, me_a = _person(site, "alpha")
    b, me_b = _person(site, "beta")
    as_a, as_b = {CSRF_HEADER: me_a["csrf"]}, {CSRF_HEADER: me_b["csrf"]}
    assert a.post("/tables", json={"game": "dilemma"}, headers=as_b).status_code == 403
    table = b.post("/tables", json={"game": "dilemma"}, headers=as_b).json()
    assert b.post(f"/tables/{table['id']}/join", json={"kind": "human"},
                  headers=as_b).status_code == 200
    assert a.post(f"/tables/{table['id']}/start", headers=as_a).status_code == 403
    assert a.post(f"/tables/{table['id']}/leave", headers=as_a).status_code == 404
    assert b.get(f"/tables/{table['id']}").json()["seats"][0]["taken"]
    assert a.get("/wallet").json()["account"] == me_a["id"]
    assert a.get("/account").json()["name"] == "alpha"
    new = a.post("/session/api-key", headers=as_a).json()
    assert new["name"] == "alpha"
    assert httpx.get(f"{site.url}/account", headers={  # beta's key is untouched
        "Authorization": f"Bearer {me_b['api_key']}"}).json()["name"] == "beta"


def _accounts(site: Any) -> int:
    with sqlite3.connect(site.db) as db:
        return int(db.execute("SELECT count(*) FROM accounts").fetchone()[0])


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=6)
BAD_CREDENTIALS = st.fixed_dictionaries({}, optional={
    "name": JSON | st.sampled_from(["", "two words", "x" * 65, "é", "ok\n"]),
    "password": JSON | st.sampled_from(["", "short", "x" * 201]),
    "extra": JSON})


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=BAD_CREDENTIALS | JSON, path=st.sampled_from(["/people", "/session"]))
def test_malformed_credentials_get_a_400_naming_a_field_and_store_nothing(
        site: Any, body: Any, path: str) -> None:
    valid = (isinstance(body, dict) and set(body) == {"name", "password"}
             and isinstance(body["name"], str) and isinstance(body["password"], str)
             and re.fullmatch(r"[A-Za-z0-9_.\-]{1,64}", body["name"]) is not None
             and 8 <= len(body["password"]) <= 200)
    if valid:
        return  # only malformed bodies here
    before = _accounts(site)
    res = httpx.post(f"{site.url}{path}", content=json.dumps(body),
                     headers={"Content-Type": "application/json"})
    assert res.status_code == 400, (body, res.text)
    message = res.json()["error"]["message"]
    assert message.split(":")[0] in {"body", "name", "password", "extra"}, message
    assert COOKIE not in res.headers.get("set-cookie", "")
    assert _accounts(site) == before


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(max_size=40), path=st.sampled_from(["/people", "/session"]))
def test_a_body_that_is_not_json_is_a_400_about_the_body(site: Any, text: str,
                                                         path: str) -> None:
    try:
        json.loads(text)
    except ValueError:
        pass
    else:
        return  # JSON after all: the test above
    res = httpx.post(f"{site.url}{path}", content=text.encode("utf-8", "surrogatepass"),
                     headers={"Content-Type": "application/json"})
    assert res.status_code == 400, res.text
    assert res.json()["error"]["message"].startswith("body: "), res.text
