"""The dilemma's probe battery for behaviour profiles (`cogleague.profiles`, docs/profiles.md).

Every battery episode seats the subject at seat 0 with four probes (and up to three extra
opponents, e.g. ``axelrod:Random``) at one table of `ROUNDS` rounds with promises on. Each
pairing of the round robin is its own iterated game, so each probe tests one thing:

- ``probe:cooperator`` always cooperates, silently;
- ``probe:provoker`` cooperates except in round `PROVOKE_ROUND`, where it defects once;
- ``probe:promise_breaker`` always promises "I will cooperate." and always defects;
- ``probe:sleeper`` cooperates, but misses round `SLEEP_ROUND` (the game records a timeout,
  which is a cooperate, and the subject's history shows ``their_timeout``).

The subject is seat 0, the lower seat of every pairing: it moves first in odd rounds, second in
even rounds (when it sees the first mover's promise before choosing).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError, SeatUnavailable
from cogleague.core.game import Action, Game, Turn
from cogleague.games.dilemma.baselines._base import PROMISE
from cogleague.games.dilemma.state import PairRecord
from cogleague.profiles.battery import ProbeEpisode, Trait

ROUNDS = 10
PROVOKE_ROUND = 3
FORGIVE_WINDOW = 3
SLEEP_ROUND = 5
SUBJECT = 0
PROBES = ("probe:cooperator", "probe:provoker", "probe:promise_breaker", "probe:sleeper")
MAX_OPPONENTS = 3  # 1 subject + 4 probes + 3 = the table's 8 seats

TRAITS = (
    Trait("nice", "nice", "rate",
          "Share of the subject's pairings (every probe and extra opponent, every episode) in "
          "which it never defected in a round before its opponent's first defection (defecting "
          "in the same round as the opponent's first defection counts as defecting first)."),
    Trait("retaliating", "retaliating", "rate",
          f"Against probe:provoker, in episodes where the subject cooperated in round "
          f"{PROVOKE_ROUND} (the provoker's one defection): share in which it defected in round "
          f"{PROVOKE_ROUND + 1}."),
    Trait("forgiving", "forgiving", "rate",
          f"Against probe:provoker, in episodes where the subject retaliated (cooperated in "
          f"round {PROVOKE_ROUND}, defected in round {PROVOKE_ROUND + 1}): share in which it "
          f"cooperated again within the {FORGIVE_WINDOW} rounds after (rounds "
          f"{PROVOKE_ROUND + 2}..{PROVOKE_ROUND + 1 + FORGIVE_WINDOW}), the provoker "
          "cooperating throughout."),
    Trait("exploitable", "exploitable by a promise-breaker", "rate",
          "Against probe:promise_breaker: over the rounds in which the breaker moved first, "
          "promised to cooperate, and had already broken a promise in this pairing, the share "
          "in which the subject cooperated."),
    Trait("promise_keeping", "promise-keeping rate", "rate",
          "Over every message of the subject that is a promise (the game's keyword rule: "
          "'cooperate', 'cooperation' or a standalone 'C'), in every pairing: the share in "
          "whose round the subject cooperated."),
    Trait("coop_after_timeout", "cooperation after a timeout", "rate",
          f"Against probe:sleeper, which misses round {SLEEP_ROUND} (recorded as a cooperate "
          f"and shown as their_timeout): share of episodes in which the subject cooperated in "
          f"round {SLEEP_ROUND + 1}."),
    Trait("cooperation", "cooperation", "rate",
          "Share of all the subject's choices, in all pairings, that were cooperate."),
)


class _Probe:
    """A probe that answers synchronously (a scripted seat)."""

    kind = "scripted"

    def __init__(self, name: str) -> None:
        self.name = name

    def decide_now(self, turn: Turn) -> Action:
        round_no = turn.context.round
        if self.name == "probe:provoker":
            return {"action": "defect" if round_no == PROVOKE_ROUND else "cooperate"}
        if self.name == "probe:promise_breaker":
            return {"action": "defect", "message": PROMISE}
        return {"action": "cooperate"}

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return self.decide_now(turn)


class _Sleeper:
    """Cooperates, but gives no answer in `SLEEP_ROUND` (the runner records a timeout)."""

    kind = "remote"
    name = "probe:sleeper"

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        if turn.context.round == SLEEP_ROUND:
            raise SeatUnavailable("timeout", "probe:sleeper misses this round on purpose")
        return {"action": "cooperate"}


def _moves(rec: PairRecord, side: int) -> list[Any]:
    return [rec.move(side, i) for i in range(len(rec.coop[side]))]


def _nice(mine: list[bool], theirs: list[bool]) -> float:
    for r, coop in enumerate(mine):
        if not coop and all(theirs[:r]):
            return 0.0
    return 1.0


class DilemmaProbes:
    """The dilemma's ``extras["probes"]`` (see `cogleague.profiles.battery.GameProbes`)."""

    traits = TRAITS
    probes = PROBES
    pairwise = True
    """Two-player pairings with a revealed per-pairing history (what ``axelrod:`` seats need)."""

    def episodes(self, subject: str, count: int, seed: int,
                 opponents: Sequence[str]) -> list[ProbeEpisode]:
        if len(opponents) > MAX_OPPONENTS:
            raise ConfigError("opponents", f"opponents may list 0..{MAX_OPPONENTS} extra seats "
                                           f"(got {len(opponents)})")
        lineup = (subject, *PROBES, *opponents)
        return [ProbeEpisode(lineup, SUBJECT, seed + i, None,
                             {"rounds_total": ROUNDS, "promises": True}, f"battery #{i + 1}")
                for i in range(count)]

    def probe_seat(self, game: Game, seat: int, name: str) -> Any | None:
        if name == "probe:sleeper":
            return _Sleeper()
        if name in PROBES:
            return _Probe(name)
        return None

    def measure(self, game: Game, outcome: EpisodeOutcome,
                episode: ProbeEpisode) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {t.name: [] for t in TRAITS}
        s = episode.subject_seat
        for rec in game.state.pairs:  # type: ignore[attr-defined]
            if s not in rec.pairing:
                continue
            side = rec.side_of(s)
            opponent = episode.lineup[rec.pairing[1 - side]]
            mine, theirs = rec.coop[side], rec.coop[1 - side]
            out["nice"].append(_nice(mine, theirs))
            out["cooperation"].extend(1.0 if c else 0.0 for c in mine)
            out["promise_keeping"].extend(1.0 if m.coop else 0.0 for m in _moves(rec, side)
                                          if m.promised)
            if opponent == "probe:provoker" and len(mine) > PROVOKE_ROUND + FORGIVE_WINDOW:
                k = PROVOKE_ROUND - 1  # index of the provocation round
                if mine[k]:
                    out["retaliating"].append(0.0 if mine[k + 1] else 1.0)
                    if not mine[k + 1]:
                        later = mine[k + 2:k + 2 + FORGIVE_WINDOW]
                        out["forgiving"].append(1.0 if any(later) else 0.0)
            elif opponent == "probe:sleeper" and len(mine) > SLEEP_ROUND:
                out["coop_after_timeout"].append(1.0 if mine[SLEEP_ROUND] else 0.0)
            elif opponent == "probe:promise_breaker":
                out["exploitable"].extend(self._exploited(rec, side))
        return out

    @staticmethod
    def _exploited(rec: PairRecord, side: int) -> list[float]:
        """The subject's choices in rounds where the breaker, a known liar, promised first."""
        breaker = _moves(rec, 1 - side)
        mine = rec.coop[side]
        values = []
        for i, move in enumerate(breaker):
            first_mover_is_higher = (i + 1) % 2 == 0
            breaker_first = first_mover_is_higher == (side == 0)
            broken_before = any(m.promised and not m.coop for m in breaker[:i])
            if breaker_first and move.promised and broken_before:
                values.append(1.0 if mine[i] else 0.0)
        return values


PROBES_EXTRA = DilemmaProbes()
