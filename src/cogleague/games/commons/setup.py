"""The seeded deal (rules §3): aliases, favourite colours, patch owners and pairs.

The engine's one stream (`core.rng.stream(config.seed)`, i.e. ``random.Random(config.seed)``
as rules §3 fix it) is used exactly three times, in this order, whatever the module; nothing
else in an episode is random.
"""

from __future__ import annotations

from dataclasses import dataclass

from cogleague.core import rng as streams
from cogleague.games.commons.modules.common import COLORS


@dataclass(frozen=True, slots=True)
class Setup:
    aliases: list[str]
    """aliases[slot] = ``Cog-A``…: the only identity a cog sees."""
    favorites: list[str]
    """favorites[slot]: allelopathic favourite colour (each seat sees only its own)."""
    owner: list[int]
    """owner[patch] = slot (harvest, closed rights)."""
    pairs: list[list[int]]
    """pairs[k] = the two partner slots of pair k (harvest, partnership); patch p → pair p//2."""


def deal(seed: int, num_players: int, patch_count: int) -> Setup:
    """The three draws, in order: alias shuffle, favourite shuffle, patch deal."""
    rng = streams.stream(seed)
    n = num_players
    order = list(range(n))
    rng.shuffle(order)
    aliases = ["Cog-" + chr(65 + order[s]) for s in range(n)]
    fav = [COLORS[i % 3] for i in range(n)]
    rng.shuffle(fav)
    d = list(range(patch_count))
    rng.shuffle(d)
    owner = [d[p] % n for p in range(patch_count)]
    pairs = [[d[2 * k] % n, d[min(2 * k + 1, patch_count - 1)] % n]
             for k in range((patch_count + 1) // 2)]
    return Setup(aliases, fav, owner, pairs)
