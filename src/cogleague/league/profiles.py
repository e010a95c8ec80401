"""Behaviour profiles of a league's policies, for the report (``[profiles]`` in the file).

Each policy is profiled in every game of the league whose descriptor declares a probe battery
(`cogleague.profiles`), playing exactly as it plays in the league: its seat string and model
options. Model calls go through the league's recording (in ``<recording>/profiles``) when one
is set, so a replayed league also replays its profiles. Held-out policies are profiled only
once they are revealed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cogleague.league.config import LeagueConfig
from cogleague.league.games import resolve_game
from cogleague.profiles import profile
from cogleague.seats.factory import ModelOptions


def league_profiles(config: LeagueConfig, *, reveal_held_out: bool) -> list[dict[str, Any]]:
    """``[{"game", "episodes", "seed", "profiles": [profile JSON, policy = league name]}]``,
    one entry per game."""
    settings = config.profiles
    if settings is None:
        return []
    out = []
    # one battery per game, whatever tables list it: the battery plays its own variants
    by_game: dict[str, tuple[str | None, dict[str, None]]] = {}
    for entry in config.games:
        module, names = by_game.setdefault(entry.name, (entry.module, {}))
        names.update(dict.fromkeys(entry.policies))
    for game_name, (module, policies) in by_game.items():
        desc = resolve_game(game_name, module)
        if "probes" not in desc.extras:
            continue
        docs = []
        for name in policies:
            policy = config.policy[name]
            if policy.held_out and not reveal_held_out:
                continue
            options = policy.model_options()
            model = None
            if options is not None:
                if config.recording is not None:
                    options = {**options, "recording": str(Path(config.recording) / "profiles"),
                               "recording_mode": config.recording_mode}
                model = ModelOptions(**options)
            result = profile(desc, policy.seat_ref(game_name), episodes=settings.episodes,
                             seed=settings.seed, model=model).to_json()
            docs.append({**result, "policy": name})
        if docs:
            out.append({"game": desc.name, "episodes": settings.episodes,
                        "seed": settings.seed, "profiles": docs})
    return out
