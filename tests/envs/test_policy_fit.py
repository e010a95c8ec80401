"""A game whose RL signature forgets the `acting` field (observation_size one short) used to
let a policy file built to that signature sit down and then fail — and fall back — on every
turn. It is refused before play, in one line naming both sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cogleague.core.errors import ConfigError
from cogleague.core.game import Game
from cogleague.envs.encoding import encoding_of
from cogleague.games import registry
from cogleague.seats.policy import PolicySeat, load_policy, save_policy


class ForgetsActing:
    """The dilemma's encoding, with a signature that counts only the game's own fields."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def signature(self, game: Game) -> dict[str, Any]:
        sig = dict(self.inner.signature(game))
        sig["observation_size"] = self.inner.obs_size(game)
        return sig


def test_a_signature_without_acting_is_refused_before_play(tmp_path: Path) -> None:
    desc = registry.get("dilemma")
    game = desc.new_game(None, {}, 0)
    enc = ForgetsActing(encoding_of(desc))
    sig = enc.signature(game)
    path = save_policy(tmp_path / "short.npz", "dilemma", sig,
                       [(np.zeros((2, sig["observation_size"])), np.zeros(2), "linear")])
    with pytest.raises(ConfigError) as caught:
        PolicySeat(load_policy(path), game, enc, f"policy:{path}")  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message
    assert f"takes {sig['observation_size']} inputs but the observation has " \
           f"{sig['observation_size'] + 1} (acting + " in message


def test_a_policy_that_fits_the_observation_but_not_the_signature_is_refused(
        tmp_path: Path) -> None:
    desc = registry.get("dilemma")
    game = desc.new_game(None, {}, 0)
    enc = ForgetsActing(encoding_of(desc))
    size = enc.obs_size(game) + 1
    path = save_policy(tmp_path / "right.npz", "dilemma", enc.signature(game),
                       [(np.zeros((2, size)), np.zeros(2), "linear")])
    with pytest.raises(ConfigError, match="the encoding's signature must count the acting "
                                          "field"):
        PolicySeat(load_policy(path), game, enc, f"policy:{path}")  # type: ignore[arg-type]
