"""The sign-in guard on an injected clock and a real SQLite database (Hypothesis): whatever the
order of tries, names and pauses, no name gets more than `failures` tries that did not succeed
within any window, and a refused try is told how long to wait, which is then enough."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import create_engine

from cogleague.server.sign_in_guard import SignInGuard
from cogleague.server.store import metadata

FAILURES, WINDOW_S = 3, 10.0

Step = tuple[float, str, bool]
steps = st.lists(st.tuples(st.floats(0.0, 6.0), st.sampled_from(["ann", "bob", "cy"]),
                           st.booleans()), max_size=80)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@given(steps)
def test_no_name_gets_more_than_its_failures_in_a_window(plan: list[Step]) -> None:
    clock = Clock()
    guard = SignInGuard(FAILURES, WINDOW_S, clock)
    engine = create_engine("sqlite://")
    metadata.create_all(engine)

    def begin(name: str) -> float:
        if wait := guard.locked(name):
            return wait
        with engine.begin() as conn:
            if guard.sweep_due():  # deleting the spent names changes no answer
                guard.sweep(conn)
            return guard.begin(conn, name)

    failed: dict[str, list[float]] = {}  # allowed tries since the name's last success
    for pause, name, right in plan:
        clock.t += pause
        wait = begin(name)
        recent = [t for t in failed.get(name, []) if t > clock.t - WINDOW_S]
        if wait:
            assert len(recent) >= FAILURES  # refused only when the budget is spent
            assert begin(name) > 0  # still refused at once
            # the wait it names is enough, to a float's rounding: at exactly `wait` later,
            # (first + window) - window may come out an ulp below `first`, which then still
            # counts (a nanosecond is thousands of ulps at this clock, and no real wait)
            clock.t += wait + 1e-9
            assert begin(name) == 0.0
            recent = [t for t in recent if t > clock.t - WINDOW_S] + [clock.t]
        else:
            recent.append(clock.t)
        assert len(recent) <= FAILURES, (name, recent)
        failed[name] = recent
        if right:
            with engine.begin() as conn:
                guard.succeeded(conn, name)
            failed[name] = []
