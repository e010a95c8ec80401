"""Decision clamping, every row of rules §5, and reply parsing (first balanced {…} span)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from cogleague.core.errors import IllegalAction
from cogleague.games.commons.actions import Validator
from cogleague.games.commons.config import make_config
from cogleague.games.commons.game import CommonsGame, first_json_object

ALIASES = ["Cog-E", "Cog-F", "Cog-B", "Cog-A", "Cog-C", "Cog-D"]
BAD_INTS = [True, False, "2", None, math.nan, math.inf, -math.inf, [1], {"a": 1}]


def clamp(module: str, raw: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    cfg = make_config(None, {"module": module, **overrides})
    return Validator(cfg, ALIASES).clamp(raw, "Cog-E")[0]


@pytest.mark.parametrize(("value", "expected"), [
    (0, 0), (2, 2), (3, 3), (5, 3), (-1, 0), (2.9, 2), (-0.9, 0), (-2.5, 0), (3.7, 3),
    *[(bad, 0) for bad in BAD_INTS]])
def test_int_fields_default_truncate_and_clamp(value: Any, expected: int) -> None:
    assert clamp("cleanup", {"harvest": value})["harvest"] == expected
    assert clamp("harvest", {"patch": 1, "harvest": value})["harvest"] == expected
    assert clamp("mushrooms", {"eat": value})["eat"] == expected
    assert clamp("allelopathic", {"eat": value})["eat"] == expected


def test_missing_fields_default() -> None:
    assert clamp("cleanup", {})["harvest"] == 0 and clamp("cleanup", {})["clean"] == 0
    m = clamp("harvest", {})
    assert (m["patch"], m["harvest"]) == (0, 0)
    m = clamp("allelopathic", {})
    assert (m["eat"], m["eat_color"], m["plant"], m["plant_color"]) == (0, "red", 0, "red")
    m = clamp("mushrooms", {})
    assert (m["eat"], m["eat_color"]) == (0, "red")


@pytest.mark.parametrize(("h", "c", "eh", "ec"), [(1, 1, 1, 1), (2, 3, 2, 1), (3, 3, 3, 0),
                                                  (0, 3, 0, 3), (3, 2.5, 3, 0), (7, 1, 3, 0)])
def test_budget_cuts_maintenance_first_never_taking(h: Any, c: Any, eh: int, ec: int) -> None:
    m = clamp("cleanup", {"harvest": h, "clean": c})
    assert (m["harvest"], m["clean"]) == (eh, ec)


def test_allelopathic_plant_is_cut_to_the_budget_left_by_eating() -> None:
    m = clamp("allelopathic", {"eat": 2, "plant": 3, "eat_color": "blue"})
    assert (m["eat"], m["plant"], m["plant_color"]) == (2, 1, "blue")


@pytest.mark.parametrize(("value", "expected"), [(0, 0), (5, 5), (6, 5), (99, 5), (-3, 0),
                                                  (2.8, 2), ("3", 0), (None, 0), (True, 0)])
def test_patch_is_an_index_below_patch_count(value: Any, expected: int) -> None:
    assert clamp("harvest", {"patch": value, "harvest": 1})["patch"] == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("green", "green"), (" GREEN ", "green"), ("Blue", "blue"), ("purple", "red"), ("", "red"),
    (3, "red"), (None, "red"), (True, "red")])
def test_colours_are_trimmed_lower_cased_then_checked(value: Any, expected: str) -> None:
    assert clamp("mushrooms", {"eat": 1, "eat_color": value})["eat_color"] == expected
    assert clamp("allelopathic", {"eat": 1, "eat_color": value})["eat_color"] == expected


def test_plant_colour_defaults_to_the_clamped_eat_colour() -> None:
    m = clamp("allelopathic", {"eat": 1, "eat_color": " Green", "plant": 1,
                               "plant_color": "mauve"})
    assert m["plant_color"] == "green"
    assert clamp("allelopathic", {"plant": 1, "plant_color": "BLUE"})["plant_color"] == "blue"


@pytest.mark.parametrize("target", ["Cog-E", " Cog-E ", 6, -1, 99, 0, 3, "two", None, True,
                                    False, "Cog-Z", "cog-b", ["Cog-B"]])
def test_invalid_sanction_targets_become_null(target: Any) -> None:
    assert clamp("cleanup", {"sanction": target}, sanctions_enabled=True)["sanction"] is None


def test_sanction_target_is_another_alias_after_trimming_and_null_when_off() -> None:
    assert clamp("cleanup", {"sanction": " Cog-B "}, sanctions_enabled=True)["sanction"] == "Cog-B"
    assert clamp("cleanup", {"sanction": "Cog-B"}, sanctions_enabled=False)["sanction"] is None


def test_messages_are_stripped_cut_on_code_points_and_dropped_when_empty_or_off() -> None:
    assert clamp("cleanup", {"message": "  hi  "})["message"] == "hi"
    assert clamp("cleanup", {"message": "   "})["message"] is None
    assert clamp("cleanup", {"message": 42})["message"] is None
    assert clamp("cleanup", {"message": "hi"}, chat_enabled=False)["message"] is None
    assert clamp("cleanup", {"message": "abcdef"}, chat_max_chars=3)["message"] == "abc"
    # protocol §5: control characters removed (line breaks become spaces, NUL and BEL dropped)
    assert clamp("cleanup", {"message": "a\nb\x00c\x07\td"})["message"] == "a bc d"


def test_a_140_code_point_emoji_and_cjk_message_survives_and_longer_is_cut() -> None:
    text = ("🍎共" * 70)
    assert len(text) == 140
    assert clamp("cleanup", {"message": text})["message"] == text
    longer = text + "🍏果"
    cut = clamp("cleanup", {"message": longer})["message"]
    assert cut == text and len(cut) == 140
    cut.encode("utf-8")  # never a split character


def test_notes_are_cut_to_200_and_only_present_when_sent() -> None:
    assert "note" not in clamp("cleanup", {"harvest": 1})
    assert clamp("cleanup", {"note": " x" * 300})["note"] == (" x" * 300).strip()[:200]
    assert len(clamp("cleanup", {"note": "n" * 250})["note"]) == 200
    assert clamp("cleanup", {"note": ""})["note"] == ""
    assert clamp("cleanup", {"note": 5})["note"] == ""


def test_unknown_keys_and_fields_the_module_does_not_use_are_ignored() -> None:
    m = clamp("cleanup", {"harvest": 1, "eat": 3, "eat_color": "blue", "patch": 4, "zzz": 1})
    assert (m["eat"], m["eat_color"], m["patch"]) == (0, None, None)
    m = clamp("mushrooms", {"eat": 1, "plant": 2, "harvest": 3, "clean": 1})
    assert (m["plant"], m["harvest"], m["clean"], m["plant_color"]) == (0, 0, 0, None)


def test_the_clamped_flag_marks_a_changed_field_only() -> None:
    v = Validator(make_config("cleanup"), ALIASES)
    assert v.clamp({"harvest": 1, "clean": 1, "message": "hi"}, "Cog-E")[1] is False
    assert v.clamp({"harvest": 2, "clean": 2}, "Cog-E")[1] is True
    assert v.clamp({"harvest": 1.0}, "Cog-E")[1] is True
    assert v.clamp({"sanction": "Cog-E"}, "Cog-E")[1] is True


def test_clamping_is_idempotent() -> None:
    v = Validator(make_config("allelopathic"), ALIASES)
    raw = {"eat": 2.5, "eat_color": " Blue ", "plant": 9, "plant_color": "x",
           "sanction": " Cog-A", "message": "  hello "}
    once, _ = v.clamp(raw, "Cog-E")
    twice, changed = v.clamp(once, "Cog-E")
    assert twice == once and changed is False


# -- parsing replies -------------------------------------------------------------------------
def _game() -> CommonsGame:
    game = CommonsGame(make_config("cleanup"))
    game.start()
    game.open_round()
    return game


def test_parse_reads_the_first_balanced_object_of_a_text_reply() -> None:
    game = _game()
    turn = game.pending()[0]
    text = 'Sure! {"harvest": 2, "clean": 1, "message": "a } in {text"} and {"harvest": 0}'
    parsed = game.parse(turn, text)
    assert (parsed.action["harvest"], parsed.action["clean"]) == (2, 1)
    assert parsed.action["message"] == "a } in {text" and parsed.clamped is False
    assert game.parse(turn, '{"harvest": 3, "clean": 3} {bad}').action["clean"] == 0
    assert game.parse(turn, 'unbalanced { then {"harvest": 2}').action["harvest"] == 2
    with pytest.raises(IllegalAction):
        game.parse(turn, 'x {bad} {"harvest": 3}')  # the first span decides
    assert game.parse(turn, {"harvest": 9}).clamped is True


@pytest.mark.parametrize("reply", ["no json here", "{not json", "[1, 2]", "", 42, ["a"]])
def test_an_unreadable_reply_is_a_parse_error(reply: Any) -> None:
    game = _game()
    with pytest.raises(IllegalAction) as err:
        game.parse(game.pending()[0], reply)
    assert err.value.code == "parse"


def test_first_json_object_skips_braces_inside_strings() -> None:
    assert first_json_object('{"a": "}{", "b": {"c": 1}}') == {"a": "}{", "b": {"c": 1}}


@pytest.mark.parametrize(("raw", "field"), [
    ({"action": "cooperate"}, "action: not a field of a move here"),
    ({"harvset": 3, "clean": 0}, "harvset: not a field of a move here"),
    ({}, "harvest / clean: none given; the move was read as zero effort"),
    ({"message": "hi"}, "harvest / clean: none given")])
def test_a_wrong_shape_is_read_as_the_default_but_never_silently(raw: dict[str, Any],
                                                                  field: str) -> None:
    game = CommonsGame(make_config("cleanup", {}), ["remote"] * 6)
    game.start()
    game.open_round()
    turn = game.pending()[0]
    parsed = game.parse(turn, raw)
    assert (parsed.action["harvest"], parsed.action["clean"]) == (0, 0)
    assert parsed.clamped and parsed.reason is not None and parsed.reason.startswith(field)
    good = game.parse(turn, {"harvest": 2, "clean": 1, "note": "n", "sanction": None})
    assert good.reason is None


def test_strict_counts_a_wrong_shape() -> None:
    import cogleague
    from cogleague.client import Bot

    class Misspelt(Bot):
        def on_turn(self, turn: Any) -> dict[str, Any]:
            return {"harvset": 2}

    lineup: list[Any] = [Misspelt()] + ["steward"] * 5
    result = cogleague.play("commons", lineup, seed=1, variant="cleanup", rounds=2)
    assert result.faults["seats"][0]["fallbacks"] == {"wrong_shape": 2}
    with pytest.raises(cogleague.StrictError, match="2 wrong_shape"):
        cogleague.play("commons", lineup, seed=1, variant="cleanup", rounds=2, strict=True)
