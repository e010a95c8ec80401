"""`check_game`: run every conformance check on one game and report, or raise."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from cogleague.core.config import check_int
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError
from cogleague.testing.determinism import check_determinism
from cogleague.testing.fallbacks import check_fallbacks
from cogleague.testing.hidden import check_hidden
from cogleague.testing.random_play import check_random_play
from cogleague.testing.replays import check_replays
from cogleague.testing.restart import check_restart
from cogleague.testing.shapes import check_shapes
from cogleague.testing.steps import check_steps
from cogleague.testing.subject import ConformanceError, Subject
from cogleague.testing.transactional import check_transactional

Check = Callable[[Subject], str]

CHECKS: dict[str, Check] = {
    "determinism": check_determinism,
    "replay": check_replays,
    "restart": check_restart,
    "transactional": check_transactional,
    "steps": check_steps,
    "fallbacks": check_fallbacks,
    "shapes": check_shapes,
    "random_play": check_random_play,
    "hidden_information": check_hidden,
}
"""Every check by name, in the order `check_game` runs them (see docs/conformance.md)."""


SEEDS_MAX = 1000
"""Shared episodes per check: each is played several times (in child processes too)."""
EXAMPLES_MAX = 100_000
"""Hypothesis' random episodes: a bound, not a target."""


@dataclass
class Report:
    """What each check found: ``{name: summary}`` for passes (a summary starting with
    ``skipped:`` says why a check could not run) and ``{name: message}`` for failures."""

    game: str
    passed: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        lines = [f"conformance of {self.game}:"]
        lines += [f"  ok    {k}: {v}" for k, v in self.passed.items()]
        lines += [f"  FAIL  {k}: {v}" for k, v in self.failed.items()]
        return "\n".join(lines)


def check_game(desc: GameDescriptor | str, *, checks: Iterable[str] | None = None,
               seeds: int = 3, examples: int = 20, ref: str | None = None) -> Report:
    """Run the conformance suite on a game (a descriptor, or a registered game's name).

    Raises `ConformanceError` (an `AssertionError`) listing every failed check; returns the
    `Report` when all pass. `checks` picks some by name (`CHECKS`); `seeds` is how many mixed
    episodes the checks share; `examples` bounds hypothesis' random play; `ref`
    (``package.module:NAME``) tells child processes where the descriptor lives when it is not
    an installed game and cannot be found among the loaded modules."""
    # the suite's own arguments, before any game is played: a bad one is not the game's fault
    check_int("seeds", seeds, 1, SEEDS_MAX)
    check_int("examples", examples, 1, EXAMPLES_MAX)
    if isinstance(checks, str):
        raise ConfigError("checks", f"checks must be a list of check names, not one string "
                                    f"(got {checks!r}): checks=[{checks!r}]")
    if isinstance(desc, str):
        from cogleague.games import registry

        desc = registry.get(desc)
    names = list(CHECKS) if checks is None else list(checks)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ConfigError("checks", f"checks must be among {', '.join(CHECKS)} (got {unknown})")
    subject = Subject(desc, seeds=seeds, examples=examples, ref=ref)
    report = Report(desc.name)
    for name in names:
        try:
            report.passed[name] = CHECKS[name](subject)
        except ConformanceError as exc:
            report.failed[name] = str(exc)
        except Exception as exc:  # a crash is a failure of that check, not of the suite
            report.failed[name] = f"crashed: {type(exc).__name__}: {exc}"
    if report.failed:
        raise ConformanceError(str(report))
    return report
