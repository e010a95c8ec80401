"""The model seat: a policy that is just a prompt.

The runner asks every seat of a step at once — that concurrency *is* the batch — and bounds
each attempt by the decision timeout and the step deadline. One `decide` call is one attempt:
take a request slot from the endpoint's budget, send one request (again after a 429 backoff,
while the attempt's deadline allows), and return the raw reply text for the game's `parse`.
What cannot succeed this time raises `SeatUnavailable` so the runner falls back at once with no
retry: ``disabled`` (no provider configured — zero network calls — or the endpoint answered
401/403 earlier in the episode) and ``rate_budget`` (no slot before the deadline). Any other
failure (`ProviderFailure`) propagates; the runner records ``transport`` and retries once.

A reply the game refuses is retried with the refusal's reason (`DECISION_RETRIES` times), by
the runner where the game's `Timing` gives retries; where it gives fewer (the dilemma, whose
rules give every seat one deadline per turn), the seat asks again itself within the same
attempt, so a model is told why in every game and no deadline grows.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from cogleague.core.clock import Clock, MonotonicClock
from cogleague.core.episode import PARSE_CODES, current_attempt
from cogleague.core.errors import IllegalAction, SeatUnavailable
from cogleague.core.game import DECISION_RETRIES, Decision, Game, Turn
from cogleague.core.model_limits import DEFAULT_REPLY_TOKENS
from cogleague.core.seat import FallbackCause
from cogleague.core.text import cut_with_ellipsis
from cogleague.seats.llm import prompting
from cogleague.seats.llm.accounting import SeatStats
from cogleague.seats.llm.budget import MAX_RATE_LIMITED_SENDS
from cogleague.seats.llm.providers import (
    AuthRejected,
    Endpoint,
    Provider,
    RateLimited,
)
from cogleague.seats.llm.recording import EpisodeRecording, RecordedProvider, reset_turn, set_turn
from cogleague.seats.llm.session import EndpointState, ModelEpisode
from cogleague.seats.llm.transcript import AttemptRecord, TranscriptWriter

SDK_TIMEOUT_GRACE_S = 0.5
"""The SDK's own timeout sits this far past the runner's cut-off, so the runner's deadline
fires first and the fallback is recorded as ``timeout`` rather than ``transport``."""


class ModelSeat:
    kind = "model"

    def __init__(self, game: Game, seat: int, name: str, prompt: str, endpoint: Endpoint | None,
                 per_minute: int, episode: ModelEpisode,
                 transcript: TranscriptWriter | None = None,
                 recording: EpisodeRecording | None = None,
                 max_reply_tokens: int = DEFAULT_REPLY_TOKENS) -> None:
        self.game = game
        self.seat = seat
        self.name = name
        self.prompt = prompt
        self.endpoint = endpoint
        self.episode = episode
        self.transcript = transcript
        self.recording = recording
        self.max_reply_tokens = max_reply_tokens
        """The reply-length cap of each request (`providers.check_max_reply_tokens`)."""
        self.stats = SeatStats(model=endpoint.model if endpoint else None)
        self._state: EndpointState | None = None
        self._provider: Provider | None = None
        self._leased = False  # holds a lease on the episode's client for its endpoint
        if endpoint is not None:
            self._state = episode.endpoint(endpoint, per_minute)
            # Leased now, with the seats: the first client imports the SDK, which must not eat
            # into the first step's deadline.
            self._provider = self._new_provider(endpoint)
        self._system: str | None = None
        self._attempts: dict[str, list[AttemptRecord]] = {}
        self._own_retries = max(0, DECISION_RETRIES - game.timing().retries)
        """Retries of a refused reply the seat asks for itself (those the runner does not)."""
        self._dropped: str | None = None
        """What the game dropped from this seat's last decided reply (`Parsed.reason`): told
        to the model in its next turn's prompt. Read from the recorded reply text, so a replay
        sends the same prompts."""

    @property
    def system_text(self) -> str:
        """The game's rules for this seat with the operator's guidance (built once)."""
        if self._system is None:
            self._system = prompting.system_message(self.game.system_text(self.seat),
                                                    self.prompt)
        return self._system

    # -- one attempt -------------------------------------------------------------------------
    async def decide(self, turn: Turn, hint: str | None) -> str:
        """One attempt of the runner's: a request, and where the runner gives fewer retries
        than `DECISION_RETRIES`, the rest asked here with the refusal's reason."""
        attempt = current_attempt()
        if attempt is not None:
            clock: Clock = attempt.clock
            deadline, number = attempt.deadline, attempt.number
        else:  # called outside the runner: bound by the game's own decision timeout
            clock = MonotonicClock()
            deadline, number = clock.now() + self.game.timing().decision_timeout_s, 1
        text, refused = await self._ask(turn, hint, clock, deadline, number)
        for extra in range(1, self._own_retries + 1):
            if refused is None:
                break
            text, refused = await self._ask(turn, refused, clock, deadline, number + extra)
        return text

    async def _ask(self, turn: Turn, hint: str | None, clock: Clock, deadline: float,
                   number: int) -> tuple[str, str | None]:
        """One request: the reply's text and, when the game refuses it, the refusal's hint."""
        records = self._attempts.setdefault(turn.turn_id, [])
        last_reply = records[-1].reply if records else None
        cut = bool(records) and records[-1].cut
        told = records[0].told if records else self._dropped  # every attempt of a turn alike
        self._dropped = None
        turns = prompting.chat_turns(turn, hint, last_reply, told, cut=cut)
        record = AttemptRecord(self.seat, turn.round, turn.turn_id, number,
                               [{"role": "system", "content": self.system_text}, *turns],
                               extra=self._identity(), told=told,
                               seed=getattr(self.game, "seed", None))
        records.append(record)
        state = self._state
        if state is None or state.disabled:
            record.cause = FallbackCause.DISABLED
            why = "no model provider configured" if state is None else "provider refused the key"
            record.error = why
            raise SeatUnavailable(FallbackCause.DISABLED, why)
        token = set_turn(turn.turn_id)
        try:
            text = await self._send(state, turns, clock, deadline, record)
        except asyncio.CancelledError:
            record.cause = FallbackCause.TIMEOUT
            raise
        except SeatUnavailable as unavailable:
            record.cause, record.error = unavailable.cause, _said(unavailable)
            raise
        except Exception as exc:
            record.cause, record.error = FallbackCause.TRANSPORT, _said(exc)
            raise
        finally:
            reset_turn(token)
        record.reply = text
        try:  # for the transcript (and our own retry): the runner parses again and decides
            parsed = self.game.parse(turn, text)
            record.action = ({**parsed.action, **parsed.private} if parsed.private
                             else parsed.action)  # private parts are the seat's own to see
            record.dropped = parsed.reason
        except IllegalAction as illegal:
            record.cause = (FallbackCause.PARSE if illegal.code in PARSE_CODES
                            else FallbackCause.ILLEGAL)
            attempt = current_attempt()
            if attempt is not None and self._own_retries:  # we ask again within the attempt:
                attempt.refused = f"{record.cause}: {illegal}"  # a cut-off then says why
            return text, illegal.hint
        except Exception:  # a broken parser must surface in the runner's own call, not here
            record.cause = None
        return text, None

    async def _send(self, state: EndpointState, turns: list[dict[str, str]], clock: Clock,
                    deadline: float, record: AttemptRecord) -> str:
        budget = state.budget_on(clock)
        if self._provider is None:  # closed at the end of an earlier run
            self._provider = self._new_provider(state.endpoint)
        provider = self._provider
        for _ in range(MAX_RATE_LIMITED_SENDS):
            if isinstance(provider, RecordedProvider):  # recorded / replayed as a call is
                await provider.slot(budget, deadline, self.system_text, turns,
                                    self.max_reply_tokens)
            else:
                await budget.acquire(deadline)  # raises SeatUnavailable("rate_budget")
            if state.disabled:  # another seat hit 401/403 while this one waited
                raise SeatUnavailable(FallbackCause.DISABLED, "provider refused the key")
            timeout = max(deadline - clock.now(), 0.0) + SDK_TIMEOUT_GRACE_S
            self.stats.requests += 1
            record.requests += 1
            started = time.perf_counter()
            replayed = getattr(provider, "replayed", 0)
            try:
                completion = await provider.complete(self.system_text, turns, timeout,
                                                     self.max_reply_tokens)
            except RateLimited as limited:
                self._count_replayed(provider, replayed, record)

                budget.rate_limited(limited.retry_after)
                continue
            except AuthRejected as rejected:
                self._count_replayed(provider, replayed, record)
                state.disabled = True
                raise SeatUnavailable(FallbackCause.DISABLED,
                                      f"provider refused the key ({rejected})") from rejected
            except BaseException:  # a failure or a cut-off, perhaps answered from the recording
                self._count_replayed(provider, replayed, record)
                raise
            measured = round((time.perf_counter() - started) * 1000, 1)
            latency: float | None = measured
            if self._count_replayed(provider, replayed, record):
                latency = None  # answered from the recording: no request went out
            else:  # the results' latencies are those of requests sent
                self.stats.latencies_ms.append(measured)
            budget.succeeded()
            self.stats.input_tokens += completion.input_tokens
            self.stats.output_tokens += completion.output_tokens
            record.latency_ms = latency
            record.input_tokens += completion.input_tokens
            record.output_tokens += completion.output_tokens
            record.cut = completion.cut
            return completion.text
        raise SeatUnavailable(FallbackCause.RATE_BUDGET,
                              f"rate limited {MAX_RATE_LIMITED_SENDS} times")

    def _new_provider(self, endpoint: Endpoint) -> Provider:
        """The episode's live provider for the endpoint (one client shared by its seats),
        wrapped by the recorder when recording or replaying (a pure replay leases no client)."""
        live = None
        if self.recording is None or self.recording.mode != "replay":
            live = self.episode.lease(endpoint)
            self._leased = True
        if self.recording is None:
            assert live is not None
            return live
        return RecordedProvider(endpoint, self.seat, self.recording, live)

    def _count_replayed(self, provider: Provider, before: int, record: AttemptRecord) -> bool:
        """Move a call answered from the recording from `requests` to `replayed`."""
        if getattr(provider, "replayed", 0) == before:
            return False
        self.stats.requests -= 1
        self.stats.replayed += 1
        record.requests -= 1
        record.replayed = True
        return True

    # -- runner hooks ------------------------------------------------------------------------
    def on_decision(self, turn: Turn, decision: Decision) -> None:
        """The runner's final word on a turn: count it, and write its transcript rows."""
        self.stats.decisions += 1
        if decision.is_fallback:
            self.stats.fallbacks[decision.cause or "unknown"] += 1
        records = self._attempts.pop(turn.turn_id, [])
        if decision.is_fallback and records and records[-1].error is not None:
            self.stats.errors.setdefault(str(decision.cause or "unknown"), records[-1].error)
        if decision.source == "seat" and records and records[-1].dropped is not None:
            self._dropped = prompting.cut_dropped(records[-1].dropped)  # the reply it took
        if self.transcript is not None and records:
            rows = [r.to_row() for r in records[:-1]]
            rows.append(records[-1].to_row(decision))
            self.transcript.write(rows)

    async def aclose(self) -> None:
        """Give back this seat's lease on the endpoint's client (the runner calls this when
        `run` ends; the last seat's release closes it); a later run leases a fresh one."""
        self._provider = None
        if self._leased and self.endpoint is not None:
            self._leased = False
            await self.episode.release(self.endpoint)

    def _identity(self) -> dict[str, Any]:
        ep = self.endpoint
        return {"provider": ep.provider if ep else None, "model": ep.model if ep else None}

    def __repr__(self) -> str:
        return f"ModelSeat(seat={self.seat}, name={self.name!r}, endpoint={self.endpoint})"


MAX_ERROR_CHARS = 500
"""A failed call's error in its transcript row, cut to this many code points (an SDK's message
quotes the provider's error body)."""


def _said(exc: BaseException) -> str:
    return cut_with_ellipsis(str(exc) or type(exc).__name__, MAX_ERROR_CHARS)
