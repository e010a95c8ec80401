"""Record and replay of model calls: rerun a model episode exactly, with no network and no tokens.

The design follows vcrpy's cassettes (one plain file of request/response *interactions*,
requests matched on what was sent, each recorded answer played back once and in order, record
modes ``all`` / ``none`` / ``new_episodes``), but it records one level above HTTP, at the
`Provider` seam: what is stored is the provider, the model and the canonical request (system
text and chat turns), never SDK headers, URLs or API keys, and one recording replays whatever
SDK version, base URL or key is in use. vcrpy itself patches the HTTP library process-wide,
which cannot tell the seats and tables of one process apart; here every seat has its own.

A recording is a directory with one JSON Lines file per episode
(``<game>-<seed>-<digest of the line-up>.jsonl``), one interaction per line::

    {"seat": 0, "turn_id": "r1-s0", "provider": "openai", "model": "m", "key": "<sha256>",
     "request": {"system": "...", "messages": [...], "max_reply_tokens": 1024},
     "response": {"text": "...", "input_tokens": 12, "output_tokens": 3}}

with ``"cut": true`` in ``response`` when the reply stopped at the length limit (its retry says
so, and a replay must send the same retry).

``response`` is instead ``{"error": "rate_limited", "retry_after": 1.0}``, ``{"error": "auth"}``,
``{"error": "failure", "message": "..."}``, ``{"error": "timeout"}`` (the runner cut the call
off) or ``{"error": "rate_budget"}`` (no request slot before the deadline: never sent), so a
replay plays faults back too; a pure replay takes no request slots. ``key`` is the SHA-256 of
the canonical JSON of provider, model and request, the reply-length cap included when it is not
the default (another cap can change every reply, so it is a miss; at the default the key is the
one recordings made before the cap could be set hold, and they keep replaying). A seat's
answers are looked up by (seat, key) in recorded order, which keeps two seats sending the same
words apart and makes concurrent steps deterministic.

Modes: ``record`` (send live, write every interaction; the episode's file is rewritten),
``replay`` (answer only from the file; a request it lacks raises `RecordingMiss`, which ends the
episode with a message naming seat, turn and request), ``replay_or_live`` (answer from the file
and send what it lacks live, appending it).
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError, SeatUnavailable
from cogleague.core.model_limits import DEFAULT_REPLY_TOKENS
from cogleague.core.seat import FallbackCause
from cogleague.seats.llm.budget import RequestBudget
from cogleague.seats.llm.providers import (
    AuthRejected,
    Completion,
    Endpoint,
    Provider,
    ProviderFailure,
    RateLimited,
)

MODES = ("record", "replay", "replay_or_live")
SUFFIX = ".jsonl"
REQUEST_PREVIEW_CHARS = 160

_TURN: contextvars.ContextVar[str | None] = contextvars.ContextVar("recorded_turn", default=None)


class RecordingMiss(BaseException):
    """A replayed request that the recording lacks.

    A `BaseException`, like `asyncio.CancelledError`: the episode runner turns every `Exception`
    from a seat into a ``transport`` fallback, and a replay that silently fell back would no
    longer be the recorded run. This one ends the episode instead."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def set_turn(turn_id: str) -> contextvars.Token[str | None]:
    """Tell the recorder which turn the calling seat answers (for misses and the file)."""
    return _TURN.set(turn_id)


def reset_turn(token: contextvars.Token[str | None]) -> None:
    _TURN.reset(token)


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ConfigError("recording_mode", f"recording_mode must be one of {', '.join(MODES)} "
                                            f"(got {mode!r})")
    return mode


def request_key(provider: str, model: str, system: str, messages: list[dict[str, str]],
                max_reply_tokens: int = DEFAULT_REPLY_TOKENS) -> str:
    """The canonical key: SHA-256 of the sorted-key JSON of provider, model and request (the
    reply cap only when it is not the default: the key recordings made before it was settable
    hold)."""
    doc: dict[str, Any] = {"provider": provider, "model": model, "system": system,
                           "messages": messages}
    if max_reply_tokens != DEFAULT_REPLY_TOKENS:
        doc["max_reply_tokens"] = max_reply_tokens
    return hashlib.sha256(jsonio.dumps(doc, sort_keys=True).encode()).hexdigest()


RequestShape = tuple[int, tuple[int, ...], Any]
"""A request's system text and each message, hashed, and its reply cap: enough to say which
part differs."""


def request_shape(system: Any, messages: Any, max_reply_tokens: Any) -> RequestShape:
    turns = messages if isinstance(messages, list) else []
    return (hash(jsonio.dumps(system)), tuple(hash(jsonio.dumps(m)) for m in turns),
            max_reply_tokens)


def episode_file(directory: str | Path, game: str, seed: int | None,
                 policy_names: list[str]) -> Path:
    """Where one episode's interactions live: its identity is game, seed and line-up."""
    digest = hashlib.sha256(jsonio.dumps(list(policy_names)).encode()).hexdigest()[:12]
    return Path(directory) / f"{game}-{seed}-{digest}{SUFFIX}"


@dataclass
class EpisodeRecording:
    """The interactions of one episode: loaded for replay, appended while recording."""

    path: Path
    mode: str
    _answers: dict[tuple[int, str], list[dict[str, Any]]] = field(default_factory=dict)
    _used: dict[tuple[int, str], int] = field(default_factory=lambda: defaultdict(int))
    _lock: threading.Lock = field(default_factory=threading.Lock)
    recorded_models: dict[int, str] = field(default_factory=dict)
    """Per seat, ``provider/model`` of its first recorded call."""
    _shapes: dict[tuple[int, str], list[RequestShape]] = field(default_factory=dict)
    """Per seat and turn, the recorded requests' system text and messages (as hashes): what a
    miss is compared with, to say which part of the request changed."""

    @classmethod
    def open(cls, path: Path, mode: str) -> EpisodeRecording:
        recording = cls(path, check_mode(mode))
        if mode == "record":
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("", encoding="utf-8")
            except OSError as exc:
                raise ConfigError("record", f"recording {str(path)!r} cannot be written "
                                            f"({exc.strerror or exc})") from exc
            return recording
        if path.is_file():
            recording._load()
        elif mode == "replay":
            raise ConfigError("replay", f"replay: no recording of this episode at {path} (was "
                                        f"it recorded with the same game, seed and seats?)"
                                        f"{_other_seeds(path)}")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        return recording

    def _load(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError("replay", f"recording {str(self.path)!r} cannot be read "
                                        f"({exc})") from exc
        # "\n" alone ends a line: JSON writes U+2028, U+2029 and U+0085 raw inside strings,
        # and str.splitlines would break a line there
        for number, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                slot = (int(row["seat"]), str(row["key"]))
                response = _checked_response(row["response"])
            except (ValueError, KeyError, TypeError, RecursionError) as exc:
                raise ConfigError("replay", f"{self.path}:{number}: not a recorded interaction "
                                            f"({exc})") from exc
            self._answers.setdefault(slot, []).append(response)
            self.recorded_models.setdefault(slot[0], f"{row.get('provider')}/{row.get('model')}")
            request = row.get("request")
            if isinstance(request, dict):
                self._shapes.setdefault((slot[0], str(row.get("turn_id"))), []).append(
                    request_shape(request.get("system"), request.get("messages"),
                                  request.get("max_reply_tokens", DEFAULT_REPLY_TOKENS)))

    def what_differs(self, seat: int, turn_id: str, system: str,
                     messages: list[dict[str, str]], max_reply_tokens: int) -> str:
        """Why a request of `seat` at `turn_id` matches no recorded one, in a writer's terms:
        an edited prompt file changes the system message while the last message stays the
        same, so the last message alone does not show it."""
        recorded = self._shapes.get((seat, turn_id))
        if not recorded:
            return f"nothing was recorded for seat {seat} at turn {turn_id}"
        shape = request_shape(system, messages, max_reply_tokens)
        if all(r[2] != max_reply_tokens for r in recorded):
            return (f"max_reply_tokens {max_reply_tokens} differs from the {recorded[0][2]} "
                    "recorded for this seat and turn (replay with the recorded cap, or use "
                    "--replay-or-live to send the new cap's calls)")
        same_system = [r for r in recorded if r[0] == shape[0]]
        if not same_system:
            return ("the system message differs from the one recorded for this seat and turn "
                    "(an edited prompt file, or other rules)")
        theirs = same_system[0][1]
        at = next((i for i, (a, b) in enumerate(zip(shape[1], theirs, strict=False))
                   if a != b), min(len(shape[1]), len(theirs)))
        return (f"message {at + 1} differs from the one recorded for this seat and turn "
                f"({len(shape[1])} sent, {len(theirs)} recorded; an earlier turn played "
                "differently?)")

    def require_endpoint(self, seat: int) -> None:
        """Refuse to replay a seat that made calls without an endpoint to replay them on: it
        would fall back (``disabled``) on every turn and silently play another episode."""
        recorded = self.recorded_models.get(seat)
        if recorded is not None:
            raise ConfigError("replay", f"replay: seat {seat} made {recorded} calls in "
                                        f"{self.path}, but no model provider is configured "
                                        "(replay with the recorded provider and model)")

    def require_same_model(self, seat: int, provider: str, model: str) -> None:
        """Refuse to replay a seat's calls on another provider or model: no request of it
        could match (the key holds both), so the first turn would stop with a bare miss."""
        recorded = self.recorded_models.get(seat)
        if recorded is not None and recorded != f"{provider}/{model}":
            raise ConfigError("replay", f"replay: seat {seat} made {recorded} calls in "
                                        f"{self.path}, not {provider}/{model} (replay with "
                                        "the recorded provider and model, or use "
                                        "--replay-or-live to send the new model's calls)")

    def next_answer(self, seat: int, key: str, error: str | None = None
                    ) -> dict[str, Any] | None:
        """The next recorded answer to this seat's request (with `error`: only if it is that
        recorded error), or None when there is none (it is left for the next call)."""
        with self._lock:
            answers = self._answers.get((seat, key), [])
            used = self._used[(seat, key)]
            if used >= len(answers) or (error is not None
                                        and answers[used].get("error") != error):
                return None
            self._used[(seat, key)] = used + 1
            return answers[used]

    def take_rate_budget(self, seat: int, key: str) -> bool:
        """Play the next recorded answer to this request if it is a ``rate_budget`` fallback."""
        return self.next_answer(seat, key, error="rate_budget") is not None

    def append(self, row: dict[str, Any]) -> None:
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(jsonio.dumps(row) + "\n")


def _other_seeds(path: Path) -> str:
    """The seeds this game and line-up were recorded with in the same directory: a command
    run without a seed plays a random one, so its replay needs the recorded seed named."""
    game, _, digest = path.name.removesuffix(SUFFIX).rsplit("-", 2)
    seeds = sorted(int(p.name.removesuffix(SUFFIX).rsplit("-", 2)[1])
                   for p in path.parent.glob(f"{game}-*-{digest}{SUFFIX}")
                   if p.name.removesuffix(SUFFIX).rsplit("-", 2)[1].isdigit())
    if not seeds:
        return ""
    return (f"; this game and line-up were recorded with seed "
            f"{', '.join(map(str, seeds[:10]))}{', …' if len(seeds) > 10 else ''}: replay "
            "with one of those seeds")


RECORDED_ERRORS = ("rate_limited", "auth", "failure", "timeout", "rate_budget")


def _checked_response(response: Any) -> dict[str, Any]:
    """A recorded response `completion_of` can play: checked when the recording opens, so a
    corrupt one is an error naming its line, never a different move or a fallback in play."""
    if not isinstance(response, dict):
        raise TypeError(f"response is {type(response).__name__}, not an object")
    error = response.get("error")
    if error is None:
        if not isinstance(response.get("text"), str):
            raise TypeError("response has neither a text string nor an error")
    elif error not in RECORDED_ERRORS:
        raise ValueError(f"unknown recorded error {str(error)[:40]!r}")
    return response


def completion_of(response: dict[str, Any]) -> Completion:
    """Play one recorded response: a completion, or the provider error it was."""
    error = response.get("error")
    if error is None:
        # replayed: no tokens spent; `cut` as recorded, so a retry is told the same
        return Completion(str(response["text"]), 0, 0, cut=response.get("cut") is True)
    if error == "rate_limited":
        raise RateLimited(response.get("retry_after"))
    if error == "auth":
        raise AuthRejected(str(response.get("message", "recorded 401/403")))
    if error == "failure":
        raise ProviderFailure(str(response.get("message", "recorded failure")))
    if error == "rate_budget":
        raise SeatUnavailable(FallbackCause.RATE_BUDGET, "no request slot before the deadline")
    raise ProviderFailure(f"unknown recorded error {error!r}")


def _response_of(exc: BaseException) -> dict[str, Any] | None:
    if isinstance(exc, RateLimited):
        return {"error": "rate_limited", "retry_after": exc.retry_after}
    if isinstance(exc, AuthRejected):
        return {"error": "auth", "message": str(exc)}
    if isinstance(exc, ProviderFailure):
        return {"error": "failure", "message": str(exc)}
    if isinstance(exc, asyncio.CancelledError):
        return {"error": "timeout"}
    return None


class RecordedProvider:
    """A provider for one seat that records to, or answers from, an `EpisodeRecording`.

    `live` is the real provider, or None in ``replay`` mode (no client is ever built then).
    `replayed` counts answers that came from the file (no request, no tokens)."""

    def __init__(self, endpoint: Endpoint, seat: int, recording: EpisodeRecording,
                 live: Provider | None) -> None:
        self.endpoint = endpoint
        self.seat = seat
        self.recording = recording
        self.live = live
        self.replayed = 0

    @property
    def sends(self) -> bool:
        """Whether a call may reach the network (so it needs a request slot)."""
        return self.recording.mode != "replay"

    async def slot(self, budget: RequestBudget, deadline: float, system: str,
                   turns: list[dict[str, str]],
                   max_reply_tokens: int = DEFAULT_REPLY_TOKENS) -> None:
        """Take a request slot from `budget`, recording a ``rate_budget`` fallback; a replay
        plays the recorded one instead, and a pure replay takes no slot: it sends nothing, and
        how fast it runs must not decide which seat falls back."""
        ep, mode = self.endpoint, self.recording.mode
        key = request_key(ep.provider, ep.model, system, turns, max_reply_tokens)
        if mode != "record":
            if self.recording.take_rate_budget(self.seat, key):
                raise SeatUnavailable(FallbackCause.RATE_BUDGET,
                                      "no request slot before the deadline")
            if mode == "replay":
                return
        try:
            await budget.acquire(deadline)
        except SeatUnavailable:
            self.recording.append({**self._row(key, system, turns, max_reply_tokens),
                                   "response": {"error": "rate_budget"}})
            raise

    def _row(self, key: str, system: str, turns: list[dict[str, str]],
             max_reply_tokens: int) -> dict[str, Any]:
        ep = self.endpoint
        return {"seat": self.seat, "turn_id": _TURN.get(), "provider": ep.provider,
                "model": ep.model, "key": key,
                "request": {"system": system, "messages": turns,
                            "max_reply_tokens": max_reply_tokens}}

    async def complete(self, system: str, turns: list[dict[str, str]], timeout: float,
                       max_reply_tokens: int = DEFAULT_REPLY_TOKENS) -> Completion:
        ep, mode = self.endpoint, self.recording.mode
        key = request_key(ep.provider, ep.model, system, turns, max_reply_tokens)
        if mode != "record":
            answer = self.recording.next_answer(self.seat, key)
            if answer is not None:
                self.replayed += 1
                if answer.get("error") == "timeout":
                    await asyncio.Event().wait()  # the runner's deadline cut it off: again
                return completion_of(answer)
            if mode == "replay" or self.live is None:
                raise RecordingMiss(self._miss(key, system, turns, max_reply_tokens))
        assert self.live is not None
        row = self._row(key, system, turns, max_reply_tokens)
        try:
            completion = await self.live.complete(system, turns, timeout, max_reply_tokens)
        except BaseException as exc:
            response = _response_of(exc)
            if response is not None:
                self.recording.append({**row, "response": response})
            raise
        self.recording.append({**row, "response": {
            "text": completion.text, "input_tokens": completion.input_tokens,
            "output_tokens": completion.output_tokens,
            **({"cut": True} if completion.cut else {})}})
        return completion

    def _miss(self, key: str, system: str, turns: list[dict[str, str]],
              max_reply_tokens: int) -> str:
        last = turns[-1]["content"] if turns else ""
        preview = last if len(last) <= REQUEST_PREVIEW_CHARS else (
            last[:REQUEST_PREVIEW_CHARS] + "…")
        turn = _TURN.get()
        why = self.recording.what_differs(self.seat, str(turn), system, turns, max_reply_tokens)
        return (f"replay: seat {self.seat}, turn {turn}: request not in the recording "
                f"{self.recording.path}: {why} ({self.endpoint.provider}/{self.endpoint.model}, "
                f"key {key[:16]}, last message {preview!r}); record it again, or use "
                "--replay-or-live to send what is missing")

    async def aclose(self) -> None:
        if self.live is not None:
            await self.live.aclose()


@dataclass(frozen=True)
class RecordingSpec:
    """Where and how an episode's model calls are recorded (from `ModelOptions`)."""

    directory: str
    mode: str = "record"
