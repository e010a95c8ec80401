"""What the model seats of one episode share: clients, request budgets, fates, transcripts.

Seats that name the same endpoint share one SDK client, one request budget and one fate — after
a 401/403 the endpoint is disabled for the rest of the episode and every seat on it falls back
at once. The client is made when the first seat on the endpoint is (`lease`), and closed when
the last of them closes at the end of the run (`release`); a later run leases a fresh one.
`episode_for(game)` finds the shared state by the game object, which is what identifies an
episode to `make_model_seat` (the CLI and the server call it once per seat with the same game).
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass
from pathlib import Path

from cogleague.core.clock import Clock
from cogleague.core.game import Game
from cogleague.seats.llm.budget import RequestBudget
from cogleague.seats.llm.providers import Endpoint, Provider, make_provider
from cogleague.seats.llm.recording import EpisodeRecording, episode_file
from cogleague.seats.llm.transcript import TranscriptWriter


@dataclass
class EndpointState:
    endpoint: Endpoint
    per_minute: int
    budget: RequestBudget | None = None
    disabled: bool = False

    def budget_on(self, clock: Clock) -> RequestBudget:
        """The budget, made on first use on the runner's clock."""
        if self.budget is None:
            self.budget = RequestBudget(self.per_minute, clock)
        return self.budget


@dataclass
class _Lease:
    provider: Provider
    users: int = 0


class ModelEpisode:
    """Shared state of the model seats of one episode."""

    def __init__(self) -> None:
        self._endpoints: dict[Endpoint, EndpointState] = {}
        self._clients: dict[Endpoint, _Lease] = {}
        self._transcripts: dict[Path, TranscriptWriter] = {}
        self._recordings: dict[Path, EpisodeRecording] = {}

    def endpoint(self, endpoint: Endpoint, per_minute: int) -> EndpointState:
        state = self._endpoints.get(endpoint)
        if state is None:
            state = self._endpoints[endpoint] = EndpointState(endpoint, per_minute)
        return state

    def lease(self, endpoint: Endpoint) -> Provider:
        """The episode's live provider (one SDK client) for `endpoint`, made on first ask; each
        lease is returned with `release`."""
        lease = self._clients.get(endpoint)
        if lease is None:
            lease = self._clients[endpoint] = _Lease(make_provider(endpoint))
        lease.users += 1
        return lease.provider

    async def release(self, endpoint: Endpoint) -> None:
        """Give a lease back; the last one closes the client."""
        lease = self._clients.get(endpoint)
        if lease is None:
            return
        lease.users -= 1
        if lease.users <= 0:
            del self._clients[endpoint]
            await lease.provider.aclose()

    def transcript(self, path: str | None, append: bool = False) -> TranscriptWriter | None:
        """One writer per file per episode (created, and the file truncated unless `append`,
        on first ask)."""
        if path is None:
            return None
        key = Path(path).resolve()
        writer = self._transcripts.get(key)
        if writer is None:
            writer = self._transcripts[key] = TranscriptWriter(path, append=append)
        return writer

    def recording(self, directory: str | None, mode: str, game: Game) -> EpisodeRecording | None:
        """This episode's recording in `directory` (opened once: rewritten when recording)."""
        if directory is None:
            return None
        path = episode_file(directory, game.name, getattr(game, "seed", None),
                            list(game.policy_names))
        key = path.resolve()
        recording = self._recordings.get(key)
        if recording is None:
            recording = self._recordings[key] = EpisodeRecording.open(path, mode)
        return recording


_EPISODES: dict[int, ModelEpisode] = {}


def episode_for(game: Game) -> ModelEpisode:
    """The shared state of `game`'s episode, forgotten when the game is garbage-collected."""
    key = id(game)
    episode = _EPISODES.get(key)
    if episode is None:
        episode = _EPISODES[key] = ModelEpisode()
        with contextlib.suppress(TypeError):  # a game without weak references: keep it (small)
            weakref.finalize(game, _EPISODES.pop, key, None)
    return episode
