"""The Commons Family replay document (rules §13, ``commons-family/1``).

`build_document(game, log)` turns a game and its episode log into the replay. Besides the
rules' fields it carries the runner's log (``log``: every operation, every decision with its
attempts, timeouts and fallback cause — the per-round ``decisions`` keep only the clamped move
and its ``src``), so the one verifier (`core/verify.py`) re-runs it through a fresh engine
(`game_from_replay`) and compares bytes. Serialise with ``jsonio.dumps(doc, sort_keys=True)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogleague.core.errors import ConfigError, ReplayError
from cogleague.core.replay import EpisodeLog
from cogleague.games.commons.config import make_config

if TYPE_CHECKING:
    from cogleague.games.commons.game import CommonsGame

FORMAT = "commons-family/1"
PROTOCOL = "commons-family.replay.v1"


def build_document(game: CommonsGame, log: EpisodeLog) -> dict[str, Any]:
    """The replay of `game` (finished or not). Notes never appear in it."""
    cfg = game.config
    module = game.module
    seats = []
    for s in range(game.num_seats):
        patches = module.own_patches(game.state, s)
        seats.append({"slot": s, "alias": game.aliases[s], "name": cfg.names[s],
                      "kind": game.seat_kinds[s], "scripted": game.seat_kinds[s] == "scripted",
                      "favorite": game.setup.favorites[s], "patches": patches,
                      "disconnected": game.disconnected[s]})
    return {
        "format": FORMAT, "protocol": PROTOCOL, "version": game.rules_version,
        "module": cfg.module, "variant": cfg.variant, "generated_at": game.generated_at,
        "seed": cfg.seed, "config": cfg.to_json(), "names": list(game.aliases),
        "policyNames": list(game.policy_names), "seats": seats, "rounds": game.records,
        "log": log.to_json(),
        "events": log.events_json(),
        "results": game.results(),
    }


def game_from_replay(doc: Mapping[str, Any]) -> CommonsGame:
    """A fresh engine of the document's config, policy names, seat kinds and `generated_at`
    (the one verifier, `core/verify.py`, re-applies the document's log to it)."""
    from cogleague.games.commons.game import CommonsGame

    seats = doc["seats"]
    if not isinstance(seats, list) or not all(isinstance(s, Mapping) for s in seats):
        raise ReplayError("seats must be a list of objects")
    try:
        config = make_config(None, doc["config"])
        return CommonsGame(config, doc["policyNames"], seat_kinds=[s["kind"] for s in seats],
                           generated_at=doc.get("generated_at"))
    except (KeyError, TypeError, ConfigError, ValueError) as exc:
        raise ReplayError(f"config/seats do not build a game: {exc}") from exc
