"""`web/scales.py`: which options split the Observatory's tables. A change to an option the
descriptor declares neutral (a person's deadline, the stake, the rake, the connect timeout)
never changes an episode's scale key; a change to any other option always does, and the label
names exactly the options that differ."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cogleague.games import registry
from cogleague.web import scales

GAMES = ("dilemma", "commons", "ledger")


def _config(game: str) -> dict[str, Any]:
    desc = registry.get(game)
    return dict(desc.new_game(desc.default_variant, {}, 1).public_config())


@given(st.sampled_from(GAMES), st.integers(min_value=1, max_value=10**6))
def test_neutral_options_never_split(game: str, value: int) -> None:
    desc = registry.get(game)
    config = _config(game)
    neutral = [k for k in scales.neutral_options(desc) if k in config]
    assert neutral, game  # every built-in game declares some (seed/variant at least)
    other = {**config, **{k: value for k in neutral if k not in ("variant",)}}
    assert scales.scale_key(desc, other) == scales.scale_key(desc, config)


@given(st.sampled_from(GAMES), st.data())
def test_other_options_split_and_are_named(game: str, data: st.DataObject) -> None:
    desc = registry.get(game)
    config = _config(game)
    neutral = scales.neutral_options(desc)
    names = sorted(k for k, v in config.items()
                   if k not in neutral and isinstance(v, int) and not isinstance(v, bool))
    if not names:
        return
    name = data.draw(st.sampled_from(names))
    changed = {**config, name: config[name] + data.draw(st.integers(min_value=1, max_value=99))}
    a, b = scales.scale_key(desc, config), scales.scale_key(desc, changed)
    assert a != b
    assert scales.differing([a, b]) == [name]
    assert scales.label(b, [name]) == {name: changed[name]}
    assert scales.label(scales.UNKNOWN, [name]) == {"options": "not recorded"}
