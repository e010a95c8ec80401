"""Replies (§13): reading moves, clamping, unusable replies, retries and per-seat fallback."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core.clock import FakeClock
from cogleague.core.episode import run_episode
from cogleague.core.errors import IllegalAction
from cogleague.core.game import Turn
from cogleague.games.ledger.game import LedgerGame
from cogleague.games.ledger.subgames import DILEMMA, TRUST, ULTIMATUM

from .support import ScriptSeat, make_game, open_first_round, seats_with


def _turns_by_role(game: LedgerGame, rounds: int = 14) -> dict[str, Turn]:
    """One turn per role (EITHER, INVESTOR, TRUSTEE, PROPOSER, RESPONDER) from a real episode."""
    found: dict[str, Turn] = {}
    game.start()
    for _ in range(rounds):
        game.open_round()
        turns = game.pending()
        for t in turns:
            found.setdefault(t.context.slot.role, t)
        if len(found) == 5:
            return found
        game.apply({})
    raise AssertionError("no schedule with all five roles")


@pytest.fixture(scope="module")
def roles() -> dict[str, Turn]:
    return _turns_by_role(make_game(seed=7))


def _parse(roles: dict[str, Turn], role: str, raw: Any) -> tuple[int, bool]:
    game: LedgerGame = make_game(seed=7)
    parsed = game.parse(roles[role], raw)
    return parsed.action["move"], parsed.clamped


@pytest.mark.parametrize(("raw", "move"), [
    ({"move": "C"}, 0), ({"move": " d "}, 1), ({"move": "cooperate"}, 0), ({"move": "DEFECT"}, 1),
    ({"move": "coop"}, 0), ({"move": "Coop"}, 0), ({"move": 0}, 0), ({"move": 1}, 1),
    ({"move": "1"}, 1), ({"move": 0.4}, 0), ({"move": 0.5}, 1),
])
def test_dilemma_words_and_numbers(roles: dict[str, Turn], raw: Any, move: int) -> None:
    assert _parse(roles, "EITHER", raw) == (move, False)


NINES = "9" * 31  # more significant digits than decimal's default 28-digit context keeps


@pytest.mark.parametrize(("role", "raw", "move"), [
    ("EITHER", "0." + "4" + NINES, 0),  # just under a half: cooperate, never defect
    ("EITHER", "0." + "5" + "0" * 30 + "1", 1),
    ("INVESTOR", "2.4" + NINES, 2), ("INVESTOR", "2.5", 3), ("INVESTOR", "0.4" + NINES + "%", 0),
    ("TRUSTEE", "49.4" + NINES + "%", 49), ("RESPONDER", "4.4" + NINES + " coins", 4),
])
def test_decimal_strings_round_half_up_exactly(roles: dict[str, Turn], role: str, raw: str,
                                               move: int) -> None:
    assert _parse(roles, role, {"move": raw}) == (move, False)


@pytest.mark.parametrize(("raw", "move"), [
    ("9" * 1_000_001, 12), ("-" + "9" * 1_000_001, 0), ("1" * 5000 + ".5", 12),
    ("0." + "0" * 1_000_000 + "1", 0)])
def test_decimal_strings_of_any_length_are_read_at_once(roles: dict[str, Turn], raw: str,
                                                        move: int) -> None:
    """Far outside every range, a number is clamped by its sign (a million digits neither
    overflow decimal's context nor take a long conversion to an int)."""
    assert _parse(roles, "PROPOSER", {"move": raw})[0] == move


@pytest.mark.parametrize(("raw", "move"), [
    ({"move": "5"}, 5), ({"move": 5.4}, 5), ({"move": 5.5}, 6), ({"move": "6 coins"}, 6),
    ({"move": "1 coin"}, 1), ({"move": "4.5"}, 5), ({"move": " 3 "}, 3), ({"move": 4}, 4),
    ({"move": "2coins"}, 2),
])
def test_investor_numbers(roles: dict[str, Turn], raw: Any, move: int) -> None:
    assert _parse(roles, "INVESTOR", raw) == (move, False)


def test_percent_and_text_replies(roles: dict[str, Turn]) -> None:
    assert _parse(roles, "TRUSTEE", {"move": "50%"}) == (50, False)
    assert _parse(roles, "TRUSTEE", 'I will return half: {"move": 50} ok') == (50, False)
    assert _parse(roles, "TRUSTEE", '```json\n{"move": "75 %", "memo": "x"}\n```') == (75, False)


@pytest.mark.parametrize(("role", "raw", "move"), [
    ("INVESTOR", 9, 6), ("INVESTOR", -20, 0), ("INVESTOR", "-20", 0), ("PROPOSER", 40, 12),
    ("RESPONDER", 13, 12), ("EITHER", 7, 1), ("EITHER", -1, 0), ("TRUSTEE", "150%", 100),
    ("TRUSTEE", 1e300, 100),
])
def test_out_of_range_moves_are_clamped_and_flagged(roles: dict[str, Turn], role: str,
                                                    raw: Any, move: int) -> None:
    assert _parse(roles, role, {"move": raw}) == (move, True)


@pytest.mark.parametrize("raw", [
    {"move": "maybe"}, {"move": None}, {}, {"move": True}, {"move": False},
    {"move": float("nan")}, {"move": float("inf")}, {"move": [1]}, {"move": "1e3"},
    {"move": "five"}, {"move": "c"},  # words are DILEMMA-only
    {"move": [10**5000]}, {"move": {10**5000: 1}},  # quoted briefly: no 4,300-digit str()
])
def test_unusable_moves_raise_with_a_hint(roles: dict[str, Turn], raw: Any) -> None:
    game: LedgerGame = make_game(seed=7)
    with pytest.raises(IllegalAction) as err:
        game.parse(roles["INVESTOR"], raw)
    assert err.value.code == "illegal_action"
    assert '"move": <integer 0..6>' in err.value.hint


@pytest.mark.parametrize("raw", ["no json here", "{not json}", "[1, 2]", 42, None, "} {"])
def test_no_json_object_is_a_parse_failure(roles: dict[str, Turn], raw: Any) -> None:
    game: LedgerGame = make_game(seed=7)
    with pytest.raises(IllegalAction) as err:
        game.parse(roles["PROPOSER"], raw)
    assert err.value.code == "parse" and '"move": <integer 0..12>' in err.value.hint


HUGE = "1" * 5000  # past Python's 4300-digit limit: json.loads raises a bare ValueError


def test_an_integer_too_long_to_read_is_refused_as_the_move_and_ignored_elsewhere(
        roles: dict[str, Turn]) -> None:
    """Before: the whole reply was a parse failure, even when the number was in the memo."""
    game: LedgerGame = make_game(seed=7)
    with pytest.raises(IllegalAction) as err:
        game.parse(roles["PROPOSER"], '{"move": ' + HUGE + "}")
    assert err.value.code == "illegal_action"
    assert str(err.value) == "move must be an integer 0..12 (got <an integer of 5000 digits>)"
    parsed = game.parse(roles["PROPOSER"], '{"move": 1, "memo": -' + HUGE + "}")
    assert parsed.action == {"move": 1}


async def test_a_reply_with_a_huge_integer_falls_back_and_the_episode_goes_on() -> None:
    game = make_game(seed=7, rounds=4)
    huge = ScriptSeat(lambda turn, hint: '{"move": ' + HUGE + "}")
    outcome = await run_episode(game, seats_with(game, {3: huge}), clock=FakeClock())
    assert outcome.results["reason"] == "complete"
    assert outcome.results["fallbacks"] == [0, 0, 0, 4, 0, 0, 0, 0]
    assert outcome.faults[3] == {"illegal": 4}


def test_notes_and_memos_are_cleaned_and_non_strings_ignored(roles: dict[str, Turn]) -> None:
    game: LedgerGame = make_game(seed=7)
    turn = next(t for t in roles.values() if t.round > 0)
    parsed = game.parse(turn, {"move": turn.legal_actions["move"]["min"],
                               "note": "  fair\tplayer\n ", "memo": "plan:\x00 cooperate"})
    assert parsed.action["note"] == "fair player" and parsed.action["memo"] == "plan: cooperate"
    ignored = game.parse(turn, {"move": turn.legal_actions["move"]["min"], "note": 5,
                                "memo": ["x"]})
    assert ignored.action == {"move": turn.legal_actions["move"]["min"]}


def test_round_one_notes_are_dropped_and_the_seat_is_told_why() -> None:
    """A round-1 note cannot stand (no partner yet): it is dropped as a wrong subject is, with
    a reason the seat is told, not silently."""
    game = make_game(seed=7)
    turn = open_first_round(game)[0]
    parsed = game.parse(turn, {"move": 0, "note": "hello", "memo": "keep"})
    assert parsed.action == {"move": 0, "memo": "keep"}
    assert parsed.reason is not None and parsed.reason.startswith("note dropped: ")
    assert "round 1" in parsed.reason and "move stands" in parsed.reason
    for quiet in ({"move": 0}, {"move": 0, "note": " \n "}, {"move": 0, "note": 5}):
        assert game.parse(turn, quiet).reason is None  # no note given: nothing dropped


async def test_an_unusable_seat_is_retried_with_a_hint_then_falls_back_alone() -> None:
    game = make_game(seed=7, rounds=4)
    bad = ScriptSeat(lambda turn, hint: {"move": "maybe", "note": "n", "memo": "m"})
    garbled = ScriptSeat(lambda turn, hint: "I refuse to answer in JSON")
    outcome = await run_episode(game, seats_with(game, {2: bad, 6: garbled}),
                                clock=FakeClock())
    results = outcome.results
    assert results["fallbacks"] == [0, 0, 4, 0, 0, 0, 4, 0]
    assert bad.hints[0] is None and '"move": <integer' in (bad.hints[1] or "")
    assert len(bad.hints) == 8  # four rounds x (attempt + one retry)
    for r, step in enumerate(outcome.log.decisions):
        d = step[f"r{r}s2"]
        assert (d.source, d.cause, d.attempts) == ("fallback", "illegal", 2)
        assert all(step[f"r{r}s{s}"].source == "scripted" for s in (0, 1, 3, 4, 5, 7))
    meetings = [e.data for e in outcome.log.events if e.kind == "meeting"]
    for m in meetings:
        for side, seat in (("A", m["a"]), ("B", m["b"])):
            fell_back = seat in (2, 6)
            assert m[f"fallback{side}"] is fell_back
            assert m[f"scripted{side}"] is True  # everyone else is a scripted baseline
            if fell_back:
                assert m[f"memo{side}"] == ""  # a fallback drops the memo (and note)
    assert not any(e.kind == "gossip" for e in outcome.log.events)
    causes = {d.cause for step in outcome.log.decisions for k, d in step.items()
              if k.endswith("s6")}
    assert causes == {"parse"}


async def test_timeouts_are_counted_per_attempt() -> None:
    clock = FakeClock()
    game = make_game(seed=7, rounds=4, decision_timeout_s=5)

    class Slow:
        kind, name = "remote", "slow"

        async def decide(self, turn: Turn, hint: str | None) -> Any:
            await clock.sleep(6.0 if turn.round == 1 else 0.0)
            return {"move": turn.legal_actions["move"]["max"]}

    outcome = await run_episode(game, seats_with(game, {3: Slow()}), clock=clock)
    assert outcome.results["timeouts"] == [0, 0, 0, 2, 0, 0, 0, 0]
    assert outcome.results["fallbacks"] == [0, 0, 0, 1, 0, 0, 0, 0]
    round1 = next(e.data for e in outcome.log.events if e.kind == "meeting"
                  and e.data["round"] == 1 and 3 in (e.data["a"], e.data["b"]))
    side = "A" if round1["a"] == 3 else "B"
    assert (round1[f"timeouts{side}"], round1[f"fallback{side}"]) == (2, True)


async def test_clamped_replies_are_flagged_in_the_meeting() -> None:
    game = make_game(seed=7, rounds=4)
    loud = ScriptSeat(lambda turn, hint: {"move": 999})
    outcome = await run_episode(game, seats_with(game, {0: loud}), clock=FakeClock())
    for e in outcome.log.events:
        if e.kind == "meeting" and 0 in (e.data["a"], e.data["b"]):
            side = "A" if e.data["a"] == 0 else "B"
            assert e.data[f"clamped{side}"] is True and e.data[f"scripted{side}"] is False
            slot = game.table.slots[e.data["round"]][0]
            assert e.data[f"move{side}"] == slot.hi
    assert outcome.results["fallbacks"] == [0] * 8


def test_roles_cover_every_subgame(roles: dict[str, Turn]) -> None:
    assert {t.context.slot.subgame for t in roles.values()} == {DILEMMA, TRUST, ULTIMATUM}


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


async def test_a_move_nested_past_the_recursion_limit_falls_back_and_the_episode_goes_on(
        ) -> None:
    """An in-process bot's reply is a Python object, nested as deep as it likes (a server's
    JSON decoder stops far sooner): refusing it must not recurse through it."""
    game = make_game(seed=7, rounds=4)
    deep = ScriptSeat(lambda turn, hint: {"move": _nested(5000), "note": _nested(5000)})
    outcome = await run_episode(game, seats_with(game, {3: deep}), clock=FakeClock())
    assert outcome.results["fallbacks"] == [0, 0, 0, 4, 0, 0, 0, 0]
    assert outcome.faults[3] == {"illegal": 4}
    assert len(outcome.reasons[3]["illegal"]) < 200  # the refusal quotes the value briefly


def test_a_refused_move_is_quoted_briefly(roles: dict[str, Turn]) -> None:
    game: LedgerGame = make_game(seed=7)
    with pytest.raises(IllegalAction) as err:
        game.parse(roles["INVESTOR"], {"move": "no " * 100_000})
    assert len(str(err.value)) < 200 and "got 'no no no" in str(err.value)
