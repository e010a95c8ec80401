"""The Commons Family's probe battery for behaviour profiles (docs/profiles.md).

The subject takes seat 0 of a six-seat table with five of the game's baselines as the probes:
``steward`` (maintains), ``free_rider`` (takes), ``reciprocator`` (matches the others'
maintenance), ``punisher`` (sanctions takers) and ``fair_share``. Episodes alternate between
``cleanup`` (sanctions on, the resource can collapse under pollution) and ``harvest-open``
(open patches that die when overharvested), each with its own seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.games.commons.modules.common import EFFORT_BUDGET
from cogleague.profiles.battery import ProbeEpisode, Trait

PROBES = ("steward", "free_rider", "reciprocator", "punisher", "fair_share")
VARIANTS = ("cleanup", "harvest-open")

TRAITS = (
    Trait("maintenance_share", "effort share to maintenance", "mean",
          "Per episode: the subject's maintenance effort units (public_effort) divided by its "
          f"effort budget over the rounds played ({EFFORT_BUDGET} units a round); the mean over "
          "episodes."),
    Trait("sanctions_given", "sanctions given", "mean",
          "Sanctions the subject paid for, per episode (cleanup episodes only: harvest-open "
          "has no sanctions)."),
    Trait("sanctions_received", "sanctions received", "mean",
          "Sanctions the subject received, per episode (cleanup episodes only)."),
    Trait("collapse", "resource collapsed", "rate",
          "Share of episodes in which the resource collapsed (collapse_round set)."),
    Trait("rounds_to_collapse", "rounds to collapse", "mean",
          "In the episodes where the resource collapsed: rounds played up to and including "
          "the collapse (collapse_round + 1, rounds counting from 0)."),
)


class CommonsProbes:
    """The Commons' ``extras["probes"]`` (see `cogleague.profiles.battery.GameProbes`)."""

    traits = TRAITS
    probes = PROBES
    pairwise = False

    def episodes(self, subject: str, count: int, seed: int,
                 opponents: Sequence[str]) -> list[ProbeEpisode]:
        if opponents:
            raise ConfigError("opponents", "opponents: the Commons battery seats its five "
                                           "probes in all other seats (got extra opponents)")
        return [ProbeEpisode((subject, *PROBES), 0, seed + i, VARIANTS[i % len(VARIANTS)],
                             {}, f"battery #{i + 1}") for i in range(count)]

    def probe_seat(self, game: Game, seat: int, name: str) -> Any | None:
        return None  # the probes are the game's own baselines

    def measure(self, game: Game, outcome: EpisodeOutcome,
                episode: ProbeEpisode) -> dict[str, list[float]]:
        r = outcome.results
        s = episode.subject_seat
        rounds = int(r["rounds"])
        out: dict[str, list[float]] = {t.name: [] for t in TRAITS}
        if rounds:
            out["maintenance_share"].append(r["public_effort"][s] / (EFFORT_BUDGET * rounds))
        if episode.variant == "cleanup":
            out["sanctions_given"].append(float(r["sanctions_given"][s]))
            out["sanctions_received"].append(float(r["sanctions_received"][s]))
        collapsed = r.get("collapse_round") is not None
        out["collapse"].append(1.0 if collapsed else 0.0)
        if collapsed:
            out["rounds_to_collapse"].append(float(r["collapse_round"]) + 1)
        return out


PROBES_EXTRA = CommonsProbes()
