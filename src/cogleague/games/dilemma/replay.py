"""The dilemma's replay document (``dilemma.replay.v1``).

A replay holds the full config (seed included), aliases, policy names, the runner's log (every
decision with its source and metadata), every event with its audience (promises included: the
replay shows everything after the end) and the results. The one verifier (`core/verify.py`)
rebuilds the match from the config and the log through `game_from_replay`, re-derives every
scripted seat's choices from its baseline, and raises `ReplayError` at the first difference.
Written with `core.jsonio.dumps`, a scripted-only replay is byte-identical for the same seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError, ReplayError
from cogleague.core.replay import EpisodeLog
from cogleague.games.dilemma.config import CONFIG_KEYS, DilemmaConfig, make_config
from cogleague.games.dilemma.steps import event_json
from cogleague.games.dilemma.texts import replay_parts

if TYPE_CHECKING:
    from cogleague.games.dilemma.game import DilemmaGame

FORMAT = "dilemma.replay.v1"


def replay_document(game: DilemmaGame, log: EpisodeLog) -> dict[str, Any]:
    return {
        "format": FORMAT, "game": game.name, "rules_version": game.rules_version,
        "config": game.config.to_json(), "aliases": list(game.aliases),
        "policies": list(game.policy_names), "log": log.to_json(),
        "events": log.rows(event_json, "replay_rows"), "results": game.results(),
    }


def replay_bytes(game: DilemmaGame, log: EpisodeLog) -> bytes:
    """``jsonio.dumpb(replay_document(game, log))``, spliced from encoded parts: the log and
    the event rows are written as text straight from the steps' columns, from templates made
    once per step shape and pattern of choices (`texts.replay_parts`), never as dicts, and
    the document is joined once."""
    dumps = jsonio.dumps
    logs, rows = replay_parts(log)
    parts = [f'{{"format":{dumps(FORMAT)},"game":{dumps(game.name)},"rules_version":'
             f'{dumps(game.rules_version)},"config":{dumps(game.config.to_json())},"aliases":'
             f'{dumps(list(game.aliases))},"policies":{dumps(list(game.policy_names))},"log":['
             .encode()]
    parts += logs
    parts.append(b'],"events":[')
    parts += rows
    parts.append(f'],"results":{dumps(game.results())}}}'.encode())
    return b"".join(parts)


def config_from_json(doc: Mapping[str, Any]) -> DilemmaConfig:
    overrides = {k: v for k, v in doc.items() if k in CONFIG_KEYS and k != "seed"}
    return make_config(doc.get("variant"), overrides, doc.get("seed", 0))


def game_from_replay(doc: Mapping[str, Any]) -> DilemmaGame:
    """A fresh game of the document's config and policies (the one verifier,
    `core/verify.py`, re-applies the document's log to it and compares bytes)."""
    from cogleague.games.dilemma.game import DilemmaGame

    config, policies = doc["config"], doc["policies"]
    if not isinstance(config, Mapping) or not isinstance(policies, list):
        raise ReplayError("config must be an object and policies a list")
    if doc.get("rules_version") != DilemmaGame.rules_version:
        raise ReplayError(f"rules_version must be {DilemmaGame.rules_version!r} "
                          f"(got {doc.get('rules_version')!r})")
    try:
        return DilemmaGame(config_from_json(config), policies)
    except ConfigError as exc:
        raise ReplayError(f"config: {exc}") from exc
