"""Random legal play never crashes: hypothesis draws variants, seeds, seat counts and line-ups
(baselines, random-reply seats, failing seats) and every episode must end, have per-seat
results and a replay the one verifier accepts. Bounded (`Subject.examples`), derandomized
(the same examples on every run) and without an example database; a failure is shrunk for at
most `SHRINK_LIMIT_S` seconds (hypothesis' own limit is five minutes), then reported as the
smallest example found so far."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cogleague.core.errors import ConfigError, ReplayError
from cogleague.core.verify import verify_replay
from cogleague.testing.episodes import FAILING, RANDOM, Episode, new_game
from cogleague.testing.shapes import check_results
from cogleague.testing.subject import ConformanceError, Subject

SEED_MAX_DEFAULT = 2**31 - 1
SHRINK_LIMIT_S = 20


@contextmanager
def shrink_limit(seconds: int) -> Iterator[None]:
    """Hypothesis shrinks a failure for at most `seconds` inside this block. Its limit is a
    module constant of its engine (read when shrinking starts), set here and put back."""
    try:
        from hypothesis.internal.conjecture import engine
    except ImportError:  # pragma: no cover - a hypothesis without that engine module
        yield
        return
    before = getattr(engine, "MAX_SHRINKING_SECONDS", None)
    if before is None:  # pragma: no cover - another hypothesis: its own limit stands
        yield
        return
    engine.MAX_SHRINKING_SECONDS = seconds
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = before


def check_random_play(subject: Subject) -> str:
    try:
        from hypothesis import HealthCheck, Phase, assume, given, settings
        from hypothesis import strategies as st
    except ImportError as exc:  # pragma: no cover - hypothesis is a dev/testing dependency
        raise ConformanceError("random play needs hypothesis (pip install "
                               "'cogleague[testing]')") from exc
    desc = subject.desc
    variants: list[Any] = list(desc.variants) or [desc.default_variant]
    lo, hi = desc.seat_range
    seed_max = int(desc.rule_numbers.get("seed_max", SEED_MAX_DEFAULT))
    kinds = [RANDOM, RANDOM, FAILING, *desc.baselines]
    played = []

    # No explain phase: after shrinking it replays variations of the example, unbounded.
    @settings(max_examples=subject.examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck),
              phases=[Phase.explicit, Phase.generate, Phase.target, Phase.shrink])
    @given(data=st.data())
    def episode(data: Any) -> None:
        variant = data.draw(st.sampled_from(variants), label="variant")
        seed = data.draw(st.integers(0, seed_max), label="seed")
        n = data.draw(st.integers(lo, hi), label="seats")
        lineup = data.draw(st.lists(st.sampled_from(kinds), min_size=n, max_size=n),
                           label="line-up")
        ep = Episode(variant, seed, tuple(lineup))
        try:
            new_game(desc, ep)
        except ConfigError:
            assume(False)
        p = subject.play(ep)
        check_results(desc, p.game, p.outcome.results, ep.label())
        try:
            verify_replay(p.doc, desc)
        except ReplayError as exc:
            raise ConformanceError(f"{ep.label()}: the replay does not verify: {exc}") from None
        played.append(ep)

    with shrink_limit(SHRINK_LIMIT_S):
        episode()
    return f"{len(played)} random episodes end and verify"
