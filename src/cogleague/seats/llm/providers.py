"""Model providers through their official async SDKs: `openai` and `anthropic`.

A provider turns (system text, chat turns, timeout) into a `Completion` or one of three errors
the seat acts on: `RateLimited` (HTTP 429: back off and try again within the budget),
`AuthRejected` (401/403: disable this endpoint for the episode) and `ProviderFailure`
(anything else: a transport failure the runner retries once). SDK-level retries are off
(`max_retries=0`): the runner's one retry and our 429 backoff are the only retry policy.

The seats of an episode that name the same endpoint share one client (`session.ModelEpisode`
makes it once and closes it when the last of them closes). Under the SDK the client sends
through `transport.LeanTransport` — a small asyncio HTTP/1.1 keep-alive pool, a fraction of the
client CPU of the SDK's own httpcore stack — unless a proxy is configured in the environment
(``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, any case) or ``COGLEAGUE_MODEL_TRANSPORT=sdk``:
then the SDK's own transport is kept (it honours proxies and ``NO_PROXY``), and the choice is
logged (INFO, once per client). All clients share one TLS context, whose construction is the
costly part.

Requests go through each SDK client's own `post` with the JSON body already encoded, and the
reply is read as the raw response: the SDK still builds the request (auth, headers, timeout),
sends it on its connection pool and maps every HTTP error onto its exception types, but skips
the per-request transform of the typed parameters and the pydantic model of the reply — about a
third of the client CPU of a request, which on one event loop is what delays the last of 64
requests of a step.

The SDKs are imported lazily: they are heavy, and a line-up without model seats never needs them.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import ssl
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

from cogleague.core.config import check_int
from cogleague.core.errors import ConfigError
from cogleague.core.model_limits import (
    DEFAULT_REPLY_TOKENS,
    MAX_REPLY_TOKENS,
    MIN_REPLY_TOKENS,
    PROVIDERS,
)
from cogleague.core.text import loads_reply, mend_surrogates
from cogleague.seats.llm.transport import MAX_RESPONSE_BYTES, too_large, transport_for

log = logging.getLogger(__name__)

API_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
LOCAL_SERVER_KEY = "unused"
"""Sent when a base URL is given without a key: local servers (vLLM, Ollama, llama.cpp) accept
any key, but the SDKs refuse to start without one."""
HTTP_LIBRARIES = ("httpx", "httpx2")
"""What the SDKs run on: httpx, or the httpx2 fork that later SDK versions ship."""
NOT_FOUND_HINT = (" (check that the base URL is the API's root: an OpenAI-compatible server's "
                  "usually ends in /v1, the Messages API's does not; and the model name)")
"""Said with a 404 whose body does not speak of the model: most likely no such route (a base URL
without its /v1), perhaps a model a terse server does not know. It names no URL: a recording
keeps the error's text and holds no URL."""
MODEL_NOT_FOUND_HINT = " (the server does not know this model: check the model name)"
"""Said with a 404 whose body speaks of the model (hosted providers, vLLM and Ollama name it):
the base URL reached the API, so it is not blamed."""
CHAT_PATHS = {"openai": "/chat/completions", "anthropic": "/v1/messages"}
"""Where each shape's requests go, under the base URL."""
PROXY_ENV = ("http_proxy", "https_proxy", "all_proxy")
"""Proxy settings (either case) that make the clients keep the SDK's own transport."""
TRANSPORT_ENV = "COGLEAGUE_MODEL_TRANSPORT"
"""``sdk`` keeps the SDK's own transport; unset or ``lean`` uses `transport.LeanTransport`."""


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    cut: bool = False
    """The reply stopped at the length limit (OpenAI's ``finish_reason`` ``length``, the
    Messages API's ``stop_reason`` ``max_tokens``), not where the model ended it."""


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
    api_key: str = field(repr=False)  # never in reprs: tracebacks with locals, logs


class Provider(Protocol):
    endpoint: Endpoint

    async def complete(self, system: str, turns: list[dict[str, str]], timeout: float,
                       max_reply_tokens: int = DEFAULT_REPLY_TOKENS) -> Completion: ...

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
    if base_url is not None and not base_url.lower().startswith(("http://", "https://")):
        # the SDKs cannot send to it, and would say only "connection error"
        raise ConfigError("base_url", f"base_url must be an http:// or https:// URL (got "
                                      f"{base_url!r})")
    if provider == "anthropic" and base_url is not None and (
            host := base_url.rstrip("/")).endswith("/v1"):
        # the SDK's path is /v1/messages: an OpenAI-style URL would 404 on every turn
        raise ConfigError("base_url", f"base_url for anthropic is the host, without /v1 "
                                      f"(requests go to BASE_URL/v1/messages): write "
                                      f"{host[:-3]} (got {base_url!r})")
    key = api_key or os.environ.get(API_KEY_ENV[provider]) or None
    if key is None:
        if base_url is None:
            return None  # a hosted provider without a key: not configured
        key = LOCAL_SERVER_KEY
    return Endpoint(provider, model, base_url, key)


def check_max_reply_tokens(value: int | None) -> int:
    """The reply-length cap of every request of a seat (None: `DEFAULT_REPLY_TOKENS`), sent as
    each SDK's typed call names it: ``max_completion_tokens`` to an OpenAI-compatible server,
    ``max_tokens`` to the Messages API. A reasoning model's hidden reasoning counts against it,
    so one that answers empty or cut at the default needs more."""
    if value is None:
        return DEFAULT_REPLY_TOKENS
    return check_int("max_reply_tokens", value, MIN_REPLY_TOKENS, MAX_REPLY_TOKENS)


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    """The platform's default verifying context (system CA store; SSL_CERT_FILE/DIR honoured)."""
    return ssl.create_default_context()


def proxy_configured(environ: Any = None) -> str | None:
    """The name of the first proxy variable set (non-empty) in the environment, or None."""
    env = os.environ if environ is None else environ
    for name in PROXY_ENV:
        for spelled in (name, name.upper()):
            if env.get(spelled):
                return spelled
    return None


def sdk_transport_reason() -> str | None:
    """Why the clients keep the SDK's own transport (None: they use `LeanTransport`)."""
    choice = os.environ.get(TRANSPORT_ENV, "").strip().lower()
    if choice == "sdk":
        return f"{TRANSPORT_ENV}=sdk"
    if choice not in ("", "lean"):
        raise ConfigError(TRANSPORT_ENV, f"{TRANSPORT_ENV} must be lean or sdk (got {choice!r})")
    proxy = proxy_configured()
    return f"{proxy} is set" if proxy is not None else None


def _log_sdk_transport(reason: str) -> None:
    log.info("model seats: %s, so requests go through the SDK's own HTTP transport "
             "(proxies honoured; more client CPU per request)", reason)


def http_client(sdk: ModuleType) -> Any:
    """The SDK's default async httpx client, on `LeanTransport` unless `sdk_transport_reason`."""
    reason = sdk_transport_reason()
    if reason is not None:
        _log_sdk_transport(reason)
        return sdk.DefaultAsyncHttpxClient(verify=shared_tls_context())
    lib = _http_library(sdk.DefaultAsyncHttpxClient)
    return sdk.DefaultAsyncHttpxClient(transport=transport_for(lib, shared_tls_context))


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


def speaks_of_model(body: str) -> bool:
    """Whether a 404's body is about the model (a name the server does not know) rather than
    the route: hosted providers (``model_not_found``, ``model: NAME``), vLLM and Ollama name
    the model; a missing route answers ``Not Found``, ``404 page not found`` or a page."""
    return "model" in body.lower()


def not_found_hint(exc: Any) -> str:
    """What to check after a 404, told apart as well as its body allows."""
    response = getattr(exc, "response", None)
    try:
        body = response.text if response is not None else ""
    except (RuntimeError, ValueError):  # unread (httpx's StreamError) or undecodable: no word
        body = ""
    return MODEL_NOT_FOUND_HINT if speaks_of_model(body) else NOT_FOUND_HINT


def _translate(exc: Exception, sdk: Any) -> ProviderError:
    """Map an SDK exception onto the three reactions."""
    if isinstance(exc, sdk.RateLimitError):
        return RateLimited(_retry_after(exc))
    if isinstance(exc, sdk.AuthenticationError | sdk.PermissionDeniedError):
        return AuthRejected(str(exc))
    cause = exc.__cause__  # the SDK's "Connection error." hides why; the transport's says it
    why = f" ({cause})" if isinstance(exc, sdk.APIConnectionError) and cause is not None else ""
    if isinstance(exc, sdk.NotFoundError):  # a wrong model or a wrong base URL: the body says
        why = not_found_hint(exc)
    return ProviderFailure(f"{type(exc).__name__}: {exc}{why}")


def _content(response: Any) -> bytes:
    """The body, refused past `MAX_RESPONSE_BYTES` once decoded (the lean transport refuses it
    on the wire; the SDK's own transport, kept under a proxy, and a compressed body do not)."""
    content: bytes = response.content
    if len(content) > MAX_RESPONSE_BYTES:
        raise ProviderFailure(f"unreadable response: {too_large(f'{len(content)} bytes')}")
    return content


class OpenAIProvider:
    """Any OpenAI-compatible chat-completions endpoint (hosted, vLLM, Ollama, llama.cpp)."""

    def __init__(self, endpoint: Endpoint) -> None:
        import openai

        self.endpoint = endpoint
        self._sdk = openai
        self._client = openai.AsyncOpenAI(
            api_key=endpoint.api_key, base_url=endpoint.base_url, max_retries=0,
            http_client=(http := http_client(openai)))
        self._response_type: Any = raw_response_type(http)
        # SDK versions with per-operation security send the key only where the operation asks
        # for bearer auth (as `chat.completions.create` does); older ones always send it
        self._options: Any = (
            {"security": {"bearer_auth": True}}
            if "security" in getattr(openai, "RequestOptions", dict).__annotations__ else {})

    def body(self, system: str, turns: list[dict[str, str]],
             max_reply_tokens: int = DEFAULT_REPLY_TOKENS) -> bytes:
        """The request body, encoded once before the request goes out."""
        messages = [{"role": "system", "content": system}, *turns]
        # the SDK's current name for the cap (OpenAI's reasoning models refuse the deprecated
        # max_tokens); a server that does not know it ignores it and answers uncapped
        return _encode({"model": self.endpoint.model, "messages": messages,
                        "max_completion_tokens": max_reply_tokens})

    async def complete(self, system: str, turns: list[dict[str, str]], timeout: float,
                       max_reply_tokens: int = DEFAULT_REPLY_TOKENS) -> Completion:
        return await self.send(self.body(system, turns, max_reply_tokens), timeout)

    async def send(self, body: bytes, timeout: float) -> Completion:
        try:
            response: Any = await self._client.post(
                "/chat/completions", cast_to=self._response_type, content=body,
                options={**self._options, "timeout": timeout})
            doc = loads_reply(_content(response))
            choice = doc["choices"][0]
            text = choice["message"]["content"] or ""
            usage = doc.get("usage") or {}
            return Completion(_text(text), _count(usage.get("prompt_tokens")),
                              _count(usage.get("completion_tokens")),
                              cut=choice.get("finish_reason") == "length")
        except self._sdk.APIError as exc:
            raise _translate(exc, self._sdk) from exc
        except (ValueError, LookupError, AttributeError, TypeError) as exc:  # unreadable body
            raise ProviderFailure(f"unreadable response: {exc}") from exc

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
            http_client=(http := http_client(anthropic)))
        self._response_type: Any = raw_response_type(http)

    def body(self, system: str, turns: list[dict[str, str]],
             max_reply_tokens: int = DEFAULT_REPLY_TOKENS) -> bytes:
        """The request body, encoded once before the request goes out."""
        return _encode({"model": self.endpoint.model, "max_tokens": max_reply_tokens,
                        "system": system, "messages": turns})

    async def complete(self, system: str, turns: list[dict[str, str]], timeout: float,
                       max_reply_tokens: int = DEFAULT_REPLY_TOKENS) -> Completion:
        return await self.send(self.body(system, turns, max_reply_tokens), timeout)

    async def send(self, body: bytes, timeout: float) -> Completion:
        try:
            response: Any = await self._client.post(
                "/v1/messages", cast_to=self._response_type, content=body,
                options={"timeout": timeout})
            doc = loads_reply(_content(response))
            text = "".join(block.get("text", "") for block in doc["content"]
                           if isinstance(block, dict))
            usage = doc.get("usage") or {}
            return Completion(_text(text), _count(usage.get("input_tokens")),
                              _count(usage.get("output_tokens")),
                              cut=doc.get("stop_reason") == "max_tokens")
        except self._sdk.APIError as exc:
            raise _translate(exc, self._sdk) from exc
        except (ValueError, LookupError, AttributeError, TypeError) as exc:
            raise ProviderFailure(f"unreadable response: {exc}") from exc

    async def aclose(self) -> None:
        await self._client.close()


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _encode(body: dict[str, Any]) -> bytes:
    """A request body as the SDKs would send it (UTF-8 JSON)."""
    return _ENCODER.encode(body).encode()


def _http_library(client_class: type) -> ModuleType:
    """The HTTP library (httpx, or httpx2 in the SDK versions that ship it) under an SDK's
    client class."""
    for cls in client_class.__mro__:  # the SDK subclasses the library's AsyncClient
        root = cls.__module__.partition(".")[0]
        if root in HTTP_LIBRARIES:
            return sys.modules[root]
    raise TypeError(f"{client_class.__name__} is not an httpx client")


def raw_response_type(client: Any) -> type:
    """The response class of the HTTP library under the SDK: `post(cast_to=…)` with it hands
    back the response itself, read, after the SDK's status checks."""
    response: type = _http_library(type(client)).Response
    return response


def _text(value: Any) -> str:
    """The reply text, a lone surrogate in it (a half character, escaped in the body) as
    U+FFFD: the text is shown back on a retry in a UTF-8 body, and written to transcripts."""
    if not isinstance(value, str):
        raise ValueError(f"reply text is {type(value).__name__}, not a string")
    return mend_surrogates(value)


def _count(value: Any) -> int:
    """A token count from the usage block (absent: 0). A negative one is not a count: 0, so a
    broken server cannot take tokens (and cost) off the seat's totals; the reply still reads."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"token count is {value!r}, not an integer")
    return max(value, 0)
