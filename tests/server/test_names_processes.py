"""One name, asked for at the same moment on two processes sharing a PostgreSQL database (a
person's sign-up, the operator's `POST /accounts`): one request gets the account, every other
gets `409` naming the name — never a 500 — and exactly one account holds the name."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, func, select

from cogleague.server.store import accounts, engine_url
from server.support import OPERATOR_KEY, ServerProcess

pytestmark = pytest.mark.postgres
ROUNDS = 12
EACH = 2
"""Requests per process and name: within one process database work is serialized, so the
race is between processes."""


@pytest.mark.parametrize("path", ["/people", "/accounts"])
def test_a_name_asked_for_on_two_processes_at_once_is_given_once(
        pg_cluster: Any, make_server: Callable[..., ServerProcess], path: str) -> None:
    db = pg_cluster.new_database()
    many = {"sign_ups_per_client": 1000}  # every request comes from one address here
    a, b = make_server(db, **many), make_server(db, **many)
    headers = {"Authorization": f"Bearer {OPERATOR_KEY}"} if path == "/accounts" else {}

    def ask(url: str, name: str) -> httpx.Response:
        body: dict[str, Any] = {"name": name}
        if path == "/people":
            body["password"] = "correct horse battery"
        return httpx.post(f"{url}{path}", json=body, headers=headers, timeout=60)

    names = [f"twin{i}" for i in range(ROUNDS)]
    with ThreadPoolExecutor(2 * EACH) as pool:
        for name in names:
            answers = list(pool.map(ask, [a.url, b.url] * EACH, [name] * 2 * EACH))
            codes = sorted(r.status_code for r in answers)
            assert codes == [201] + [409] * (2 * EACH - 1), (name, [r.text for r in answers])
            for r in answers:
                if r.status_code == 409:
                    assert repr(name) in r.json()["error"]["message"]
    engine = create_engine(engine_url(db))
    with engine.connect() as conn:
        counts = dict(conn.execute(select(accounts.c.name, func.count()).where(
            accounts.c.name.in_(names)).group_by(accounts.c.name)).all())
    engine.dispose()
    assert counts == dict.fromkeys(names, 1)
