"""Model seats: a policy that is just a prompt, played through a language-model provider.

`make_model_seat` is what the seat factory calls for ``llm`` / ``llm:PATH`` seats and what the
server calls for a join of kind ``llm`` (passing the registered prompt text as `prompt`).
`accounting_for(seats)` gives the ``models`` section the CLI and the server merge into results.
See `docs/models.md`.
"""

from __future__ import annotations

from cogleague.core.game import Game
from cogleague.seats.factory import ModelOptions
from cogleague.seats.llm.accounting import accounting_for
from cogleague.seats.llm.budget import check_requests_per_minute
from cogleague.seats.llm.prompting import MAX_PROMPT_CHARS, check_prompt, load_prompt
from cogleague.seats.llm.providers import check_max_reply_tokens, resolve_endpoint
from cogleague.seats.llm.recording import RecordingMiss, check_mode
from cogleague.seats.llm.seat import ModelSeat
from cogleague.seats.llm.session import ModelEpisode, episode_for

__all__ = ["MAX_PROMPT_CHARS", "ModelEpisode", "ModelOptions", "ModelSeat", "RecordingMiss",
           "accounting_for", "make_model_seat"]


def make_model_seat(game: Game, seat: int, name: str, options: ModelOptions, *,
                    prompt: str | None = None, episode: ModelEpisode | None = None) -> ModelSeat:
    """A model seat for `seat` of `game`.

    `name` is the policy name (``llm`` or ``llm:PATH``; the prompt is read from PATH unless
    `prompt` is given). Seats of one game share an episode state (clients, budgets, transcript)
    unless `episode` is passed. Bad settings raise `ConfigError` naming the field: ``seats``
    (the prompt file of `name` unreadable, or over MAX_PROMPT_CHARS code points), ``prompt``
    (the `prompt` text over MAX_PROMPT_CHARS code points), ``provider``, ``model``,
    ``requests_per_minute``, ``max_reply_tokens``, ``transcript``, ``recording_mode``,
    ``replay`` (no recording of this episode, or calls of this seat recorded but no provider,
    or another provider or model, to replay them on). With
    ``options.recording`` set, calls are recorded to or replayed from that directory
    (`recording.py`); a pure replay needs no API key and opens no connection. No provider
    configured is otherwise not an error: the seat then falls back at once on every turn (cause
    ``disabled``), with zero network calls.
    """
    text = check_prompt(prompt) if prompt is not None else load_prompt(name)
    mode = check_mode(options.recording_mode)
    replaying = options.recording is not None and mode == "replay"
    endpoint = resolve_endpoint(options.provider, options.model, options.base_url,
                                options.api_key or ("replay" if replaying else None))
    per_minute = check_requests_per_minute(options.requests_per_minute)
    max_reply_tokens = check_max_reply_tokens(options.max_reply_tokens)
    shared = episode if episode is not None else episode_for(game)
    recording = shared.recording(options.recording, mode, game)
    if endpoint is None and recording is not None:
        recording.require_endpoint(seat)
    elif endpoint is not None and recording is not None and mode == "replay":
        recording.require_same_model(seat, endpoint.provider, endpoint.model)
    transcript = shared.transcript(options.transcript, options.transcript_append)
    return ModelSeat(game, seat, name, text, endpoint, per_minute, shared,
                     transcript=transcript, recording=recording,
                     max_reply_tokens=max_reply_tokens)
