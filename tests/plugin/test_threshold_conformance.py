"""The fourth game passes cogleague's conformance suite — the one line a third party calls."""

from __future__ import annotations

from plugin.support import need_plugin

need_plugin()

from cogleague.testing import CHECKS, check_game  # noqa: E402


def test_the_threshold_game_passes_the_conformance_suite() -> None:
    report = check_game("threshold")  # the installed game, found through its entry point
    assert set(report.passed) == set(CHECKS) and not report.failed
    skipped = {k: v for k, v in report.passed.items() if v.startswith("skipped:")}
    # every check ran, hidden information included; a batch kernel and restarting a finished
    # game are optional and it has neither
    assert skipped == {
        "batch": "skipped: the game declares no batch kernel",
        "restart": "skipped: the game makes a new game for every episode (restart is False)",
    }, skipped
