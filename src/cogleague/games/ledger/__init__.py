"""Ledger: eight aliases, seeded Dilemma / Trust / Ultimatum meetings, a gossip board, a halo,
median scoring and collusion-ring detection. See `rules.md` and `docs/ledger.md`; `GAME` (in
`descriptor.py`) registers it."""

from __future__ import annotations

from cogleague.games.ledger.config import LedgerConfig
from cogleague.games.ledger.descriptor import GAME, make
from cogleague.games.ledger.game import LedgerGame

__all__ = ["GAME", "LedgerConfig", "LedgerGame", "make"]
