"""What a game declares to be profiled: traits, probe episodes, probe seats, measurement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from cogleague.core.descriptor import GameDescriptor
from cogleague.core.episode import EpisodeOutcome
from cogleague.core.errors import ConfigError
from cogleague.core.game import Game

KINDS = ("rate", "mean")


@dataclass(frozen=True)
class Trait:
    """One measured trait. A ``rate`` is a share of yes/no observations (Wilson interval); a
    ``mean`` averages numbers (normal interval). `definition` is the precise rule, shown in
    ``cogleague profile --explain`` and `docs/profiles.md`."""

    name: str
    label: str
    kind: str
    definition: str
    fmt: str = "{:.2f}"


@dataclass(frozen=True)
class ProbeEpisode:
    """One episode of the battery: the line-up (the subject's seat string at `subject_seat`,
    probe names elsewhere), the variant, overrides and seed."""

    lineup: tuple[str, ...]
    subject_seat: int
    seed: int
    variant: str | None = None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""


class GameProbes(Protocol):
    """The shape of a descriptor's ``extras["probes"]``."""

    traits: tuple[Trait, ...]
    probes: tuple[str, ...]
    """The probe opponents' names (as `probe_seat` knows them)."""

    def episodes(self, subject: str, count: int, seed: int,
                 opponents: Sequence[str]) -> list[ProbeEpisode]:
        """`count` episodes of the battery for `subject`; `opponents` are extra seat strings
        (``axelrod:NAME``, baselines) seated beside the probes."""
        ...

    def probe_seat(self, game: Game, seat: int, name: str) -> Any | None:
        """The seat for a probe name, or None when `name` is an ordinary seat string."""
        ...

    def measure(self, game: Game, outcome: EpisodeOutcome,
                episode: ProbeEpisode) -> dict[str, list[float]]:
        """The subject's observations in one episode, per trait (rates: 1.0 / 0.0)."""
        ...


def probes_for(desc: GameDescriptor) -> GameProbes:
    """The game's probe battery, or a `ConfigError` naming ``game`` when it has none."""
    probes = desc.extras.get("probes")
    if probes is None:
        raise ConfigError("game", f"game {desc.name} declares no probe battery (profiles need "
                                  "extras['probes'] in its descriptor)")
    return probes
