"""Model providers through their official async SDKs: `openai` and `anthropic`.

A provider turns (system text, chat turns, timeout) into a `Completion` or one of three errors
the seat acts on: `RateLimited` (HTTP 429: back off and try again within the budget),
`AuthRejected` (401/403: disable this endpoint for the episode) and `ProviderFailure`
(anything else: a transport failure the runner retries once). SDK-level retries are off
(`max_retries=0`): the runner's one retry and our 429 backoff are the only retry policy.

Each seat gets its own client (its own connection pool): one request in flight per seat, and a
shared pool would rescan every connection for every request — quadratic in the batch size. The
clients share one TLS context, whose construction is the costly part of a client.

The SDKs are imported lazily: they are heavy, and a line-up without model seats never needs them.
"""

from __future__ import annotations

import functools
import os
import ssl
from dataclasses import dataclass
from typing import Any, Protocol

from cogleague.core.errors import ConfigError

PROVIDERS = ("openai", "anthropic")
API_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
LOCAL_SERVER_KEY = "unused"
"""Sent when a base URL is given without a key: local servers (vLLM, Ollama, llama.cpp) accept
any key, but the SDKs refuse to start without one."""
ANTHROPIC_MAX_TOKENS = 1024
"""The Messages API requires a reply-length cap; one JSON action is far below it."""


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int


class ProviderError(Exception):
    """A request failed; subclasses say how the seat should react."""


class RateLimited(ProviderError):
    """HTTP 429. `retry_after` is the server's Retry-After in seconds, if it sent one."""

    def __init__(self, retry_after: float | None) -> None:
        super().__init__(f"rate limited (retry after {retry_after})")
        self.retry_after = retry_after


class AuthRejected(ProviderError):
    """HTTP 401/403: the key is wrong or lacks access; no later request would fare better."""


class ProviderFailure(ProviderError):
    """Anything else: connection refused, 5xx, an unreadable body, a client-side timeout."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where requests go. Seats with equal endpoints share one client and one fate (disabled)."""

    provider: str
    model: str
    base_url: str | None
    api_key: str


class Provider(Protocol):
    endpoint: Endpoint

    async def complete(self, system: str, turns: list[dict[str, str]],
                       timeout: float) -> Completion: ...

    async def aclose(self) -> None: ...


def resolve_endpoint(provider: str | None, model: str | None, base_url: str | None,
                     api_key: str | None) -> Endpoint | None:
    """The endpoint the options name, or None when no provider is configured (seats then fall
    back at once, with zero network calls). A provider without a model is a `ConfigError`."""
    if provider is None:
        return None
    if provider not in PROVIDERS:
        raise ConfigError("provider",
                          f"provider must be one of {', '.join(PROVIDERS)} (got {provider!r})")
    if not model:
        raise ConfigError("model", f"model must name a model when provider is {provider} "
                                   f"(e.g. --model NAME)")
    key = api_key or os.environ.get(API_KEY_ENV[provider]) or None
    if key is None:
        if base_url is None:
            return None  # a hosted provider without a key: not configured
        key = LOCAL_SERVER_KEY
    return Endpoint(provider, model, base_url, key)


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    """The platform's default verifying context (system CA store; SSL_CERT_FILE/DIR honoured)."""
    return ssl.create_default_context()


def make_provider(endpoint: Endpoint) -> Provider:
    if endpoint.provider == "openai":
        return OpenAIProvider(endpoint)
    return AnthropicProvider(endpoint)


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        seconds = float(value) if value is not None else None
    except ValueError:  # an HTTP date: treat as unknown and use our own backoff
        return None
    return seconds if seconds is not None and seconds >= 0 else None


def _translate(exc: Exception, sdk: Any) -> ProviderError:
    """Map an SDK exception onto the three reactions."""
    if isinstance(exc, sdk.RateLimitError):
        return RateLimited(_retry_after(exc))
    if isinstance(exc, sdk.AuthenticationError | sdk.PermissionDeniedError):
        return AuthRejected(str(exc))
    return ProviderFailure(f"{type(exc).__name__}: {exc}")


class OpenAIProvider:
    """Any OpenAI-compatible chat-completions endpoint (hosted, vLLM, Ollama, llama.cpp)."""

    def __init__(self, endpoint: Endpoint) -> None:
        import openai

        self.endpoint = endpoint
        self._sdk = openai
        self._client = openai.AsyncOpenAI(
            api_key=endpoint.api_key, base_url=endpoint.base_url, max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(verify=shared_tls_context()))
        self._create = self._client.chat.completions.create  # resolves the lazy resources now

    async def complete(self, system: str, turns: list[dict[str, str]],
                       timeout: float) -> Completion:
        messages = [{"role": "system", "content": system}, *turns]
        try:
            response = await self._create(
                model=self.endpoint.model, messages=messages,  # type: ignore[arg-type]
                timeout=timeout)
            text = response.choices[0].message.content or ""
        except self._sdk.APIError as exc:
            raise _translate(exc, self._sdk) from exc
        except (ValueError, LookupError, AttributeError) as exc:  # an unreadable response body
            raise ProviderFailure(f"unreadable response: {exc}") from exc
        usage = response.usage
        return Completion(text, usage.prompt_tokens if usage else 0,
                          usage.completion_tokens if usage else 0)

    async def aclose(self) -> None:
        await self._client.close()


class AnthropicProvider:
    """The Anthropic Messages API."""

    def __init__(self, endpoint: Endpoint) -> None:
        import anthropic

        self.endpoint = endpoint
        self._sdk = anthropic
        self._client = anthropic.AsyncAnthropic(
            api_key=endpoint.api_key, base_url=endpoint.base_url, max_retries=0,
            http_client=anthropic.DefaultAsyncHttpxClient(verify=shared_tls_context()))
        self._create = self._client.messages.create  # resolves the lazy resources now

    async def complete(self, system: str, turns: list[dict[str, str]],
                       timeout: float) -> Completion:
        try:
            response = await self._create(
                model=self.endpoint.model, max_tokens=ANTHROPIC_MAX_TOKENS, system=system,
                messages=turns,  # type: ignore[arg-type]
                timeout=timeout)
        except self._sdk.APIError as exc:
            raise _translate(exc, self._sdk) from exc
        except (ValueError, LookupError, AttributeError) as exc:
            raise ProviderFailure(f"unreadable response: {exc}") from exc
        text = "".join(getattr(block, "text", "") for block in response.content)
        return Completion(text, response.usage.input_tokens, response.usage.output_tokens)

    async def aclose(self) -> None:
        await self._client.close()
