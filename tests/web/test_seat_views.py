"""What a person at a seat reads on the Play page, rendered by the real modules in Chromium from
the games' real views: a table where everybody has the same points is told as a tie (never
"1st of 4"), the same way the end banner words ties; and a plugin game without its own seat
renderer (Threshold) is shown in plain words — "you are seat 1", per-seat numbers named by
their seat — not raw fields such as "you 0"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cogleague.games import registry
from cogleague.web.replay_server import create_replay_app

from .conftest import LiveServer
from .replays import write_replay

pytestmark = pytest.mark.browser

RENDER = """async ([module, view, ctx]) => {
    const seat = await import('/static/js/seat.js');
    const viewer = module ? await import(module) : null;
    const el = seat.seatPanel(viewer, view, ctx);
    document.body.append(el);
    return el.innerText;
}"""


def _first_views(game: str, variant: str | None, names: list[str], seed: int
                 ) -> tuple[list[str], dict[int, dict[str, Any]]]:
    """The aliases and each seat's first view of a fresh game (nobody has scored)."""
    g = registry.get(game).make(variant, {}, seed, names)
    g.start()
    g.open_round()
    return list(g.aliases), {t.seat: t.view for t in g.step().turns()}


def _ctx(aliases: list[str], seat: int) -> dict[str, Any]:
    return {"seat": seat, "alias": aliases[seat], "aliases": aliases, "rules": {}, "config": {}}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path, _ = write_replay("dilemma", tmp_path_factory.mktemp("seat") / "r.json")
    with LiveServer(create_replay_app(path)) as live:
        yield live


def _page(open_page: Any, site: Any) -> Any:
    p = open_page(1000, 900)
    p.page.goto(f"{site.url}/theater?file=1")
    p.page.wait_for_selector("body[data-ready=replay]")
    return p


def _viewer(page: Any, game: str) -> str | None:
    games = page.evaluate("async () => (await (await fetch('/api/games')).json()).games")
    return next(g["viewer"] for g in games if g["name"] == game)


def test_dilemma_start_is_not_told_as_first_place(site: Any, open_page: Any) -> None:
    """At the start every seat has 0 points: no seat is "1st of 4" (it read as a lead)."""
    aliases, views = _first_views("dilemma", None, ["always_cooperate"] * 4, 3)
    assert {r["points"] for r in next(iter(views.values()))["standings"]} == {0}
    p = _page(open_page, site)
    module = _viewer(p.page, "dilemma")
    assert module
    for seat, view in views.items():
        text = p.page.evaluate(RENDER, [module, view, _ctx(aliases, seat)])
        assert "1st of 4" not in text, text
        assert not re.search(r"\b\d+(st|nd|rd|th) of \d+\b", text) or "tied" in text, text
        assert "You have 0 points" in text, text
    assert p.errors == []


@pytest.mark.parametrize(("points", "seat", "want", "unwanted"), [
    ([5, 5, 3, 0], 0, "1st of 4, tied with 1 other", None),
    ([5, 5, 5, 0], 3, "4th of 4", "tied"),
    ([3, 5, 3, 3], 2, "2nd of 4, tied with 2 others", None),
    ([9, 5, 3, 0], 0, "1st of 4", "tied"),
])
def test_dilemma_ties_in_the_standings_are_told(site: Any, open_page: Any, points: list[int],
                                                seat: int, want: str,
                                                unwanted: str | None) -> None:
    """A shared place reads as the end banner words it ("1st of 4, tied with 1 other")."""
    aliases, views = _first_views("dilemma", None, ["always_cooperate"] * 4, 3)
    view = dict(views[min(views)])
    view["your_seat"], view["your_points"] = seat, points[seat]
    view["standings"] = [{"seat": i, "points": x} for i, x in enumerate(points)]
    p = _page(open_page, site)
    text = p.page.evaluate(RENDER, [_viewer(p.page, "dilemma"), view, _ctx(aliases, seat)])
    assert want in text, text
    if unwanted:
        line = next(x for x in text.splitlines() if "You have" in x)
        assert unwanted not in line, line
    assert p.errors == []


def test_ledger_and_commons_seat_views_claim_no_place_at_the_start(site: Any,
                                                                   open_page: Any) -> None:
    """Their seat views show scores without a place; none may claim one while all are level."""
    p = _page(open_page, site)
    for game, variant, names in (("ledger", "quickfire", None), ("commons", "cleanup", None)):
        info = registry.get(game)
        lineup = names or info.default_lineup(variant)
        aliases, views = _first_views(game, variant, lineup, 5)
        seat, view = min(views.items())
        text = p.page.evaluate(RENDER, [_viewer(p.page, game), view, _ctx(aliases, seat)])
        assert text.strip(), game
        assert not re.search(r"\b1st\b", text) or "tied" in text, (game, text)
    assert p.errors == []


def test_generic_seat_view_speaks_plainly(site: Any, open_page: Any) -> None:
    """Threshold has no seat renderer: the seat's own index reads "you are seat 2" (with its
    alias), per-seat lists are named by seat, and no field shows as a bare "you 1"."""
    aliases, views = _first_views("threshold", None, ["fair_share"] * 4, 8)
    seat = 1
    view = views[seat]
    assert view["you"] == seat
    p = _page(open_page, site)
    assert _viewer(p.page, "threshold") is None
    text = p.page.evaluate(RENDER, [None, view, _ctx(aliases, seat)])
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    assert f"You are seat {seat + 1} ({aliases[seat]})." in lines, lines
    assert "you" not in [x.lower() for x in lines], lines  # the raw key, alone on its line
    assert not any(re.fullmatch(r"you\s*:?\s*\d+", x, re.I) for x in lines), lines
    # per-seat scores are named by seat, the seat's own marked
    scores = ", ".join(f"{a}{' (you)' if i == seat else ''}: 0" for i, a in enumerate(aliases))
    assert scores in text, text
    assert "0, 0, 0, 0" not in text, text
    assert p.errors == []


def test_generic_seat_view_names_per_seat_lists_in_tables(site: Any, open_page: Any,
                                                          tmp_path: Path) -> None:
    """A history row's per-seat list (Threshold's contributions) names each seat, too."""
    aliases, views = _first_views("threshold", None, ["fair_share"] * 4, 8)
    view = dict(views[0])
    view["history"] = [{"round": 0, "pledges": None, "contributions": [2, 3, 4, 5], "total": 14,
                        "met": True, "payoffs": [13, 12, 11, 10]}]
    p = _page(open_page, site)
    text = p.page.evaluate(RENDER, [None, view, _ctx(aliases, 0)])
    assert f"{aliases[0]} (you): 2, {aliases[1]}: 3" in text, text
    assert "2, 3, 4, 5" not in text, text
    assert p.errors == []


LABELS = """async ([view, ctx]) => {
    const seat = await import('/static/js/seat.js');
    const el = seat.seatPanel(null, view, ctx);
    document.body.append(el);
    return [...el.querySelectorAll(':scope > dl.facts > dt')].map(
        (dt) => [dt.textContent, dt.getAttribute('title')]);
}"""


@pytest.mark.parametrize(("key", "label"), [
    ("my_total_points", "My total points"),
    ("myTotalPoints", "My total points"),
    ("MyTotalPoints", "My total points"),
    ("my-total-points", "My total points"),
    ("round2Score", "Round 2 score"),
    ("round_2_score", "Round 2 score"),
    ("seat3", "Seat 3"),
    ("top_3_seats", "Top 3 seats"),
    ("2nd_place", "2nd place"),
    ("HTTPStatus", "HTTP status"),
    ("numAIPlayers", "Num AI players"),
    ("api_URL", "Api URL"),
    ("playerA", "Player A"),
    ("fair_share", "Fair share"),
    ("__private_note", "Private note"),
    ("aliases", "Players"),
])
def test_generic_seat_view_labels_field_names_as_words(site: Any, open_page: Any, key: str,
                                                      label: str) -> None:
    """A plugin's field name reads as words whatever its style: snake_case, kebab-case,
    camelCase and PascalCase split, digits apart from letters (an ordinal stays whole), an
    acronym kept in capitals, the first word capitalized."""
    p = _page(open_page, site)
    shown = p.page.evaluate(LABELS, [{key: 1}, {"seat": 0, "aliases": ["Ash", "Birch"]}])
    assert [x[0] for x in shown] == [label], shown
    assert p.errors == []


def test_generic_seat_view_explains_fields_with_the_games_own_words(site: Any,
                                                                    open_page: Any) -> None:
    """Threshold's view, labelled: its fields read as words, and a field that is one of the
    game's options (the descriptor's JSON Schema, GET /api/games) carries that option's own
    description on hover — only where the value is of the option's type (the view's
    ``pledges`` is this round's list of pledges, the option ``pledges`` a yes/no)."""
    aliases, views = _first_views("threshold", None, ["fair_share"] * 4, 8)
    p = _page(open_page, site)
    games = p.page.evaluate("async () => (await (await fetch('/api/games')).json()).games")
    options = next(g for g in games if g["name"] == "threshold")["options"]["properties"]
    ctx = {**_ctx(aliases, 1), "options": options}
    shown = dict(p.page.evaluate(LABELS, [views[1], ctx]))
    assert {"Round", "Rounds", "Endowment", "Fair share", "Players", "Scores"} <= set(shown)
    assert shown["Endowment"] == options["endowment"]["description"]
    assert shown["Bonus"] == options["bonus"]["description"]
    assert shown["Fair share"] is None and shown["Scores"] is None  # no option of that name
    assert views[1]["pledges"] is None or isinstance(views[1]["pledges"], list)
    assert shown["Pledges"] is None  # the view's pledges are not the option's yes/no
    assert p.errors == []
