"""Real replays for the web tests: each game played headless with its scripted seats, through
the same runner the CLI uses, and turned into the game's own replay document."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.games import registry
from cogleague.seats.factory import make_seats

# Line-ups chosen to make every mark appear: kind and harsh meetings, promises kept and broken,
# sanctions, a resource under pressure.
LINEUPS: dict[str, tuple[str | None, list[str] | None, int]] = {
    "ledger": ("standard", ["mirror", "shark", "web.bots:Gossip", "saint", "opportunist",
                            "grim", "web.bots:Gossip", "mirror"], 7),
    "commons": ("cleanup", ["steward", "free_rider", "cleaner", "punisher", "fair_share",
                            "random"], 20260824),
    "dilemma": (None, ["tit_for_tat", "promise_keeper", "silver_tongue", "always_defect",
                       "pavlov"], 11),
}


def make_replay(game: str, variant: str | None = None, lineup: list[str] | None = None,
                seed: int | None = None) -> dict[str, Any]:
    """A replay document (shared by every test that asks for the same one: games are
    deterministic, so playing it again would give the same bytes; callers must not mutate it)."""
    return _replay(game, variant, tuple(lineup) if lineup else None, seed)


@lru_cache(maxsize=32)
def _replay(game: str, variant: str | None, lineup: tuple[str, ...] | None,
            seed: int | None) -> dict[str, Any]:
    default_variant, default_lineup, default_seed = LINEUPS[game]
    info = registry.get(game)
    variant = variant or default_variant
    names = list(lineup or default_lineup or info.default_lineup(variant))
    g = info.make(variant, {}, seed if seed is not None else default_seed, names)
    seats = make_seats(g, names)
    # A bot seat needs an event loop of its own; Playwright's sync API already runs one here.
    with ThreadPoolExecutor(1) as pool:
        outcome = pool.submit(play_headless, g, seats).result()
    return g.replay_document(outcome.log)


def write_replay(game: str, out: Path, **kwargs: Any) -> tuple[Path, dict[str, Any]]:
    doc = make_replay(game, **kwargs)
    return jsonio.write(out, doc), doc


def tally_replay(out: Path) -> tuple[Path, dict[str, Any]]:
    """A replay of the test game with no viewer module (`tally.py`), for the generic renderer."""
    from .tally import TALLY

    lineup = ["twos", "threes", "zeros"]
    g = TALLY.new_game(None, {"rounds": 4}, 1, lineup)
    seats = make_seats(g, lineup)
    with ThreadPoolExecutor(1) as pool:
        outcome = pool.submit(play_headless, g, seats).result()
    doc = g.replay_document(outcome.log)
    return jsonio.write(out, doc), doc


class _Absent:
    """A seat whose program never connects (`core/connect.py`'s `Connects`)."""

    kind = "remote"
    name = "absent"
    connected = False

    async def wait_connected(self) -> None:
        await asyncio.Event().wait()

    async def decide(self, turn: Any, hint: str | None) -> Any:
        raise AssertionError("a seat that never connected was asked to play")


def no_players_replay(game: str, out: Path, variant: str | None = None,
                      config: dict[str, Any] | None = None) -> tuple[Path, dict[str, Any]]:
    """A table of `game` nobody connected to, ended by the connect timeout its descriptor
    declares (on a virtual clock, so nothing waits), as its replay document."""
    from cogleague.core.clock import FakeClock
    from cogleague.core.connect import connect_wait
    from cogleague.core.episode import EpisodeRunner

    info = registry.get(game)
    g = info.make(variant, config or {}, 3, info.default_lineup(variant), None)
    wait = connect_wait(info, g)
    assert wait is not None, f"{game} declares no connect timeout"

    async def run() -> Any:
        seats = [_Absent() for _ in range(g.num_seats)]
        return await EpisodeRunner(g, seats, FakeClock(), connect=wait).run()

    with ThreadPoolExecutor(1) as pool:
        outcome = pool.submit(asyncio.run, run()).result()
    doc = g.replay_document(outcome.log)
    return jsonio.write(out, doc), doc
