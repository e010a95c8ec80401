"""A newcomer's mistakes in the browser (Chromium, a real table server on loopback): each test
is a defect found by doing what a person new to cogleague does — clicking twice, typing a
name already taken, being locked out after wrong passwords."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import audit
from .test_people import PASSWORD, sign_up

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("newcomer") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def table_ids(server: Any) -> set[str]:
    return {t["id"] for t in server.http.get("/tables").json()["tables"]}


def make_one_round_dilemma(page: Any, **options: str) -> None:
    """From the Lobby: a one-round dilemma against the baselines, with the person seated (and
    any other `options`, by their option field), made with the table maker."""
    page.click("#maker-h")
    page.select_option("[data-testid=mk-game]", "dilemma")
    page.click("text=Options (blank")
    for field, value in {"rounds_total": "1", **options}.items():
        page.fill(f"[data-option={field}]", value)
    page.click("[data-testid=mk-create]")


def play_until(page: Any, done: str) -> None:
    """Send the form's move at each turn until the selector `done` shows (the game's end)."""
    while not page.locator(done).count():
        page.wait_for_selector(f"[data-testid=send]:enabled, {done}")
        if page.locator("[data-testid=send]:enabled").count():
            page.click("[data-testid=send]")


def test_double_clicking_create_makes_one_table(server: Any, open_page: Any) -> None:
    """A double click on "Create the table" sent the form twice: two tables, one of them
    left open with the person seated at it, never to be started."""
    p = open_page(1440, 900)
    page = p.page
    sign_up(page, server.url, "doubleclicker")
    page.click("#maker-h")
    page.select_option("[data-testid=mk-game]", "dilemma")
    page.uncheck("[data-testid=mk-sit]")
    before = table_ids(server)
    page.dblclick("[data-testid=mk-create]")
    page.get_by_text("is open: start it from its card").wait_for()
    page.wait_for_timeout(500)  # a second request, if one was sent, has landed by now
    assert len(table_ids(server) - before) == 1


def test_a_turn_that_ran_out_says_so_when_the_next_one_comes(server: Any, open_page: Any) -> None:
    """A person who let the clock run out on one pairing of the dilemma saw the form switch to
    the next opponent without a word: no "time is up", nothing under "your moves" — and a
    click meant for the first opponent went to the next."""
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "slowpoke")
    make_one_round_dilemma(page, turn_deadline_ms="1500")
    page.wait_for_selector("[data-testid=send]")
    first = page.get_attribute("body", "data-turn")
    facing = page.locator("[data-testid=seat-now]").inner_text().split("you face ")[1].split(".")[0]
    assert f"facing {facing}" in page.locator("[data-testid=turn] h2").text_content()
    page.wait_for_function("t => document.body.dataset.turn !== t", arg=first, timeout=20_000)
    status = page.locator("[data-testid=status]")
    assert "time ran out" in status.inner_text().lower(), status.inner_text()
    assert f"facing {facing}" in status.inner_text()  # which of the pairings it was
    assert page.locator("[data-testid=send]").is_enabled()  # the new turn takes a move
    assert audit(page) == []


def test_a_seat_at_a_table_waiting_for_people_can_be_given_back(server: Any,
                                                                 open_page: Any) -> None:
    """A person who sat at a table waiting for people saw only "Waiting for the table to
    start…": not how many had joined, and no way to leave — the seat stayed theirs (and the
    table one seat short) though the server takes a seat back before the start."""
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "leaver")
    page.click("#maker-h")
    page.select_option("[data-testid=mk-game]", "ledger")
    page.select_option("[data-testid=mk-fill]", "")
    page.click("[data-testid=mk-create]")
    page.wait_for_selector("body[data-ready=play]")
    tid = page.url.split("table=")[1]
    waiting = page.locator("[data-testid=waiting]")
    waiting.get_by_text("1 of 8 seats taken").wait_for()
    assert not waiting.locator(".error").is_visible()  # no empty error bar under the button
    assert audit(page) == []
    page.click("[data-testid=leave-table]")
    page.wait_for_selector("body[data-ready=lobby]")
    seats = server.http.get(f"/tables/{tid}").json()["seats"]
    assert not any(s["taken"] for s in seats), seats
    assert page.evaluate(f"localStorage.getItem('cogleague.seat.{tid}')") is None


def test_a_refused_sign_up_or_sign_in_keeps_the_focus_and_says_it_in_words(
        server: Any, open_page: Any) -> None:
    """A taken name, a wrong password and a locked sign-in were said in the API's words
    ("name 'x' is taken", "… within 900 s; try again in 897 s"), and the focus fell to the
    page's top (the disabled button lost it): a keyboard user had to find the field again."""
    server.http.post("/people", json={"name": "taken", "password": PASSWORD}).raise_for_status()
    p = open_page(360, 740)
    page = p.page
    page.goto(f"{server.url}/signup")
    page.wait_for_selector("body[data-ready=signup]")
    page.fill("[data-testid=name]", "taken")
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=submit]")
    status = page.locator("[data-testid=auth-status]")
    status.get_by_text("taken").wait_for()
    assert status.inner_text() == "The name “taken” is taken: choose another."
    assert page.evaluate("document.activeElement.id") == "name"
    assert page.input_value("[data-testid=password]") == PASSWORD  # what was typed is kept

    page.goto(f"{server.url}/signin")
    page.wait_for_selector("body[data-ready=signin]")
    for attempt in range(5):  # the fifth failure locks the name
        page.fill("[data-testid=name]", "taken")
        page.fill("[data-testid=password]", f"wrong password {attempt}")
        page.evaluate("document.querySelector('[data-testid=auth-status]').textContent = ''")
        page.click("[data-testid=submit]")
        status.get_by_text("wrong password").wait_for()
        assert status.inner_text() == "Unknown name or wrong password."
        assert page.evaluate("document.activeElement.id") == "password"
    page.fill("[data-testid=password]", "wrong password again")
    page.click("[data-testid=submit]")
    status.get_by_text("Try again in").wait_for()
    text = status.inner_text()
    assert "15 minutes" in text and not re.search(r"\d+ s\b", text), text
    assert page.evaluate("document.activeElement.id") == "password"
    assert audit(page) == []


def test_a_running_table_offers_a_signed_out_person_to_sign_in_and_take_their_seat_back(
        server: Any, open_page: Any) -> None:
    """After signing out mid-game (or on a new device, not signed in yet), the table's Play
    page said only that seats are taken while a table is open: nothing said that signing in
    gives the seat back."""
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "comeback")
    page.click("[data-testid=play-now-dilemma]")
    page.wait_for_selector("[data-testid=send]")
    play_url = page.url.split("&")[0]
    page.goto(f"{server.url}/me")
    page.wait_for_selector("body[data-ready=me]")
    page.click("[data-testid=signout]")
    page.wait_for_selector("body[data-ready=lobby]")
    page.goto(play_url)
    page.wait_for_selector("body[data-ready=error]")
    link = page.get_by_role("link", name="Sign in to take it back")
    assert audit(page) == []
    link.click()
    page.wait_for_selector("body[data-ready=signin]")
    page.fill("[data-testid=name]", "comeback")
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=submit]")
    page.wait_for_selector("[data-testid=reclaim-seat]")
    assert page.url == play_url
    page.click("[data-testid=reclaim-seat]")
    page.wait_for_selector("[data-testid=send]")


def test_a_reload_mid_turn_keeps_what_was_typed(server: Any, open_page: Any) -> None:
    """A reload (or the back button and forward again) in the middle of a turn gave the seat
    back but an empty form: the message half written and the choice made were gone."""
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "reloader")
    page.click("[data-testid=play-now-dilemma]")
    page.wait_for_selector("[data-testid=send]")
    turn = page.get_attribute("body", "data-turn")
    page.check("input[data-control=action][value=defect]")
    page.fill("input[data-control=message]", "I will cooperate, promise")
    page.reload()
    page.wait_for_selector("[data-testid=send]")
    assert page.get_attribute("body", "data-turn") == turn  # the same turn, asked again
    assert page.input_value("input[data-control=message]") == "I will cooperate, promise"
    assert page.is_checked("input[data-control=action][value=defect]")
    page.click("[data-testid=send]")
    page.wait_for_function("t => document.body.dataset.turn !== t", arg=turn)
    # the next turn starts blank: a draft belongs to its own turn
    assert page.input_value("input[data-control=message]") == ""


def test_the_account_page_lists_the_persons_tables(server: Any, open_page: Any) -> None:
    """After a game, a person looking for it again (their history, its replay) found nothing
    on their account page: only the name, a sign-out and an API key."""
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "historian")
    make_one_round_dilemma(page)
    page.wait_for_selector("[data-testid=send]")
    tid = page.url.split("table=")[1].split("&")[0]
    play_until(page, "[data-testid=end-standing]")
    page.goto(f"{server.url}/me")
    page.wait_for_selector("body[data-ready=me]")
    mine = page.locator("[data-testid=my-tables]")
    row = mine.locator("li", has_text="Prisoner's Dilemma tables")
    assert row.count() == 1, mine.inner_text()
    assert "finished" in row.inner_text()
    assert row.get_by_role("link", name="Watch the replay →").get_attribute("href") \
        == f"/theater?table={tid}"
    assert audit(page) == []


def test_a_new_api_key_is_made_only_once_the_person_confirms(server: Any, open_page: Any) -> None:
    """One click on "Make a new API key" (a newcomer looking for their key) retired the key
    at once and cut off every bot playing with it, with no word before."""
    p = open_page(360, 740)
    page = p.page
    page.goto(f"{server.url}/signup")
    page.wait_for_selector("body[data-ready=signup]")
    page.fill("[data-testid=name]", "keyholder")
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=submit]")
    old = page.locator("[data-testid=api-key]").inner_text()
    page.goto(f"{server.url}/me")
    page.wait_for_selector("body[data-ready=me]")
    page.click("[data-testid=new-key]")
    confirm = page.locator("[data-testid=confirm-new-key]")
    confirm.wait_for()
    assert "stops working" in page.locator("[data-testid=key-out]").inner_text()
    assert audit(page) == []
    bearer = {"Authorization": f"Bearer {old}"}
    assert server.http.post("/tables", headers=bearer, json={"game": "dilemma"}).status_code == 201
    confirm.click()
    page.locator("[data-testid=key-out] [data-testid=api-key]").wait_for()
    assert server.http.post("/tables", headers=bearer, json={"game": "dilemma"}).status_code == 401


def test_double_clicking_play_again_makes_one_table(server: Any, open_page: Any) -> None:
    """"Play again" under the end banner sent its request once per click: a double click
    made two tables against the baselines, one started with nobody at the person's seat."""
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "again-and-again")
    make_one_round_dilemma(page)
    play_until(page, "[data-testid=play-again]")
    before = table_ids(server)
    page.dblclick("[data-testid=play-again]")
    page.wait_for_selector("[data-testid=send]")
    page.wait_for_timeout(500)  # a second request, if one was sent, has landed by now
    assert len(table_ids(server) - before) == 1


def test_the_lobby_leads_a_seat_taken_on_another_device_to_its_way_back(
        server: Any, browser: Any, open_page: Any) -> None:
    """Signed in on a second device, "Take a seat and play" at a table where the person sat
    on the first answered only "this account already holds a seat here": no way on."""
    creator = account(server.http, "host-of-two-devices")
    tid = server.http.post("/tables", headers=creator, json={"game": "dilemma"}).json()["id"]
    first = open_page(360, 740).page
    sign_up(first, server.url, "two-devices")
    first.locator(f"[data-testid=table-{tid}] [data-testid=take-seat]").click()
    first.wait_for_selector("body[data-ready=play]")
    page = open_page(360, 740).page  # another device: its own storage, not signed in
    page.goto(f"{server.url}/signin")
    page.wait_for_selector("body[data-ready=signin]")
    page.fill("[data-testid=name]", "two-devices")
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=submit]")
    page.wait_for_selector("body[data-ready=lobby]")
    page.locator(f"[data-testid=table-{tid}] [data-testid=take-seat]").click()
    problem = page.locator("[data-testid=lobby-problem]")
    problem.wait_for()
    assert "already hold a seat" in problem.inner_text(), problem.inner_text()
    assert audit(page) == []
    problem.get_by_role("link", name="Take it back on this device →").click()
    page.wait_for_selector("body[data-ready=join]")
    page.click("[data-testid=take-seat]")
    page.click("[data-testid=reclaim-seat]")
    page.wait_for_selector("body[data-ready=play]")


def test_the_lobby_offers_to_take_back_only_the_persons_own_seat(server: Any,
                                                                  open_page: Any) -> None:
    """Every running table with anyone's person seat offered every signed-in visitor "Your
    seat, played on another device? Take it back →" — a newcomer followed it to a stranger's
    table and a refusal."""
    player = open_page(360, 740).page
    sign_up(player, server.url, "seat-owner")
    player.click("[data-testid=play-now-dilemma]")
    player.wait_for_selector("[data-testid=send]")
    tid = player.url.split("table=")[1].split("&")[0]
    page = open_page(360, 740).page
    sign_up(page, server.url, "passer-by")
    card = page.locator(f"[data-testid=table-{tid}]")
    card.wait_for()
    assert card.locator("[data-testid=seat-elsewhere]").count() == 0, card.inner_text()
    owner = open_page(360, 740).page  # the owner on a second device is still offered it
    owner.goto(f"{server.url}/signin")
    owner.wait_for_selector("body[data-ready=signin]")
    owner.fill("[data-testid=name]", "seat-owner")
    owner.fill("[data-testid=password]", PASSWORD)
    owner.click("[data-testid=submit]")
    owner.wait_for_selector("body[data-ready=lobby]")
    owner.locator(f"[data-testid=table-{tid}] [data-testid=seat-elsewhere]").wait_for()


def test_a_ledger_seat_says_what_a_halo_is(server: Any, open_page: Any) -> None:
    """A Ledger seat read "halo 0.5, 0 kind / 0 harsh" with no word on what a halo is or
    what counts as kind: a newcomer could not tell how their play would show."""
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "halo-reader")
    page.click("[data-testid=play-now-ledger]")
    page.wait_for_selector("[data-testid=send]")
    help_line = page.locator("[data-testid=view] [data-testid=halo-help]")
    text = help_line.inner_text()
    assert "share of" in text and "0.5 before" in text, text
    # the thresholds come from the rules: cooperating; sending 3 or more; returning 50 % or
    # more; offering 5 or more; asking 5 or less
    for number in ("3", "50", "5"):
        assert number in text, text
    assert audit(page) == []
