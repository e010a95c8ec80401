"""Seat aliases: what seats and spectators call each other. Policy names never reach seats.

The pool is people known for the study or practice of cooperation; a table draws distinct names
from the stream ``dilemma:{seed}:aliases``, so the same seed gives the same aliases.
"""

from __future__ import annotations

from cogleague.core.rng import shuffle, stream

ALIAS_POOL = (
    "Axelrod",     # Robert Axelrod, the computer tournaments
    "Rapoport",    # Anatol Rapoport, who entered tit for tat
    "Ostrom",      # Elinor Ostrom, governing the commons
    "Kropotkin",   # Peter Kropotkin, mutual aid
    "Hamilton",    # W. D. Hamilton, kin selection and the evolution of cooperation
    "Trivers",     # Robert Trivers, reciprocal altruism
    "Nowak",       # Martin Nowak, five rules for cooperation
    "Sigmund",     # Karl Sigmund, generous tit for tat
    "Flood",       # Merrill Flood, the first dilemma experiment
    "Dresher",     # Melvin Dresher, co-author of that experiment
    "Tucker",      # Albert Tucker, who named the dilemma
    "Margulis",    # Lynn Margulis, symbiosis
)


def draw_aliases(seed: int, seats: int) -> list[str]:
    """`seats` distinct aliases, indexed by seat."""
    names = list(ALIAS_POOL)
    return shuffle(stream(f"dilemma:{seed}:aliases"), names)[:seats]
