"""Commons Family: six cogs, one destructible resource, four physics modules (rules in
`rules.md`, contract in ``spec/commons.md``).

Layout: `config.py` (settings, variants), `setup.py` (the seeded deal), `modules/` (pure
physics), `actions.py` (clamping), `game.py` (the engine on the core Game protocol),
`observation.py` (what a cog sees), `baselines/` (scripted seats), `replay.py` (replay
document and verifier), `simulate.py` (run a plan through the engine).
"""

from __future__ import annotations

from cogleague.games.commons.config import make_config
from cogleague.games.commons.descriptor import GAME, default_lineup, seats_for
from cogleague.games.commons.descriptor import make as make_game
from cogleague.games.commons.game import CommonsGame

__all__ = ["GAME", "CommonsGame", "default_lineup", "make_config", "make_game", "seats_for"]
