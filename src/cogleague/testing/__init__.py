"""The conformance suite: what every game must do to be a good citizen of cogleague.

One line from a game's own tests::

    from cogleague.testing import check_game
    check_game(GAME)            # a GameDescriptor, or an installed game's name

It plays the game through the real runner from its descriptor and the `Game` protocol alone
and checks determinism across processes, replay round trips and verification, transactional
`apply`, the same bytes on every path through the runner (by step, by turn, observed), legal
fallbacks, per-seat results and events, plain-JSON views, random play over many
seeds (hypothesis), hidden information by non-interference, scores against the payoffs the
events report, and a declared batch kernel against the rules engine. See docs/conformance.md.
"""

from cogleague.testing.scores import check_scores
from cogleague.testing.subject import ConformanceError, Subject
from cogleague.testing.suite import CHECKS, Report, check_game


def check_batch(subject: Subject) -> str:
    """The differential check (`batch_check`), imported on use: it needs numpy."""
    from cogleague.testing.batch_check import check_batch_subject

    return check_batch_subject(subject)


# Checks that live in their own modules join the table here, after the core ones.
CHECKS.setdefault("scores", check_scores)
CHECKS.setdefault("batch", check_batch)

__all__ = ["CHECKS", "ConformanceError", "Report", "check_game"]
