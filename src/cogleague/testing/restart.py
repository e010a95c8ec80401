"""Restart: a finished game dealt again (`Game.restart`) plays exactly the game ``make`` builds
for the new seed and line-up — the same replay bytes — however the episode before it ended.

Each shared episode is played to its end, or stopped before its first round, on a game made
for another shared episode of the same variant and seat count (itself, with another seed, when
there is none), then restarted. A game that always makes a new one is skipped.
"""

from __future__ import annotations

from cogleague.core.game import Game
from cogleague.testing.determinism import text_difference
from cogleague.testing.episodes import Episode, new_game, policy_names, run, seats_for
from cogleague.testing.subject import ConformanceError, Played, Subject


def _before(subject: Subject, target: Played) -> Episode:
    """The episode whose game is restarted into `target`'s: another shared one of the same
    variant and size, else `target`'s with the next seed."""
    ep = target.episode
    for other in subject.played:
        o = other.episode
        if o is not ep and o.variant == ep.variant and len(o.lineup) == len(ep.lineup):
            return o
    return Episode(ep.variant, ep.seed + 1, ep.lineup)


def _restarted(subject: Subject, game: Game, target: Played) -> str | None:
    """`target` played on `game` after a restart; None when the game declines."""
    ep = target.episode
    names, kinds = policy_names(subject.desc, ep.lineup)
    if not game.restart(ep.seed, names, kinds):
        return None
    outcome = run(game, seats_for(subject.desc, game, ep))
    return subject.dumps(subject.desc.replay_document(game, outcome.log))


def check_restart(subject: Subject) -> str:
    desc = subject.desc
    checked = 0
    for target in subject.played:
        before = _before(subject, target)
        finished = new_game(desc, before)
        run(finished, seats_for(desc, finished, before))
        stopped = new_game(desc, before)
        stopped.start()
        stopped.stop("deadline")  # the runner's own early end, every game has it
        for how, game in (("played to its end", finished), ("stopped at once", stopped)):
            text = _restarted(subject, game, target)
            if text is None:
                if checked:
                    raise ConformanceError(f"{target.episode.label()}: restart declined a "
                                           f"game {how}, though it restarted others")
                return "skipped: the game makes a new game for every episode (restart is False)"
            if text != target.text:
                raise ConformanceError(
                    f"{target.episode.label()}: restarted after {before.label()} ({how}), "
                    f"the replay differs from a new game's at "
                    f"{text_difference(target.text, text)}")
            checked += 1
    return f"{checked} restarted games, each byte-identical to a new game's replay"
