"""Permanent public aliases (spec §3): the seed's `aliases` stream shuffles a pool of ten;
seat i takes entry i. Real policy names never reach the table."""

from __future__ import annotations

from cogleague.core import rng

ALIAS_POOL = ("Sprocket", "Gizmo", "Ratchet", "Widget", "Bolt", "Piston", "Flywheel", "Rivet",
              "Tinker", "Gasket")
SEATS = 8


def draw_aliases(seed: int) -> list[str]:
    """The eight aliases of an episode, by seat."""
    pool = rng.shuffle(rng.stream(f"ledger:{seed}:aliases"), list(ALIAS_POOL))
    return pool[:SEATS]
