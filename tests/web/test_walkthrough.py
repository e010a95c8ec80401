"""A new person's walk through the pages, in Chromium against the real server: each test is a
defect found that way — a replay file reachable by keyboard, a table option out of range named
with its range (also when the options are folded away), every option of a game offered, the
same seat numbers on the Lobby and the Play page, and a whole game of a plugin without a viewer
module played by keyboard at a phone's width (its rounds counted from 1, axe clean at the end),
the Observatory's and the Rules' chosen tab told by more than a colour, a finished table's
/play leading to its replay, a bad name or password on sign-up/in and a round out of the
replay on the Theater's "jump to round" named with what they allow."""

from __future__ import annotations

import re
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import cogleague

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import audit, overflow
from .test_people import sign_up

pytestmark = pytest.mark.browser

STATUS = "[data-testid=maker] [role=status]"


def _found(pattern: str, text: str) -> str:
    """The first group of `pattern` in `text` (the test fails when it is not there)."""
    match = re.search(pattern, text, re.I)
    assert match, (pattern, text)
    return match.group(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("walk") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def test_a_replay_file_opens_by_keyboard(server: Any, open_page: Any, tmp_path: Path) -> None:
    saved = cogleague.play("dilemma", seed=3, rounds_total=2).save(tmp_path / "run")
    p = open_page(360, 740)
    page = p.page
    page.on("filechooser", lambda _: None)  # intercepted from the start: no race with Space
    page.goto(f"{server.url}/theater")
    page.wait_for_selector("#drop")
    for _ in range(20):  # Tab from the top of the page to the file chooser
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "file":
            break
    else:
        pytest.fail("Tab never reaches the Theater's file chooser")
    with page.expect_file_chooser() as chooser:
        page.keyboard.press("Space")
    chooser.value.set_files(str(saved / "replay.json"))
    page.wait_for_selector("body[data-ready=replay]")
    assert p.errors == []


def _open_maker(page: Any, game: str) -> None:
    page.click("#maker-h")
    page.select_option("[data-testid=mk-game]", game)
    page.click("[data-testid=maker] summary")


def test_an_option_out_of_range_is_named_with_its_range(server: Any, open_page: Any) -> None:
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "ranger")
    _open_maker(page, "commons")
    page.fill("[data-option=rounds]", "500")
    page.click("[data-testid=maker] summary")  # fold the options away again
    page.click("[data-testid=mk-create]")
    with suppress(PlaywrightTimeout):  # the form answers at once; a silent page gets 30 s
        page.wait_for_function(f"document.querySelector('{STATUS}').textContent",
                               timeout=30_000)
    text = page.locator(STATUS).inner_text()
    assert "rounds" in text and "1" in text and "100" in text, text
    assert page.evaluate("document.querySelector('[data-testid=maker] details').open")
    assert page.evaluate("document.activeElement.dataset.option") == "rounds"
    assert page.input_value("[data-option=rounds]") == "500"  # what was typed is kept
    assert page.url.rstrip("/") == server.url  # no table was made
    assert server.http.get("/tables").json()["tables"] == []
    assert p.errors == []


def test_every_option_of_a_game_is_offered(server: Any, open_page: Any) -> None:
    """Options whose schema puts the allowed words beside `anyOf` (an optional enum) too."""
    p = open_page(1440, 900)
    page = p.page
    sign_up(page, server.url, "chooser")
    _open_maker(page, "commons")
    page.select_option("[data-testid=mk-variant]", "harvest-open")
    rights = page.locator("[data-testid=maker] [data-option=property_rights] option")
    assert rights.all_inner_texts() == ["default", "open", "closed", "partnership"]
    page.select_option("[data-option=property_rights]", "closed")
    page.select_option("[data-testid=mk-fill]", "")
    page.uncheck("[data-testid=mk-sit]")
    page.click("[data-testid=mk-create]")
    page.wait_for_function(f"/is open/.test(document.querySelector('{STATUS}').textContent)")
    tid = _found(r"(t_[0-9a-f]+)", page.inner_text(STATUS))
    table = server.http.get(f"/tables/{tid}").json()
    assert table["config"]["property_rights"] == "closed"
    assert p.errors == []


def test_the_lobby_and_the_play_page_number_seats_alike(server: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    page = p.page
    sign_up(page, server.url, "counter")
    _open_maker(page, "dilemma")
    page.select_option("[data-testid=mk-fill]", "")
    page.uncheck("[data-testid=mk-sit]")
    page.click("[data-testid=mk-create]")
    page.wait_for_function(f"/is open/.test(document.querySelector('{STATUS}').textContent)")
    tid = _found(r"(t_[0-9a-f]+)", page.inner_text(STATUS))
    card = page.locator(f"[data-testid=table-{tid}]")
    card.wait_for()
    chips = card.locator(".seat.free").all_inner_texts()
    in_lobby = [_found(r"seat (\d+)", c) for c in chips]
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    options = page.locator("[data-testid=seat] option").all_inner_texts()
    in_play = [_found(r"seat (\d+)", o) for o in options]
    assert in_lobby == in_play
    page.goto(f"{server.url}/theater?table={tid}")  # the not-started Theater lists them too
    page.wait_for_selector("body[data-ready=waiting]")
    listed = page.locator("#theater .seats li").all_inner_texts()
    assert [_found(r"seat (\d+)", x) for x in listed] == in_play
    assert p.errors == []


def test_a_plugin_without_a_viewer_played_by_keyboard_on_a_phone(server: Any,
                                                                 open_page: Any) -> None:
    pytest.importorskip("cogleague_threshold",
                        reason="pip install -e examples/threshold for the fourth game")
    assert cogleague.game("threshold").viewer is None  # the generic seat renderer
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "phone")
    page.focus("[data-testid=play-now-threshold]")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-ready=play]")
    headings, seen = set(), ""
    for _ in range(60):
        page.wait_for_function("""(last) => document.body.dataset.ended === '1'
            || (document.body.dataset.turn && document.body.dataset.turn !== last)""", arg=seen)
        if page.evaluate("document.body.dataset.ended") == "1":
            break
        seen = page.evaluate("document.body.dataset.turn")
        title = page.locator("[data-testid=turn] h2").inner_text()
        heading = _found(r"round (\d+)", title)
        headings.add(int(heading))
        shown = page.locator("[data-testid=view] dt", has_text=re.compile("^Round$"))
        assert shown.locator("xpath=following-sibling::dd[1]").inner_text() == heading
        # the seat's own index is said ("You are seat 1 (alias)."), never a bare "you 0"
        assert re.fullmatch(r"You are seat \d+ \(.+\)\.",
                            page.locator("[data-testid=seat-who]").inner_text()), "no seat line"
        raw_you = re.compile("^you$", re.I)
        assert page.locator("[data-testid=view] dt", has_text=raw_you).count() == 0
        page.keyboard.press("Enter")  # the focus is on the first control: Enter sends
    page.wait_for_selector("[data-testid=endcard]")
    tid = _found(r"(t_[0-9a-f]+)", page.url)
    rounds = server.http.get(f"/tables/{tid}/results").json()["rounds_played"]
    assert headings == set(range(1, rounds + 1))
    said = {int(n) for line in page.locator("[data-testid=happened]").all_inner_texts()
            for n in re.findall(r"\bround (\d+)", line)}
    assert said and said <= headings, (said, headings)
    assert audit(page) == [] and overflow(page) <= 0
    assert p.errors == []


def test_the_rules_say_which_page_is_chosen(server: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/rules?doc=ledger")
    page.wait_for_selector("body[data-ready=rules]")
    title = cogleague.game("ledger").title
    assert page.get_by_role("button", pressed=True).all_inner_texts() == [title]
    assert p.errors == []


def test_the_observatory_says_which_game_is_chosen(server: Any, open_page: Any) -> None:
    """The chosen game's tab differs by more than its colour: a screen reader hears it."""
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/observatory?game=dilemma")
    page.wait_for_selector("body[data-ready=observatory]")
    title = cogleague.game("dilemma").title
    assert page.get_by_role("button", pressed=True).all_inner_texts() == [title]
    page.get_by_role("button", name=cogleague.game("ledger").title).focus()
    page.keyboard.press("Enter")
    assert page.get_by_role("button", pressed=True).all_inner_texts() == \
        [cogleague.game("ledger").title]
    assert page.get_by_role("button", pressed=False).count() >= 2
    assert p.errors == []


def test_a_finished_table_on_the_play_page_leads_to_its_replay(server: Any,
                                                               open_page: Any) -> None:
    """/play?table=ID of a table that ended (a reload after the end banner, an old link): no
    seat to take, and the page says where to watch it instead of ending there."""
    creator = account(server.http, "finisher")
    tid = server.http.post("/tables", headers=creator, json={
        "game": "dilemma", "seed": 2, "pacing": False, "config": {"rounds_total": 2},
        "fill_with": "tit_for_tat"}).json()["id"]
    server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
    deadline = time.monotonic() + 60
    while server.http.get(f"/tables/{tid}").json()["state"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    p = open_page(360, 740)
    page = p.page
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=error]")
    assert "finished" in page.inner_text("#play")
    page.get_by_role("link", name="Watch the replay →").click()
    page.wait_for_selector("body[data-ready=replay]")
    assert page.url.endswith(f"/theater?table={tid}")
    assert p.errors == []


@pytest.mark.parametrize("mode", ["signup", "signin"])
def test_a_bad_name_or_password_is_named_with_what_it_allows(server: Any, open_page: Any,
                                                             mode: str) -> None:
    p = open_page(360, 740)
    page = p.page
    page.goto(f"{server.url}/{mode}")
    page.wait_for_selector(f"body[data-ready={mode}]")
    status = "[data-testid=auth-status]"
    page.fill("[data-testid=name]", "bad name!")
    page.fill("[data-testid=password]", "a long enough password")
    page.click("[data-testid=submit]")
    page.wait_for_function(f"document.querySelector('{status}').textContent")
    text = page.inner_text(status)
    assert text.startswith("Name:") and "letters, digits" in text and "64" in text, text
    assert page.evaluate("document.activeElement.dataset.testid") == "name"
    page.fill("[data-testid=name]", "good-name")
    page.fill("[data-testid=password]", "short")
    page.click("[data-testid=submit]")
    page.wait_for_function(f"/Password/.test(document.querySelector('{status}').textContent)")
    assert "8" in page.inner_text(status)
    assert page.evaluate("document.activeElement.dataset.testid") == "password"
    assert page.input_value("[data-testid=name]") == "good-name"  # what was typed is kept
    assert page.input_value("[data-testid=password]") == "short"
    assert server.http.post("/session", json={"name": "good-name", "password": "x" * 8}
                            ).status_code == 401  # nothing was sent, nobody signed up
    assert p.errors == []


def test_a_round_out_of_the_replay_is_named_with_the_rounds_it_has(server: Any, open_page: Any,
                                                                   tmp_path: Path) -> None:
    saved = cogleague.play("dilemma", seed=3, rounds_total=5).save(tmp_path / "run")
    p = open_page(360, 740)
    page = p.page
    page.goto(f"{server.url}/theater")
    page.set_input_files("#file", str(saved / "replay.json"))
    page.wait_for_selector("body[data-ready=replay]")
    where = page.inner_text("[data-testid=where]")
    page.keyboard.press("g")  # the scrubber's key for "jump to round"
    page.keyboard.type("50")
    page.keyboard.press("Enter")
    message = page.evaluate("document.querySelector('[data-testid=jump]').validationMessage")
    assert "round" in message and "1 to 5" in message, message
    assert page.input_value("[data-testid=jump]") == "50"  # kept, to correct
    assert page.inner_text("[data-testid=where]") == where
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    assert page.inner_text("[data-testid=where]").startswith("Round 3")
    assert page.evaluate("document.querySelector('[data-testid=jump]').validity.valid")
    assert p.errors == []
