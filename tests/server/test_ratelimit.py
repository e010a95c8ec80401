"""The per-socket token bucket on an injected clock: bursts, refusals and the refill, with no
waiting (the live-server flood test in test_play.py covers the wiring)."""

from __future__ import annotations

from cogleague.server.play import RateLimit


class Ticks:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_burst_passes_then_frames_are_refused_until_the_bucket_refills() -> None:
    clock = Ticks()
    limit = RateLimit(rate=8.0, burst=5, clock=clock)  # binary fractions: exact arithmetic
    assert [limit.allow() for _ in range(7)] == [True] * 5 + [False] * 2
    clock.t += 0.0625  # half a token
    assert not limit.allow()
    clock.t += 0.0625  # one token
    assert limit.allow() and not limit.allow()
    clock.t += 60.0  # a long pause refills to the burst, never beyond
    assert sum(limit.allow() for _ in range(20)) == 5


def test_the_average_rate_is_the_limit() -> None:
    clock = Ticks()
    limit = RateLimit(rate=64.0, burst=1, clock=clock)
    passed = 0
    for _ in range(1000):  # 1,000 frames, one every 1/128 s of virtual time
        clock.t += 1 / 128
        passed += limit.allow()
    assert passed == 500
