"""Self sign-up is limited per client address: each `POST /people` costs an scrypt hash and
makes an account, so one client may make only a few within a window, then gets 429 with the
seconds to wait. The count lives in the database, so it holds on a restarted process and
across the processes sharing one database (before: no limit at all)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.support import OPERATOR_KEY, ServerProcess

PASSWORD = "correct horse battery"


def _sign_up(url: str, name: str) -> httpx.Response:
    return httpx.post(f"{url}/people", json={"name": name, "password": PASSWORD}, timeout=30)


def test_one_client_makes_a_few_accounts_then_is_told_when_to_retry(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'server.db'}"
    server = make_server(db, sign_ups_per_client=3, sign_up_window_s=3.0)
    for i in range(3):
        made = _sign_up(server.url, f"person{i}")
        assert made.status_code == 201, made.text
    refused = _sign_up(server.url, "person3")
    assert refused.status_code == 429, refused.text
    error = refused.json()["error"]
    assert error["code"] == "rate_limited", error
    assert "3 sign-ups" in error["message"] and "try again in" in error["message"], error
    wait = int(refused.headers["retry-after"])
    assert 0 < wait <= 4, refused.headers
    assert f"try again in {wait} s" in error["message"], error
    assert _sign_up(server.url, "person0").status_code == 409  # a taken name: a read, no count
    time.sleep(wait + 0.2)
    assert _sign_up(server.url, "person3").status_code == 201


def test_a_restart_does_not_reset_the_count(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'server.db'}"
    first = make_server(db, sign_ups_per_client=2, sign_up_window_s=600.0)
    for name in ("ann", "bob"):
        assert _sign_up(first.url, name).status_code == 201
    first.stop()
    again = make_server(db, sign_ups_per_client=2, sign_up_window_s=600.0)
    refused = _sign_up(again.url, "cy")
    assert refused.status_code == 429, refused.text


async def test_sign_ups_sent_at_once_are_counted_before_they_are_hashed(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'server.db'}", sign_ups_per_client=4)
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        answers = await asyncio.gather(*(
            http.post("/people", json={"name": f"crowd{i}", "password": PASSWORD})
            for i in range(20)))
    codes = sorted(a.status_code for a in answers)
    assert codes.count(201) == 4 and codes.count(429) == 16, codes


@pytest.mark.postgres
def test_two_processes_share_one_budget_per_client(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    db_url = pg_cluster.new_database()
    a = make_server(db_url, sign_ups_per_client=4, sign_up_window_s=600.0)
    b = make_server(db_url, sign_ups_per_client=4, sign_up_window_s=600.0)
    codes = [_sign_up(server.url, f"spread{i}").status_code
             for i, server in enumerate([a, b] * 4)]
    assert codes == [201] * 4 + [429] * 4, codes


def test_behind_a_trusted_proxy_each_client_has_its_own_budget(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    """The proxy (here on loopback, which uvicorn trusts by default; others by
    ``FORWARDED_ALLOW_IPS``, docs/deploy.md) names the client in ``X-Forwarded-For``: the
    count is the client's, so one client's sign-ups do not lock out every other's."""
    server = make_server(f"sqlite:///{tmp_path / 'server.db'}", sign_ups_per_client=1)

    def via_proxy(name: str, client: str) -> int:
        return httpx.post(f"{server.url}/people", json={"name": name, "password": PASSWORD},
                          headers={"X-Forwarded-For": client}, timeout=30).status_code

    assert via_proxy("first", "203.0.113.7") == 201
    assert via_proxy("second", "203.0.113.7") == 429
    assert via_proxy("third", "198.51.100.9") == 201


def test_open_registration_counts_the_same_budget(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    """Under open registration anyone makes accounts with `POST /accounts` (no password, no
    key): a few per client address as for sign-up (before: unlimited); the operator's are
    not counted."""
    server = make_server(f"sqlite:///{tmp_path / 'server.db'}", open_registration=True,
                         sign_ups_per_client=2)
    codes = [httpx.post(f"{server.url}/accounts", json={"name": f"bot{i}"}).status_code
             for i in range(3)]
    assert codes == [201, 201, 429], codes
    op = {"Authorization": f"Bearer {OPERATOR_KEY}"}
    assert httpx.post(f"{server.url}/accounts", json={"name": "opmade"},
                      headers=op).status_code == 201
