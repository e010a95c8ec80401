"""The numeric encoding a game declares for the RL environments (``extras["rl"]``).

The environments (`cogleague.envs`) and policy seats (`cogleague.seats.policy`) never name a
game: they read this object from the game's descriptor, so a plugin game that declares
``extras={"rl": <Encoding>}`` gets a PettingZoo environment, a Gymnasium single-agent view and
policy seats with no new code. Nothing here imports Gymnasium or PettingZoo: a policy seat
plays with numpy only.

Contract (all per episode: sizes may depend on the game's config, never on the seat):

- observations are float32 vectors of `obs_size(game)` fields named by `obs_fields(game)`;
  `features(game, turn)` lists them, each within `obs_bounds(game)` (the encoding keeps them
  there: nothing clips), built from what the seat's own view shows — never more;
- actions are one `Discrete(num_actions(game))` index; `mask(game, turn)` (or None when every
  index is always legal) says which are legal for this turn; `decode` turns a legal index into
  the game's action dict and raises `IllegalAction` for an illegal one; `encode` is its inverse
  for actions the game's baselines play (free text such as notes, promises or chat has no
  index: it is dropped);
- `tally(game)` is each seat's running reward total: an environment's per-step reward is its
  change, and `score(results, seat)` the episode score the rules rank by.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from cogleague.core.errors import ConfigError
from cogleague.core.game import Action, Game, Turn

ObsArray = np.ndarray[Any, np.dtype[np.float32]]
MaskArray = np.ndarray[Any, np.dtype[np.int8]]


@runtime_checkable
class Encoding(Protocol):
    """What a game declares under ``extras["rl"]``. See the module docstring."""

    name: str
    """Versioned (``dilemma.rl.v1``): policy files record it and are refused on a mismatch."""

    def obs_size(self, game: Game) -> int: ...

    def obs_fields(self, game: Game) -> list[str]: ...

    def obs_bounds(self, game: Game) -> tuple[float, float]: ...

    def features(self, game: Game, turn: Turn) -> list[float]:
        """The turn's `obs_size` numbers."""

    def num_actions(self, game: Game) -> int: ...

    def mask(self, game: Game, turn: Turn) -> MaskArray | None: ...

    def decode(self, game: Game, turn: Turn, index: int) -> Action: ...

    def encode(self, game: Game, turn: Turn, action: Mapping[str, Any]) -> int: ...

    def tally(self, game: Game) -> Sequence[float]: ...

    def score(self, results: Mapping[str, Any], seat: int) -> float: ...

    def signature(self, game: Game) -> dict[str, Any]:
        """What a policy file must match to sit at this game (encoding, sizes, and any config
        the encoding depends on, e.g. the seat count)."""


def encoding_of(desc: Any) -> Encoding:
    """The descriptor's ``extras["rl"]``, or a `ConfigError` naming the game."""
    enc = desc.extras.get("rl")
    if enc is None:
        raise ConfigError("game", f"game {desc.name!r} declares no RL encoding "
                                  "(descriptor extras['rl'])")
    if not isinstance(enc, Encoding):
        raise ConfigError("game", f"game {desc.name!r}: extras['rl'] does not implement "
                                  "cogleague.envs.encoding.Encoding")
    return enc


def observe(enc: Encoding, game: Game, turn: Turn | None, size: int) -> ObsArray:
    """One observation as the environments and policy seats hand it out: field 0 is 1.0 when
    the seat is deciding (`turn` given), then the game's encoding; all zeros while it waits."""
    if turn is None:
        return np.zeros(size + 1, dtype=np.float32)
    return np.array([1.0, *enc.features(game, turn)], dtype=np.float32)
