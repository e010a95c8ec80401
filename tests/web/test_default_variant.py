"""A table created without naming a variant plays its game's default variant, and the pages say
which (Chromium, real server on loopback): the Observatory heads its standings with the
default's name — one table with the tables that named it, never "variant not recorded" — and
the Lobby and the Theater name it too. "Variant not recorded" is said only when no variant can
be known: a game with variants and no default, or a game this server does not have."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from cogleague.games import registry
from cogleague.web import routes
from cogleague.web.standings import STORE_URL_STATE

from .conftest import OPERATOR_KEY, LiveServer, account

pytestmark = pytest.mark.browser

DEFAULT = registry.get("dilemma").default_variant
assert DEFAULT


def test_the_observatory_names_the_default_variant_of_an_unnamed_table(
        tmp_path: Path, open_page: Any) -> None:
    from cogleague.league.store import record_episode

    url = f"sqlite:///{tmp_path / 'league.db'}"
    for i, variant in enumerate((None, DEFAULT, None)):  # unnamed, then named: the same rules
        record_episode(url, game="dilemma", variant=variant, seed=i, table_id=f"t{i}",
                       policy_names=["tft", "defector", "pavlov"],
                       results={"scores": [10 - i, 4, 7], "reason": "complete"})
    app = FastAPI()
    app.include_router(routes.router)
    setattr(app.state, STORE_URL_STATE, url)
    with LiveServer(app) as server:
        p = open_page(1440, 900)
        p.page.goto(f"{server.url}/observatory?game=dilemma")
        p.page.wait_for_selector("[data-testid=standings-dilemma]")
        headings = p.page.locator("[data-testid=variant]").all_inner_texts()
        assert headings == [f"{DEFAULT} · 3 episodes · mean episode score"], headings
        assert "not recorded" not in p.page.locator("main").inner_text()
        assert p.errors == []


LABEL = """async ([variant, game]) => {
    const m = await import('/static/js/observatory.js');
    return m.variantLabel(variant, game);
}"""


@pytest.mark.parametrize(("variant", "game", "want"), [
    ("quick", {"variants": ["standard", "quick"], "default_variant": "standard"}, "quick"),
    (None, {"variants": ["standard", "quick"], "default_variant": "standard"}, "standard"),
    (None, {"variants": [], "default_variant": None}, None),  # a game without variants
    (None, {"variants": ["a", "b"], "default_variant": None}, "variant not recorded"),
    (None, None, "variant not recorded"),  # a game this server does not have
])
def test_variant_not_recorded_only_when_it_cannot_be_known(
        server: Any, open_page: Any, variant: str | None, game: dict[str, Any] | None,
        want: str | None) -> None:
    p = open_page(800, 600)
    p.page.goto(f"{server.url}/observatory?game=dilemma")
    p.page.wait_for_selector("body[data-ready=observatory]")
    assert p.page.evaluate(LABEL, [variant, game]) == want


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("variant") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def test_the_lobby_and_theater_name_the_default_variant_of_an_unnamed_table(
        server: Any, open_page: Any) -> None:
    http = server.http
    creator = account(http, "unnamed-variant")
    res = http.post("/tables", headers=creator, json={"game": "dilemma", "pacing": False})
    res.raise_for_status()
    table = res.json()
    assert table["variant"] is None  # the table records none; it plays the default
    tid = table["id"]
    p = open_page(1440, 900)
    p.page.goto(f"{server.url}/")
    card = p.page.locator(f"[data-testid=table-{tid}] h3")
    card.wait_for()
    assert DEFAULT in card.inner_text(), card.inner_text()
    p.page.goto(f"{server.url}/theater?table={tid}")
    p.page.wait_for_selector("body[data-ready=waiting]")
    title = p.page.locator("#title").inner_text()
    assert title.endswith(f" · {DEFAULT}"), title
    assert p.errors == []
