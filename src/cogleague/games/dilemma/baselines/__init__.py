"""The dilemma's built-in baselines, by name. One small class per file.

Randomized baselines get their own stream, ``dilemma:{seed}:seat{seat}:{name}``, so a seat's
draws never depend on who else sits at the table.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from cogleague.core.errors import ConfigError
from cogleague.core.game import Policy
from cogleague.core.rng import stream
from cogleague.games.dilemma.baselines.always_cooperate import AlwaysCooperate
from cogleague.games.dilemma.baselines.always_defect import AlwaysDefect
from cogleague.games.dilemma.baselines.generous_tit_for_tat import GenerousTitForTat
from cogleague.games.dilemma.baselines.grim_trigger import GrimTrigger
from cogleague.games.dilemma.baselines.pavlov import Pavlov
from cogleague.games.dilemma.baselines.promise_keeper import PromiseKeeper
from cogleague.games.dilemma.baselines.random_choice import RandomChoice
from cogleague.games.dilemma.baselines.silver_tongue import SilverTongue
from cogleague.games.dilemma.baselines.tit_for_tat import TitForTat
from cogleague.games.dilemma.config import DilemmaConfig

Factory = Callable[[DilemmaConfig, int], Policy]


def _rng(cfg: DilemmaConfig, seat: int, name: str) -> Random:
    return stream(f"dilemma:{cfg.seed}:seat{seat}:{name}")


BASELINES: dict[str, Factory] = {
    "tit_for_tat": lambda cfg, seat: TitForTat(),
    "always_cooperate": lambda cfg, seat: AlwaysCooperate(),
    "always_defect": lambda cfg, seat: AlwaysDefect(),
    "grim_trigger": lambda cfg, seat: GrimTrigger(),
    "pavlov": lambda cfg, seat: Pavlov(),
    "generous_tit_for_tat": lambda cfg, seat: GenerousTitForTat(
        _rng(cfg, seat, "generous_tit_for_tat"), cfg.payoffs),
    "random": lambda cfg, seat: RandomChoice(_rng(cfg, seat, "random")),
    "promise_keeper": lambda cfg, seat: PromiseKeeper(),
    "silver_tongue": lambda cfg, seat: SilverTongue(),
}
NAMES = list(BASELINES)
FALLBACK = "always_cooperate"


def make_baseline(name: str, seat: int, cfg: DilemmaConfig) -> Policy:
    factory = BASELINES.get(name)
    if factory is None:
        raise ConfigError("seats", f"seats: unknown dilemma baseline {name!r} "
                                   f"(known: {', '.join(NAMES)})")
    return factory(cfg, seat)


__all__ = ["BASELINES", "FALLBACK", "NAMES", "make_baseline"]
