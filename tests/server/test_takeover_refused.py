"""A seat that connects while the take-over of its table fails (the process running it died;
the process the seat reaches cannot take the lease: here the database refuses the claim) is
told to come back, with `Retry-After` and the seconds in the message, as for any other
passing trouble; the refusal carries no database text. Once the take-over can succeed, the
same seat connects and plays (before: the handler's exception reached the client as a bare
500 with nothing to say when to retry). Two real processes on a throwaway PostgreSQL."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import pytest
from sqlalchemy import create_engine, text
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from cogleague.client import LobbyClient
from cogleague.server.store import engine_url
from server.multiproc import open_table
from server.support import ServerProcess

pytestmark = pytest.mark.postgres

REFUSE = """
CREATE FUNCTION refuse_takeover() RETURNS trigger AS $$
BEGIN RAISE EXCEPTION 'take-over refused: secret-db-detail'; END $$ LANGUAGE plpgsql;
CREATE TRIGGER refuse_takeover BEFORE UPDATE ON tables FOR EACH ROW
WHEN (NEW.owner IS DISTINCT FROM OLD.owner) EXECUTE FUNCTION refuse_takeover();
"""


async def test_a_seat_reaching_a_failing_take_over_is_told_when_to_retry(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    db = pg_cluster.new_database()
    owner = make_server(db, lease_ttl_s=1.0, lease_renew_s=0.2)
    # no lease round within the test (the first runs at start): it takes over on a seat only
    other = make_server(db, lease_ttl_s=7200.0, lease_renew_s=3600.0)
    table, creator, remote = await open_table(
        owner, "toy", [object(), "const1"], ["waiting", "scripted"], seed=1,
        config={"seats": 2, "rounds": 1000, "timeout_s": 60})
    async with LobbyClient(owner.url, creator) as lobby:
        await lobby.start(table)
    owner.kill()
    time.sleep(1.5)  # its lease lapses
    engine = create_engine(engine_url(db))
    with engine.begin() as conn:
        conn.execute(text(REFUSE))
    seat, token = remote[0]
    url = other.url.replace("http://", "ws://") + "/ws/play?" + urlencode(
        {"table": table, "seat": seat, "token": token})
    try:
        with pytest.raises(InvalidStatus) as refused:
            async with connect(url, proxy=None):
                pass
        response = refused.value.response
        assert response.status_code == 503, (response.status_code, response.body)
        wait = int(response.headers["Retry-After"])
        assert 1 <= wait <= 5, response.headers
        error = json.loads(response.body)["error"]
        assert error["code"] == "unavailable", error
        assert f"reconnect in {wait} s" in error["message"], error
        assert "secret-db-detail" not in error["message"], error
        with engine.begin() as conn:
            conn.execute(text("DROP TRIGGER refuse_takeover ON tables"))
        async with connect(url, proxy=None) as ws:  # the take-over goes through now
            assert json.loads(await ws.recv())["type"] == "hello"
    finally:
        engine.dispose()
    assert "secret-db-detail" in other.log_path.read_text()  # the operator sees why
