"""A person plays in Chromium: from the Lobby's "Play as a person" to the end card, over the
real play socket of the real table server, against baselines — the dilemma by keyboard only
(with a reload mid-table that must keep the seat), a Ledger quickfire episode by clicks, and
Commons episodes by keys and clicks with every field a cog may send (effort split, sanction,
chat, note; patch and colours in the other modules). The stored results and replay must show
the person's moves; a Commons note reaches only its author, as `your_note`."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from cogleague.client import Bot, TurnInfo, play_seat

from .conftest import OPERATOR_KEY, LiveServer, account, snap
from .test_audit import audit, overflow

pytestmark = pytest.mark.browser

MAX_TURNS = 40
SLOW_HUMAN = {"round_seconds": 90, "decision_timeout_seconds": 90}
"""Commons deadlines for a seat that runs the audit first: a remote seat's turn lasts
`decision_timeout_seconds` (8 s by default), which a loaded machine's audits can exceed."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("play") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def _table(server: Any, game: str, variant: str | None, config: dict[str, Any],
           fill: str) -> tuple[str, dict[str, str]]:
    creator = account(server.http, f"{game}-{variant}-host")
    body: dict[str, Any] = {"game": game, "seed": 8, "pacing": False, "config": config,
                            "fill_with": fill}
    if variant:
        body["variant"] = variant
    res = server.http.post("/tables", headers=creator, json=body)
    assert res.status_code == 201, res.text
    return res.json()["id"], creator


def _sit_down(server: Any, open_page: Any, tid: str, key: str, keyboard: bool,
              frames: list[str] | None = None) -> Any:
    """From the Lobby to a seat: the table's "Play as a person" link, the key, the seat.
    `frames` collects every WebSocket frame the page receives (the seat's whole stream)."""
    p = open_page(1440, 900)
    page = p.page
    if frames is not None:
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(
            f if isinstance(f, str) else f.decode())))
    page.goto(f"{server.url}/")
    page.wait_for_selector(f"[data-testid=table-{tid}] [data-testid=play-as-person]")
    link = page.locator(f"[data-testid=table-{tid}] [data-testid=play-as-person]")
    if keyboard:
        link.focus()
        page.keyboard.press("Enter")
    else:
        link.click()
    page.wait_for_selector("body[data-ready=join]")
    if keyboard:
        page.locator("[data-testid=key]").focus()
        page.keyboard.type(key)
        page.keyboard.press("Enter")  # submits the join form
    else:
        page.fill("[data-testid=key]", key)
        page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")
    return p


def _play(server: Any, p: Any, tid: str, creator: dict[str, str], act: Any,
          reload_after: int | None = None) -> int:
    """Start the table, then answer every turn with `act(page)` until the end card."""
    page = p.page
    server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
    seen, moves = None, 0
    for _ in range(MAX_TURNS):
        page.wait_for_function("""(last) => document.body.dataset.ended === '1'
            || (document.body.dataset.turn && document.body.dataset.turn !== last)""",
                                arg=seen or "")
        if page.evaluate("document.body.dataset.ended") == "1":
            break
        seen = page.evaluate("document.body.dataset.turn")
        assert "left to decide" in page.locator("[data-testid=deadline]").inner_text()
        assert page.locator("[data-testid=view]").count() == 1
        act(page)
        moves += 1
        # the move was taken: acknowledged, or already the next turn (which clears the status)
        page.wait_for_function("""(last) => /Move (received|sent)/.test(document.querySelector(
            '[data-testid=status]').textContent) || document.body.dataset.ended === '1'
            || document.body.dataset.turn !== last""", arg=seen)
        if reload_after is not None and moves == reload_after:
            page.reload()  # the seat is kept in this browser: the page reconnects to it
            page.wait_for_selector("body[data-ready=play]")
            seen = None if page.evaluate("document.body.dataset.turn") else seen
    page.wait_for_selector("[data-testid=endcard]")
    return moves


def test_a_person_plays_a_dilemma_table_by_keyboard(server: Any, open_page: Any) -> None:
    # the first turn runs the audit at three widths: a deadline a loaded machine cannot miss
    tid, creator = _table(server, "dilemma", None, {"rounds_total": 2, "turn_deadline_ms": 90_000},
                          "always_defect")
    key = account(server.http, "person")["Authorization"].split()[1]
    p = _sit_down(server, open_page, tid, key, keyboard=True)

    audited: list[int] = []

    def act(page: Any) -> None:
        if not audited:  # the first turn's page passes the audit at every width
            for width in (360, 768, 1440):
                page.set_viewport_size({"width": width, "height": 800})
                assert audit(page) == [] and overflow(page) == 0
                audited.append(width)
        page.locator("[data-testid=move-form] input[type=radio]").first.focus()
        page.keyboard.press("ArrowRight")  # cooperate -> defect
        page.keyboard.press("ArrowLeft")   # back to cooperate
        page.keyboard.press("Tab")
        page.keyboard.type("I will cooperate.")
        page.keyboard.press("Enter")

    moves = _play(server, p, tid, creator, act, reload_after=1)
    assert moves == 2 * 3  # two rounds, three pairings each
    results = server.http.get(f"/tables/{tid}/results").json()
    me = next(s for s in results["seats"] if s["seat"] == 0)
    assert me["policy"] == "a person"
    assert me["cooperation_rate"] == 1.0
    assert me["promises_kept"] == me["promises_made"] == 6
    assert p.errors == []


def test_a_person_plays_ledger_quickfire(server: Any, open_page: Any) -> None:
    tid, creator = _table(server, "ledger", "quickfire", {"rounds": 4}, "mirror")
    key = account(server.http, "ledger-person")["Authorization"].split()[1]
    p = _sit_down(server, open_page, tid, key, keyboard=False)

    def act(page: Any) -> None:
        move = page.locator("[data-testid=move-form] input[data-control=move]")
        if move.first.get_attribute("type") == "radio":  # a Dilemma: cooperate or defect
            move.last.check()
        else:  # coins, a percent, an offer or a minimum: the most the meeting allows
            move.fill(move.get_attribute("max") or "0")
        page.fill("[data-testid=move-form] input[data-control=memo]", "remember the plaza")
        page.click("[data-testid=send]")

    assert _play(server, p, tid, creator, act) == 4
    replay = server.http.get(f"/tables/{tid}/replay").json()
    mine = [e for e in replay["events"] if e["kind"] == "meeting" and 0 in (e["a"], e["b"])]
    assert len(mine) == 4
    assert all((e["memoA"] if e["a"] == 0 else e["memoB"]) == "remember the plaza" for e in mine)
    assert p.errors == []


class _Listener(Bot):
    """Another remote cog at the Commons table: plays h:1 c:1 and keeps every frame it gets."""

    name = "listener"

    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        return {"harvest": 1, "clean": 1}


def _listen(server: Any, tid: str, seat: int) -> tuple[threading.Thread, list[dict[str, Any]]]:
    """Seat `seat` taken by `_Listener` through the SDK, playing in a thread of its own."""
    joined = server.http.post(f"/tables/{tid}/join", headers=account(server.http, "listener"),
                              json={"kind": "remote", "seat": seat, "name": "listener"})
    assert joined.status_code == 200, joined.text
    got: list[dict[str, Any]] = []
    token = joined.json()["token"]
    thread = threading.Thread(target=lambda: asyncio.run(play_seat(
        _Listener(), server.url, tid, seat, token, on_frame=got.append)), daemon=True)
    thread.start()
    return thread, got


def _paths(doc: Any, needle: str, at: str = "") -> list[str]:
    """Where `needle` occurs in a JSON document: the key path of every string holding it."""
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in _paths(v, needle, f"{at}.{k}")]
    if isinstance(doc, list):
        return [p for i, v in enumerate(doc) for p in _paths(v, needle, f"{at}[{i}]")]
    return [at] if isinstance(doc, str) and needle in doc else []


NOTE = "Private: Cog-B looks greedy"
CHAT = ["Cleaning with you all.", "One apple each, please."]


def test_a_person_plays_commons_with_sanctions_chat_and_note(server: Any, open_page: Any,
                                                             shots: Path) -> None:
    """Cleanup (sanctions and chat on), three rounds: round 1 by keys only — effort split,
    a sanction, a chat line, a note; round 2 by clicks — another target and line, the note
    kept; round 3 — no sanction, no chat. Results and replay show the sanctions and chat; the
    note came back only to its author (as `your_note`, and in its own prompt text) and is in no
    replay, result, spectator state, nor any frame of another remote seat."""
    tid, creator = _table(server, "commons", "cleanup", {"rounds": 3, **SLOW_HUMAN}, "steward")
    aliases = [s["alias"] for s in server.http.get(f"/tables/{tid}").json()["seats"]]
    listener, heard = _listen(server, tid, 5)
    key = account(server.http, "commons-person")["Authorization"].split()[1]
    frames: list[str] = []
    p = _sit_down(server, open_page, tid, key, keyboard=True, frames=frames)
    deadline = time.monotonic() + 30
    while not any(f.get("type") == "hello" for f in heard):  # the listener is connected
        assert listener.is_alive() and time.monotonic() < deadline
        time.sleep(0.05)
    me = aliases[0]
    others = sorted(a for a in aliases if a != me)
    targets: list[str | None] = []
    notes_seen: list[str] = []
    form = "[data-testid=move-form]"

    def act(page: Any) -> None:
        r = len(targets)
        assert f"round {r + 1} of 3" in page.locator("[data-testid=turn] h2").text_content()
        assert page.locator("[data-testid=status]").inner_text() == ""  # not last turn's
        note_box = page.locator(f"{form} input[data-control=note]")
        notes_seen.append(note_box.input_value())
        assert note_box.get_attribute("maxlength") == "200"
        assert page.locator(f"{form} input[data-control=message]").get_attribute(
            "maxlength") == "140"
        sanction = page.locator(f"{form} input[data-control=sanction]")
        assert [sanction.nth(k).get_attribute("value") for k in range(sanction.count())] == [
            "", *others]  # nobody, then every other alias; never the seat's own
        assert "You pay 1, the cog you name loses 3" in page.locator(
            f"{form} fieldset:has(input[data-control=sanction])").inner_text()
        if r == 0:
            for width in (360, 768, 1440):  # the Commons turn passes the audit at every width
                page.set_viewport_size({"width": width, "height": 800})
                assert audit(page) == [] and overflow(page) == 0, width
            # by keys only: harvest, Tab, clean, Tab, sanction (arrows), Tab, chat, Tab, note
            page.locator(f"{form} input[data-control=harvest]").focus()
            page.keyboard.press("Control+a")
            page.keyboard.type("1")
            page.keyboard.press("Tab")
            page.keyboard.press("Control+a")
            page.keyboard.type("1")
            page.keyboard.press("Tab")            # into the sanction group: "nobody"
            page.keyboard.press("ArrowRight")     # -> the first other alias
            page.keyboard.press("Tab")
            page.keyboard.type(CHAT[0])
            page.keyboard.press("Tab")
            page.keyboard.type(NOTE)
            page.keyboard.press("Enter")
            targets.append(others[0])
        elif r == 1:  # by clicks; the note box keeps the note, so it is not sent again
            page.fill(f"{form} input[data-control=harvest]", "1")
            page.fill(f"{form} input[data-control=clean]", "1")
            page.locator(f"{form} input[data-control=sanction][value='{others[1]}']").check()
            page.fill(f"{form} input[data-control=message]", CHAT[1])
            for width in (1440, 360):  # docs/web.md shows this turn (COGLEAGUE_SCREENSHOT_DIR)
                page.set_viewport_size({"width": width, "height": 800})
                snap(page, shots / f"play-commons-turn-{width}.png")
            page.click("[data-testid=send]")
            targets.append(others[1])
        else:
            page.fill(f"{form} input[data-control=harvest]", "1")
            page.fill(f"{form} input[data-control=clean]", "1")
            page.click("[data-testid=send]")
            targets.append(None)

    assert _play(server, p, tid, creator, act) == 3
    listener.join(timeout=30)
    assert not listener.is_alive()
    page = p.page
    # the note came back to its author, in the box and in the view, from round 2 on
    assert notes_seen == ["", NOTE, NOTE]
    views = [json.loads(f) for f in frames]
    assert [v["visible_state"]["your_note"] for v in views if v.get("type") == "your_turn"] \
        == ["", NOTE, NOTE]
    for f in views:  # and nowhere else in the seat's own stream but its view and prompt
        assert all(x.endswith((".visible_state.your_note", ".prompt_text"))
                   for x in _paths(f, NOTE)), f

    results = server.http.get(f"/tables/{tid}/results").json()
    replay = server.http.get(f"/tables/{tid}/replay").json()
    spectator = server.http.get(f"/tables/{tid}/spectator")
    for doc in (results, replay, spectator.text, heard):
        assert NOTE not in json.dumps(doc, ensure_ascii=False)
    assert results["public_effort"][0] == 3  # clean 1 in each of three rounds
    assert results["sanctions_given"][0] == 2
    for slot, alias in enumerate(aliases):
        given = sum(1 for t in targets if t == alias)
        got = sum(1 for r in replay["rounds"] for d in r["decisions"]
                  if d["sanction"] == alias)
        assert results["sanctions_received"][slot] >= given and got >= given
    mine = [next(d for d in r["decisions"] if d["slot"] == 0) for r in replay["rounds"]]
    assert [d["sanction"] for d in mine] == targets
    assert [d["message"] for d in mine] == [*CHAT, None]
    said = [(e["r"], e["text"]) for e in replay["events"] if e["kind"] == "chat"
            and e["alias"] == me]
    assert said == [(0, CHAT[0]), (1, CHAT[1])]
    hits = [(e["r"], e["target"]) for e in replay["events"] if e["kind"] == "sanction"
            and e["alias"] == me]
    assert hits == [(0, targets[0]), (1, targets[1])]
    # the other remote cog read the chat line next round, and never the note
    turns = [f for f in heard if f.get("type") == "your_turn"] + [
        f["your_turn"] for f in heard if f.get("type") == "snapshot" and f.get("your_turn")]
    seen = [m for f in turns for m in f["visible_state"]["messages_last_round"] or []]
    assert {"alias": me, "text": CHAT[0]} in seen

    # the replay in the Theater shows the chat line and the sanction, and no note
    page.get_by_role("link", name="Watch the replay →").click()
    page.wait_for_selector("body[data-ready=replay]")
    page.keyboard.press("End")
    page.wait_for_selector("[data-testid=endcard]")
    feed = page.locator("[data-testid=feed]").inner_text()
    assert CHAT[0] in feed and CHAT[1] in feed
    assert f"{me} sanctions {targets[0]}" in feed.replace("\n", " ")
    assert NOTE not in page.content()
    assert p.errors == []


@pytest.mark.parametrize("variant", ["harvest-closed", "allelopathic", "mushrooms"])
def test_a_person_picks_patches_and_colours(server: Any, open_page: Any, variant: str) -> None:
    """The module's own choices by clicks: under closed rights the patches with their stocks,
    the seat's own marked and chosen at first; in allelopathic the colours with what is ripe
    or planted, the seat's favourite (its own, from its view) chosen at first for eating; in
    mushrooms what each colour pays, and after eating 2 the next round says it is digesting."""
    tid, creator = _table(server, "commons", variant, {"rounds": 2, **SLOW_HUMAN},
                          "steward")
    key = account(server.http, f"{variant}-person")["Authorization"].split()[1]
    p = _sit_down(server, open_page, tid, key, keyboard=False)
    form = "[data-testid=move-form]"
    picked: list[Any] = []

    def checked(control: str) -> str:
        return str(p.page.locator(f"{form} input[data-control={control}]:checked")
                   .get_attribute("value"))

    def act(page: Any) -> None:
        if not picked:
            page.set_viewport_size({"width": 360, "height": 800})
            assert audit(page) == [] and overflow(page) == 0
            page.set_viewport_size({"width": 1440, "height": 800})
        if variant == "harvest-closed":
            labels = page.locator(f"{form} fieldset:has(input[data-control=patch]) label")
            yours = [k for k in range(labels.count()) if "yours" in labels.nth(k).inner_text()]
            assert yours and int(checked("patch")) == yours[0]
            assert "12 fish" in labels.nth(0).inner_text()
            page.fill(f"{form} input[data-control=harvest]", "2")
            picked.append(int(checked("patch")))
        elif variant == "mushrooms":
            colours = page.locator(f"{form} fieldset:has(input[data-control=eat_color]) label")
            if not picked:
                assert [colours.nth(k).inner_text().strip() for k in range(3)] == [
                    "red (8 left, pays you)", "green (8 left, pays every cog)",
                    "blue (8 left, pays the other cogs)"]
            eat = page.locator(f"{form} .field:has(input[data-control=eat])").inner_text()
            assert ("digesting" in eat) == bool(picked)
            page.fill(f"{form} input[data-control=eat]", "2")
            page.locator(f"{form} input[data-control=eat_color][value=green]").check()
            picked.append("green")
        else:
            fav = page.locator(f"{form} fieldset:has(input[data-control=eat_color]) label",
                               has_text="your favourite")
            assert fav.count() == 1 and fav.inner_text().strip().startswith(checked("eat_color"))
            page.fill(f"{form} input[data-control=eat]", "2")
            page.fill(f"{form} input[data-control=plant]", "1")
            page.locator(f"{form} input[data-control=plant_color][value=blue]").check()
            picked.append(checked("eat_color"))
        page.click("[data-testid=send]")

    assert _play(server, p, tid, creator, act) == 2
    replay = server.http.get(f"/tables/{tid}/replay").json()
    mine = [next(d for d in r["decisions"] if d["slot"] == 0) for r in replay["rounds"]]
    if variant == "harvest-closed":
        assert picked == [replay["seats"][0]["patches"][0]] * 2
        assert [(d["patch"], d["harvest"]) for d in mine] == [(picked[0], 2)] * 2
        assert not [e for e in replay["events"] if e["kind"] == "trespass" and e["slot"] == 0]
    elif variant == "mushrooms":
        assert [(d["eat"], d["eat_color"]) for d in mine] == [(2, "green")] * 2
        assert [e["r"] for e in replay["events"] if e["kind"] == "digesting"
                and e["slot"] == 0] == [1]  # round 2's meal is void: still digesting
    else:
        assert picked == [replay["seats"][0]["favorite"]] * 2
        assert [(d["eat"], d["eat_color"], d["plant"], d["plant_color"]) for d in mine] == [
            (2, picked[0], 1, "blue")] * 2
    assert p.errors == []
