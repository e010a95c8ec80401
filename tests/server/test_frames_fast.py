"""`frames.fast_move` (the move path without pydantic) takes exactly the frames that
`parse_client_frame` reads as a `Move`, with the same turn id and action fields, and leaves
everything else to it (which words the error)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cogleague.server import frames

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8)
turn_ids = st.one_of(st.text(max_size=202), st.integers(), st.none(), st.lists(st.text()),
                     st.just(""), st.just("x" * 200), st.just("x" * 201))
docs = st.one_of(
    json_values,
    st.fixed_dictionaries({"type": st.sampled_from(["move", "Move", "resume", "ping"]),
                           "turn_id": turn_ids},
                          optional={"action": json_values, "message": json_values}),
    st.fixed_dictionaries({"type": st.just("move")}, optional={"turn_id": turn_ids}),
)


def _slow(doc: Any) -> tuple[str, dict[str, Any]] | str | None:
    try:
        frame = frames.parse_client_frame(doc)
    except frames.BadFrame:
        return "bad"
    if isinstance(frame, frames.Move):
        return frame.turn_id, frames.move_fields(frame)
    return None


@settings(max_examples=400, deadline=None)
@given(docs)
def test_fast_move_agrees_with_the_model(doc: Any) -> None:
    fast = frames.fast_move(doc)
    slow = _slow(doc)
    if fast is not None:
        assert slow == fast
    else:  # not a plainly well-formed move: the model decides (and refuses every move here)
        assert not isinstance(slow, tuple)
