"""The replay document (``threshold.replay.v1``), the game it rebuilds, and its verification.

The document holds the config (seed included), aliases, policy names, the runner's log
(`EpisodeLog.to_json()`: every decision with its source, attempts, timeouts and fallback
cause), every event with its audience, and the results. `game_from_replay` is all a generic
verifier needs: it re-applies the log to that fresh game and compares canonical bytes.
That verifier is cogleague's own (`cogleague.core.verify.verify_replay`, behind `cogleague
replay verify`); it also checks every logged decision against what the runner could have made,
re-deriving scripted seats from their baselines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogleague.core.errors import ConfigError, ReplayError
from cogleague.core.replay import EpisodeLog

from cogleague_threshold.config import config_from_json

if TYPE_CHECKING:
    from cogleague_threshold.game import ThresholdGame

FORMAT = "threshold.replay.v1"


def replay_document(game: ThresholdGame, log: EpisodeLog) -> dict[str, Any]:
    return {"format": FORMAT, "game": game.name, "rules_version": game.rules_version,
            "config": game.config.to_json(), "aliases": list(game.aliases),
            "policies": list(game.policy_names), "log": log.to_json(),
            "events": [{"audience": None if e.audience is None else list(e.audience),
                        "event": e.to_json()} for e in log.events],
            "results": game.results()}


def _field(doc: Any, key: str) -> Any:
    if not isinstance(doc, Mapping) or key not in doc:
        raise ReplayError(f"replay is missing {key!r}")
    return doc[key]


def game_from_replay(doc: Mapping[str, Any]) -> ThresholdGame:
    """A fresh game from the document's config and seats; `ReplayError` if they build none."""
    from cogleague_threshold.game import ThresholdGame

    if _field(doc, "format") != FORMAT:
        raise ReplayError(f"format must be {FORMAT!r} (got {doc['format']!r})")
    policies = _field(doc, "policies")
    if not isinstance(policies, list) or not all(isinstance(p, str) for p in policies):
        raise ReplayError("policies must be a list of policy names")
    try:
        config = config_from_json(_field(doc, "config"))
        return ThresholdGame(config, policies)
    except (ConfigError, ValueError, TypeError, AttributeError) as exc:
        raise ReplayError(f"config: {exc}") from exc
