"""A person's new API key retires the old one on every process sharing the database, not only
on the process that made it: each process caches accounts by key digest, so the others must
hear of the change (PostgreSQL NOTIFY)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from cogleague.server.people import CSRF_HEADER
from server.support import OPERATOR_KEY, ServerProcess

pytestmark = pytest.mark.postgres
PASSWORD = "correct horse battery"
HEARD_WITHIN_S = 5.0


def test_a_new_api_key_retires_the_old_one_on_every_process(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    db = pg_cluster.new_database()
    a, b = make_server(db), make_server(db)
    with httpx.Client(base_url=a.url) as browser:
        signed_up = browser.post("/people", json={"name": "rot", "password": PASSWORD})
        assert signed_up.status_code == 201, signed_up.text
        old = signed_up.json()["api_key"]
        # process b has seen (and cached) the old key
        assert httpx.get(f"{b.url}/account", headers={"Authorization": f"Bearer {old}"}
                         ).status_code == 200
        new = browser.post("/session/api-key", headers={
            CSRF_HEADER: signed_up.json()["csrf"]}).json()["api_key"]
    assert httpx.get(f"{a.url}/account", headers={"Authorization": f"Bearer {old}"}
                     ).status_code == 401
    deadline = time.monotonic() + HEARD_WITHIN_S
    status = 200
    while time.monotonic() < deadline:
        status = httpx.get(f"{b.url}/account", headers={"Authorization": f"Bearer {old}"}
                           ).status_code
        if status == 401:
            break
        time.sleep(0.1)
    assert status == 401, f"the old key still works on the other process after {HEARD_WITHIN_S} s"
    assert httpx.get(f"{b.url}/account", headers={"Authorization": f"Bearer {new}"}
                     ).json()["name"] == "rot"


def test_a_new_operator_key_retires_the_old_one_on_the_running_processes(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    """A process started with a new `--operator-key` (a rolling restart after a leak) writes
    it to the shared database; the processes still running must stop taking the old one too
    (before: they had it cached and took it until their own restart)."""
    db = pg_cluster.new_database()
    running = make_server(db)
    old = {"Authorization": f"Bearer {OPERATOR_KEY}"}
    assert httpx.get(f"{running.url}/account", headers=old).json()["name"] == "operator"
    new_key = "test-operator-key-rotated-987654321"
    restarted = make_server(db, operator_key=new_key)
    new = {"Authorization": f"Bearer {new_key}"}
    assert httpx.get(f"{restarted.url}/account", headers=new).status_code == 200
    deadline = time.monotonic() + HEARD_WITHIN_S
    status = 200
    while time.monotonic() < deadline:
        status = httpx.get(f"{running.url}/account", headers=old).status_code
        if status == 401:
            break
        time.sleep(0.1)
    assert status == 401, f"the old operator key still works after {HEARD_WITHIN_S} s"
    assert httpx.get(f"{running.url}/account", headers=new).json()["name"] == "operator"
