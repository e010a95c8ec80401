"""`core/options.py`: a game's config model checks values in the project's one message format
(field, range, the value received), and the CLI names the flag instead of the field. The
property: for every built-in game's option model, any value inside a field's declared range
passes and any value outside it fails."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from cogleague.core.errors import ConfigError
from cogleague.core.options import base_type, validate_options
from cogleague.games import registry
from seam.support import run_cli

BUILT_IN = ("commons", "dilemma", "ledger")


def model(game: str) -> type[BaseModel]:
    return registry.get(game).options


def refused(game: str, values: dict[str, Any], section: str = "game") -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        validate_options(model(game), values, section=section)
    return caught.value


# -- messages -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "values", "field", "message"), [
    ("ledger", {"rounds": 3}, "rounds", "rounds must be an integer in 4..28 (got 3)"),
    ("ledger", {"rounds": 29}, "rounds", "rounds must be an integer in 4..28 (got 29)"),
    ("ledger", {"rounds": True}, "rounds", "rounds must be an integer in 4..28 (got True)"),
    ("ledger", {"rounds": 5.5}, "rounds", "rounds must be an integer in 4..28 (got 5.5)"),
    ("ledger", {"rounds": 3.0}, "rounds", "rounds must be an integer in 4..28 (got 3.0)"),
    ("ledger", {"rounds": "5"}, "rounds", "rounds must be an integer in 4..28 (got '5')"),
    ("ledger", {"decision_timeout_s": False}, "decision_timeout_s",
     "decision_timeout_s must be a number in 5..300 (got False)"),
    ("ledger", {"play_budget_fraction": 0.95}, "play_budget_fraction",
     "play_budget_fraction must be a number in 0.1..0.9 (got 0.95)"),
    ("ledger", {"episode_timeout_s": float("nan")}, "episode_timeout_s",
     "episode_timeout_s must be a number in 60..6000 (got nan)"),
    ("dilemma", {"rounds_total": 0}, "rounds_total",
     "rounds_total must be an integer in 1..1000 (got 0)"),
    ("dilemma", {"promises": 1}, "promises", "promises must be true or false (got 1)"),
    ("dilemma", {"payoffs": {"reward": -1}}, "payoffs.reward",
     "payoffs.reward must be an integer in 0..1000000 (got -1)"),
    ("dilemma", {"payoffs": {"reward": True}}, "payoffs.reward",
     "payoffs.reward must be an integer in 0..1000000 (got True)"),
    ("dilemma", {"payoffs": 5}, "payoffs",
     "payoffs must be an object with punishment, reward, sucker, temptation (got 5)"),
    ("commons", {"module": "nope"}, "module",
     "module must be one of cleanup, harvest, allelopathic, mushrooms (got 'nope')"),
    ("commons", {"property_rights": 1}, "property_rights",
     "property_rights must be one of open, closed, partnership (got 1)"),
    ("commons", {"sanction_cost": 10.5}, "sanction_cost",
     "sanction_cost must be a number in 0..10 (got 10.5)"),
    ("commons", {"norm_text": 7}, "norm_text", "norm_text must be a string (got 7)"),
    ("commons", {"names": "Ann"}, "names", "names must be a list (got 'Ann')"),
])
def test_a_bad_value_is_named_with_its_range(game: str, values: dict[str, Any], field: str,
                                             message: str) -> None:
    error = refused(game, values)
    assert error.field == field
    assert str(error) == message


def test_an_unknown_key_is_refused_naming_the_known_ones() -> None:
    error = refused("ledger", {"round": 5}, section="ledger config")
    assert error.field == "round"
    assert str(error) == ("round is not a ledger config setting (known: decision_timeout_s, "
                          "episode_timeout_s, play_budget_fraction, rounds)")
    nested = refused("dilemma", {"payoffs": {"bonus": 1}})
    assert str(nested) == ("payoffs.bonus is not a payoffs setting (known: punishment, reward, "
                           "sucker, temptation)")


def test_good_values_come_back_as_given_and_none_means_not_given() -> None:
    assert validate_options(model("ledger"), {"rounds": 8, "decision_timeout_s": 30,
                                              "episode_timeout_s": None}) == {
        "rounds": 8, "decision_timeout_s": 30}
    assert validate_options(model("dilemma"), {"payoffs": {"reward": 3, "sucker": None}}) == {
        "payoffs": {"reward": 3}}
    # a float is never an integer option, even 12.0: the caller's bug, not a value to round
    assert str(refused("ledger", {"rounds": 12.0})) == ("rounds must be an integer in 4..28 "
                                                       "(got 12.0)")


def test_a_huge_integer_for_a_number_is_a_range_error_not_a_crash() -> None:
    error = refused("ledger", {"decision_timeout_s": 10**400})
    assert str(error).startswith("decision_timeout_s must be a number in 5..300 (got 1000")


# -- the CLI names the flag ----------------------------------------------------------------------
@pytest.mark.parametrize(("args", "line"), [
    (["ledger", "--rounds", "3"], "error: --rounds must be an integer in 4..28 (got 3)"),
    (["dilemma", "--rounds", "0"], "error: --rounds must be an integer in 1..1000 (got 0)"),
    (["commons", "--module", "nope"],
     "error: --module must be one of cleanup, harvest, allelopathic, mushrooms (got 'nope')"),
    (["commons", "--sanction-cost", "11"],
     "error: --sanction-cost must be a number in 0..10 (got 11.0)"),
])
def test_the_cli_names_the_flag_exits_2_and_writes_nothing(args: list[str], line: str,
                                                           tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run_cli("play", *args, "--out", str(out), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [line]
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == []


# -- the property ------------------------------------------------------------------------------
def declared(m: type[BaseModel], field: str) -> dict[str, Any]:
    """A field's declared type and range, as its model states them."""
    info = m.model_fields[field]
    found: dict[str, Any] = {"kind": base_type(info.annotation)}
    for meta in info.metadata:
        for bound in ("ge", "le", "max_length"):
            if hasattr(meta, bound):
                found[bound] = getattr(meta, bound)
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    found["choices"] = extra.get("enum")
    return found


def nested(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, BaseModel)


def inside(m: type[BaseModel], field: str) -> st.SearchStrategy[Any]:
    d = declared(m, field)
    kind = d["kind"]
    if d["choices"]:
        return st.sampled_from(d["choices"])
    if nested(kind):
        return st.fixed_dictionaries({}, optional={f: inside(kind, f) for f in kind.model_fields})
    if kind is bool:
        return st.booleans()
    if kind is int:
        return st.integers(d["ge"], d["le"])
    if kind is float:
        whole = (math.ceil(d["ge"]), math.floor(d["le"]))
        ints = st.integers(*whole) if whole[0] <= whole[1] else st.nothing()
        return st.floats(d["ge"], d["le"]) | ints
    if kind is str:
        return st.text(max_size=d.get("max_length", 40))
    if kind is list:
        return st.lists(st.text(max_size=8), max_size=4)
    raise AssertionError(f"no strategy for {field}: {kind}")


def outside(m: type[BaseModel], field: str) -> st.SearchStrategy[Any]:
    d = declared(m, field)
    kind = d["kind"]
    not_text = st.integers() | st.booleans() | st.lists(st.integers(), max_size=2)
    if d["choices"]:
        return st.text(max_size=12).filter(lambda v: v not in d["choices"]) | not_text
    if nested(kind):
        one_bad = st.sampled_from(sorted(kind.model_fields)).flatmap(
            lambda f: outside(kind, f).map(lambda v: {f: v}))
        unknown = st.text(min_size=1, max_size=8).filter(lambda k: k not in kind.model_fields)
        return (one_bad | unknown.map(lambda k: {k: 1}) | st.integers() | st.text()
                | st.lists(st.integers(), max_size=2))
    if kind is bool:
        return st.integers() | st.floats() | st.text(max_size=5)
    if kind is int:
        lo, hi = d["ge"], d["le"]
        fractional = st.floats().filter(lambda x: not (x.is_integer() and lo <= x <= hi))
        return (st.integers(max_value=lo - 1) | st.integers(min_value=hi + 1) | st.booleans()
                | fractional | st.text(max_size=5))
    if kind is float:
        lo, hi = d["ge"], d["le"]
        return (st.floats(max_value=lo, exclude_max=True)
                | st.floats(min_value=hi, exclude_min=True) | st.just(math.nan)
                | st.integers(max_value=math.ceil(lo) - 1)
                | st.integers(min_value=math.floor(hi) + 1) | st.booleans() | st.text(max_size=5))
    if kind is str:
        if "max_length" in d:
            return st.text(min_size=d["max_length"] + 1) | not_text
        return not_text
    if kind is list:
        return st.text(max_size=5) | st.integers() | st.booleans()
    raise AssertionError(f"no strategy for {field}: {kind}")


FIELDS = [(game, field) for game in BUILT_IN for field in model(game).model_fields]


@pytest.mark.parametrize(("game", "field"), FIELDS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_inside_the_declared_range_passes_outside_fails(game: str, field: str,
                                                        data: st.DataObject) -> None:
    m = model(game)
    good = data.draw(inside(m, field), label="inside")
    assert validate_options(m, {field: good}) == {field: good}
    bad = data.draw(outside(m, field), label="outside")
    with pytest.raises(ConfigError) as caught:
        validate_options(m, {field: bad})
    assert caught.value.field.split(".")[0] == field
    assert str(caught.value).startswith(caught.value.field + " ")
