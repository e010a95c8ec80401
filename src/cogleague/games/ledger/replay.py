"""The Ledger replay (spec §15): the document and its frames.

The document carries the runner's log (``log``: every operation with every decision), so the
one verifier (`core/verify.py`) rebuilds it through a fresh `LedgerGame` (`game_from_replay`)
and compares bytes: aliases and schedule re-derive from the seed, every event from the
decisions, results and any stored frames from the events. Frames are optional (rebuildable).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogleague.core import jsonio
from cogleague.core.errors import ReplayError
from cogleague.games.ledger.baselines import baseline_key
from cogleague.games.ledger.config import DRIVER_REMOTE, DRIVER_SCRIPTED, build_config
from cogleague.games.ledger.events import RoundEvents, meeting_parts
from cogleague.games.ledger.frames import FrameWriter, schedule_text
from cogleague.games.ledger.schedule import draw_schedule
from cogleague.games.ledger.table import Table

if TYPE_CHECKING:
    from cogleague.games.ledger.game import LedgerGame

REPLAY_FORMAT = "ledger.replay.v1"
CONFIG_FIELDS = ("rounds", "episode_timeout_s", "play_budget_fraction", "decision_timeout_s")


def replay_document(game: LedgerGame, log: Any, *, frames: bool = False) -> dict[str, Any]:
    """`{format, aliases, policyNames, config{…, schedule}, log, events, results, frames?}`."""
    doc: dict[str, Any] = {
        "format": REPLAY_FORMAT,
        "aliases": list(game.aliases),
        "policyNames": list(game.policy_names),
        "config": {**game.config.to_json(),
                   "schedule": [[{"a": a, "b": b, "subgame": subgame, "first": first}
                                 for a, b, subgame, first in r]  # `Pairing.to_json`, unrolled
                                for r in game.schedule]},
        "log": log.to_json(),
        "events": log.events_json(),
        "results": game.results(),
    }
    if frames:
        doc["frames"] = build_frames(doc)
    return doc


def replay_bytes(game: LedgerGame, log: Any) -> bytes:
    """``jsonio.dumpb(replay_document(game, log, frames=True))``, spliced from encoded parts
    and joined once: the log's entries as text (`EpisodeLog.json_text`), the events as text
    (a meeting's from its fields, `events.meeting_parts`), the frames as the parts
    `FrameWriter` keeps (held to `build_frames`), folded from the rounds' meeting fields as
    the game noted them."""
    dumps = jsonio.dumps
    # the config with its schedule, each pairing's text made once per process
    config = (f'{dumps(game.config.to_json())[:-1]},"schedule":['
              f'{schedule_text(game.schedule)}]}}')
    parts = [f'{{"format":{dumps(REPLAY_FORMAT)},"aliases":{dumps(list(game.aliases))},'
             f'"policyNames":{dumps(list(game.policy_names))},"config":{config},"log":[']
    parts += jsonio.comma_spaced(log.json_text())
    parts.append('],"events":[')
    frames = ['],"results":', dumps(game.results()), ',"frames":[']
    parts += _events_and_frames(game, log, frames)
    parts += frames
    parts.append("]}")
    return jsonio.join_bytes(parts)


def _events_and_frames(game: LedgerGame, log: Any, out: list[str]) -> list[str]:
    """The fragments of the log's events in their replay form (`EpisodeLog.events_json`),
    commas between them, as one array's inside; the frame after each prefix of them
    (`frames.frame_texts`) appended to `out` as its parts, the frames separated by commas. A
    round's meetings fold into the frames from their fields (`RoundEvents.meetings`),
    without a dict, their texts as fragments (`events.meeting_parts`); the other events are
    encoded together."""
    writer = FrameWriter(game.aliases, game.policy_names, game.schedule)
    texts: list[str] = []  # a comma before each event, the first one dropped at the end
    others: list[dict[str, Any]] = []  # the other events, whose texts go at `holes`
    holes: list[int] = []
    parts = writer.parts  # changed in place by the writer
    out += parts
    fold, meeting = writer.fold, writer.meeting
    for entry in log.entries:
        render, _ = entry.step_columns()
        if type(render) is RoundEvents:
            for fields in render.meetings:
                texts.append(",")
                texts += meeting_parts(fields, meeting(fields))
                out.append(",")
                out += parts
            tail = [e.to_json() for e in render.tail]
        else:
            tail = entry.events_json()
        for event in tail:
            holes.append(len(texts) + 1)
            texts += (",", "")
            others.append(event)
            fold(event)
            out.append(",")
            out += parts
    if others:
        for i, text in zip(holes, jsonio.dumps_many(others), strict=True):
            texts[i] = text
    if texts:
        texts[0] = ""
    return texts


def game_from_replay(doc: Mapping[str, Any]) -> LedgerGame:
    """A fresh game of the document's config, seed and policy names (baseline names play
    their baseline; any other name is a remote seat, as on a server)."""
    from cogleague.games.ledger.game import LedgerGame

    config, names = doc["config"], doc["policyNames"]
    if not isinstance(config, Mapping) or not isinstance(names, list):
        raise ReplayError("config must be an object and policyNames a list")
    seats = []
    for name in names:
        key = baseline_key(name) if isinstance(name, str) else None
        driver = f"{DRIVER_SCRIPTED}:{key}" if key is not None else DRIVER_REMOTE
        seats.append({"policy_name": name, "driver": driver})
    given = {k: config[k] for k in CONFIG_FIELDS if k in config}
    return LedgerGame(build_config(config.get("variant"), {**given, "seats": seats},
                                   config.get("seed"), names))


def build_frames(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The spectator frame after each prefix of the events (events + 1 frames)."""
    config = doc["config"]
    table = Table(list(doc["aliases"]), list(doc["policyNames"]),
                  draw_schedule(config["seed"], config["rounds"]))
    out = [table.frame()]
    for event in doc["events"]:
        table.fold(event["kind"], event)
        out.append(table.frame())
    return out
