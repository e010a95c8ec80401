"""The Theater in a real browser, on real replays of each game: it loads without console
errors, the scrubber reaches the end card, and the numbers shown equal the replay's results."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cogleague.games.ledger.rings import detect_rings
from cogleague.web.replay_server import create_replay_app

from .conftest import LiveServer, snap
from .replays import write_replay

pytestmark = pytest.mark.browser


def _load(open_page: Any, server: LiveServer, width: int, height: int = 900) -> Any:
    p = open_page(width, height)
    p.page.goto(f"{server.url}/theater?file=1")
    p.page.wait_for_selector("body[data-ready=replay]")
    return p


def _cells(page: Any, selector: str) -> list[str]:
    return [c.strip() for c in page.locator(selector).all_inner_texts()]


def test_dilemma_replay(tmp_path: Path, open_page: Any, shots: Path) -> None:
    path, doc = write_replay("dilemma", tmp_path / "replay.json")
    with LiveServer(create_replay_app(path)) as server:
        p = _load(open_page, server, 1440)
        page = p.page
        page.keyboard.press("End")
        page.wait_for_selector("[data-testid=endcard]")
        for seat in doc["results"]["seats"]:
            row = page.locator(f"[data-testid=final-{seat['seat']}]")
            assert row.locator("[data-field=points]").inner_text() == str(seat["points"])
            assert row.locator("[data-field=rank]").inner_text() == str(seat["rank"])
            assert row.locator("[data-field=promises]").inner_text() == \
                f"{seat['promises_kept']}/{seat['promises_made']}"
            rate = row.locator("[data-field=cooperation_rate]").inner_text()
            assert rate.endswith("%") and float(rate[:-1]) == \
                pytest.approx(100 * seat["cooperation_rate"], abs=0.05)
        assert p.errors == []
        page.keyboard.press("Escape")  # the grid of the final round, without the card
        assert page.locator("[data-testid=endcard]").count() == 0
        snap(page, shots / "dilemma-1440.png")
        small = _load(open_page, server, 360, 780)
        small.page.keyboard.press("End")
        small.page.wait_for_selector("[data-testid=endcard]")
        snap(small.page, shots / "dilemma-360.png")
        assert small.errors == []


def test_ledger_replay(tmp_path: Path, open_page: Any, shots: Path) -> None:
    path, doc = write_replay("ledger", tmp_path / "replay.json")
    res = doc["results"]
    with LiveServer(create_replay_app(path)) as server:
        p = _load(open_page, server, 1440)
        page = p.page
        assert page.locator("[data-testid^=post-]").count() == 8
        page.keyboard.press("ArrowRight")  # round 1: four meetings on the plaza
        page.wait_for_selector("[data-testid=meeting][data-mark]")
        assert page.locator("[data-testid=meeting]").count() == 4
        for _ in range(5):
            page.keyboard.press("ArrowRight")
        assert page.locator("[data-testid=where]").inner_text() == "Round 6 / 14"
        assert page.locator(".gcard").count() == 5  # the last five gossip cards
        snap(page, shots / "ledger-1440.png")
        page.keyboard.press("End")
        page.wait_for_selector("[data-testid=endcard]")
        for seat in range(8):
            row = page.locator(f"[data-testid=final-{seat}]")
            assert float(row.locator("[data-field=scores]").inner_text()) == res["scores"][seat]
            assert float(row.locator("[data-field=mean]").inner_text()) == res["mean"][seat]
            assert float(row.locator("[data-field=total]").inner_text()) == res["total"][seat]
            assert float(row.locator("[data-field=halo]").inner_text()) == res["halo"][seat]
        snap(page, shots / "ledger-end-1440.png")
        assert p.errors == []
        small = _load(open_page, server, 360, 780)
        small.page.keyboard.press("g")
        small.page.keyboard.type("6")
        small.page.keyboard.press("Enter")
        assert small.page.locator("[data-testid=where]").inner_text() == "Round 6 / 14"
        snap(small.page, shots / "ledger-360.png")
        assert small.errors == []


@pytest.mark.parametrize("variant", ["cleanup", "harvest-closed", "allelopathic", "mushrooms"])
def test_commons_replay(variant: str, tmp_path: Path, open_page: Any, shots: Path) -> None:
    path, doc = write_replay("commons", tmp_path / "replay.json", variant=variant)
    res = doc["results"]
    with LiveServer(create_replay_app(path)) as server:
        p = _load(open_page, server, 1440)
        page = p.page
        page.keyboard.press("ArrowRight")
        assert page.locator("[data-testid^=cog-]").count() == 6
        page.keyboard.press("End")
        page.wait_for_selector("[data-testid=endcard]")
        for seat in range(6):
            row = page.locator(f"[data-testid=final-{seat}]")
            assert float(row.locator("[data-field=scores]").inner_text()) == \
                pytest.approx(res["scores"][seat], abs=5e-4)
            assert float(row.locator("[data-field=total_extracted]").inner_text()) == \
                pytest.approx(res["total_extracted"][seat], abs=5e-4)
            assert int(row.locator("[data-field=public_effort]").inner_text()) == \
                res["public_effort"][seat]
            assert row.locator("[data-field=sanctions]").inner_text() == \
                f"{res['sanctions_given'][seat]} / {res['sanctions_received'][seat]}"
        summary = page.locator("[data-testid=end-summary]").inner_text()
        assert f"welfare {round(res['welfare'], 2):g}" in summary
        assert p.errors == []
        if variant == "cleanup":
            page.keyboard.press("Escape")
            page.keyboard.press("ArrowLeft")  # the last round, without the card
            snap(page, shots / "commons-1440.png")
            small = _load(open_page, server, 360, 780)
            for _ in range(6):
                small.page.keyboard.press("ArrowRight")
            snap(small.page, shots / "commons-360.png")
            assert small.errors == []


def test_viewer_rules_agree_with_the_games(tmp_path: Path, open_page: Any) -> None:
    """What the viewer re-derives (ring flags, promises) matches the games' own functions."""
    from cogleague.games.dilemma.promises import is_promise

    path, _ = write_replay("dilemma", tmp_path / "replay.json")
    messages = ["I will cooperate.", "C again?", "c", "I won't cooperate", "cooperation!",
                "uncooperative", "C'mon", "Cooperate", "let's be friends", "(C)", "",
                "ÉC", "no"]
    # ledger.md §16: seats 1 and 5 paid 10 in both mutual meetings, 2 elsewhere (14 rounds)
    record = []
    for r in range(14):
        for a, b in ((1, 5), (0, 2), (3, 4), (6, 7)) if r in (3, 10) else \
                ((0, 1), (2, 5), (3, 4), (6, 7)):
            pay = 10 if {a, b} == {1, 5} else 2
            record.append({"round": r, "a": a, "b": b, "payA": pay, "payB": pay})
    with LiveServer(create_replay_app(path)) as server:
        p = _load(open_page, server, 1440)
        got = p.page.evaluate("""async ([messages, record]) => {
            const d = await import('/static/js/games/dilemma.js');
            const l = await import('/static/js/games/ledger.js');
            const games = (await (await fetch('/api/games')).json()).games;
            const rules = games.find((g) => g.name === 'ledger').rule_numbers;
            return {promises: messages.map(d.isPromise), rings: l.detectRings(record, rules)};
        }""", [messages, record])
        assert got["promises"] == [is_promise(m) for m in messages]
        (flag,) = got["rings"]["pairs"]
        assert (flag["a"], flag["b"]) == (1, 5)
        assert flag["delta"] == pytest.approx(8.0)
        assert got["rings"]["components"] == []
        # on the threshold, where float means miss (6.333… − 3.333… = 2.999…): seats 0 and 1
        # meet three times for 38 coins between them and earn 120 in 36 other meetings
        edge = [{"a": 0, "b": 1, "payA": pay, "payB": pay} for pay in (6, 6, 7)]
        edge += [{"a": 0 if i < 18 else 1, "b": 2 + i % 6, "payA": 3 if i < 24 else 4,
                  "payB": 0} for i in range(36)]
        engine = detect_rings([(m["a"], m["b"], m["payA"], m["payB"]) for m in edge]).to_json()
        viewer = p.page.evaluate("""async ([record]) => {
            const l = await import('/static/js/games/ledger.js');
            const games = (await (await fetch('/api/games')).json()).games;
            return l.detectRings(record, games.find((g) => g.name === 'ledger').rule_numbers);
        }""", [edge])
        assert [(q["a"], q["b"]) for q in engine["pairs"]] == [(0, 1)]
        assert [(q["a"], q["b"]) for q in viewer["pairs"]] == [(0, 1)], viewer


def test_a_ledger_seat_sees_every_note_it_reads(tmp_path: Path, open_page: Any) -> None:
    """The Play page's Ledger seat view shows the whole board window the seat reads (the last
    12 notes, rules §8), not fewer."""
    import cogleague

    last: dict[str, Any] = {}

    def gossip(turn: Any) -> dict[str, Any]:
        obs = turn.visible_state
        if turn.seat == 0:
            last["obs"] = obs
        return {"move": obs["meeting"]["legal"]["min"], "note": f"{obs['you']} r{obs['round']}"}

    with ThreadPoolExecutor(1) as pool:  # the browser's driver runs an event loop here
        pool.submit(cogleague.play, "ledger", [gossip] * 8, seed=3).result()
    board = last["obs"]["board"]
    assert len(board) == 12
    path, _ = write_replay("ledger", tmp_path / "replay.json")
    with LiveServer(create_replay_app(path)) as server:
        p = _load(open_page, server, 1440)
        shown = p.page.evaluate("""async ([obs]) => {
            const l = await import('/static/js/games/ledger.js');
            const box = document.createElement('div');
            box.append(...l.seatView(obs, {}).filter(Boolean));
            const head = [...box.querySelectorAll('h3')]
                .find((x) => x.textContent === 'Gossip board');
            return [...head.parentElement.querySelectorAll('li')].map((li) => li.textContent);
        }""", [last["obs"]])
    assert len(shown) == len(board), shown
    assert all(n["text"] in t for n, t in zip(board, shown, strict=True)), shown
