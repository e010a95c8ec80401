"""The broadcast fast path (one payload encoding per audience) is byte-identical to encoding
`Event.view_for(seat)` for each seat, and shows nobody an event or field that is not theirs."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogleague.core import jsonio
from cogleague.core.game import Event
from cogleague.server.audience import POLICY_KEYS, strip_keys
from cogleague.server.live import Room, broadcast

SEATS = 3
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8)
keys = st.sampled_from(["round", "seat", "note", "kind", "payload", "é"])
events = st.builds(
    lambda kind, data, audience, restricted: Event(
        kind, data, audience,
        {k: tuple(v) for k, v in restricted.items() if k in data} or None),
    st.sampled_from(["round_start", "message_private", "kind"]),
    st.dictionaries(keys, json_values, max_size=4),
    st.none() | st.just(()) | st.lists(st.integers(0, SEATS - 1), min_size=1, max_size=2,
                                        unique=True)
    .map(tuple),
    st.dictionaries(keys, st.lists(st.integers(0, SEATS - 1), max_size=2, unique=True),
                    max_size=2))


def reference(table: str, views: list[dict[str, Any] | None]) -> list[str]:
    """What each stream must hold: `jsonio.dumps` of the frame built from each view."""
    out = []
    for view in views:
        if view is None:
            continue
        payload = dict(view)
        name = payload.pop("kind")
        out.append(jsonio.dumps({"type": "event", "seq": len(out) + 1, "table": table,
                                 "event": name, "payload": payload}))
    return out


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events, max_size=6))
def test_broadcast_is_each_views_own_encoding(evs: list[Event]) -> None:
    room = Room("t_1", "toy", "1", [f"seat {i}" for i in range(SEATS)], {}, "running")
    broadcast(room, evs)
    assert len(room.channels) == SEATS  # the loop below checks every seat
    for seat, channel in enumerate(room.channels):
        assert channel.event_texts == reference("t_1", [e.view_for(seat) for e in evs])
    # spectators: the public view, without the keys that name policies (server/audience.py)
    assert room.watch.event_texts == reference(
        "t_1", [None if (v := e.view_for(None)) is None else strip_keys(v, POLICY_KEYS)
                for e in evs])


def test_private_event_reaches_only_its_audience() -> None:
    room = Room("t_2", "toy", "1", ["a", "b", "c"], {}, "running")
    broadcast(room, [Event("secret", {"x": 1}, (1,)),
                     Event("public", {"x": 2, "hidden": "h"}, None, {"hidden": (2,)})])
    texts = [c.event_texts for c in room.channels]
    assert [len(t) for t in texts] == [1, 2, 1]
    assert '"hidden"' not in texts[0][0] and '"hidden":"h"' in texts[2][0]
    assert room.watch.event_texts == [
        '{"type":"event","seq":1,"table":"t_2","event":"public","payload":{"x":2}}']


def test_a_nested_policy_key_reaches_seats_but_not_spectators() -> None:
    """The example Hypothesis found once the spectator filter came: a payload holding a
    ``names`` key at depth (the reference above had not learned of the filter)."""
    room = Room("t_3", "toy", "1", ["a", "b", "c"], {}, "running")
    broadcast(room, [Event("round_start", {"round": {"names": None}})])
    assert room.channels[0].event_texts == [
        '{"type":"event","seq":1,"table":"t_3","event":"round_start",'
        '"payload":{"round":{"names":null}}}']
    assert room.watch.event_texts == [
        '{"type":"event","seq":1,"table":"t_3","event":"round_start","payload":{"round":{}}}']
