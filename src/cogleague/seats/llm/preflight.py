"""Check a model provider before an episode is played: a missing key, a refused key or an
unreachable endpoint must stop the command with one line, not turn into a plausible results
table played entirely by the fallback baseline.

A base URL that is not the API's root is one of those: with an OpenAI-compatible server's URL
missing its ``/v1``, every request answers 404. When the models list answers 404 (a wrong root,
or a server without that route), the request route itself is asked, with a body no server
answers with a completion (a model, no messages: no tokens); a 404 there that does not speak of
the model is a missing route, which stops the command naming ``base_url`` and, when the same URL
with ``/v1`` answers, that URL. A 404 that speaks of the model is a model the server does not
know: that stops it naming ``model``, never the base URL.

Faults during play keep the rules' fallback (retry once, then the game's baseline with the
cause recorded); this only catches what would make *every* turn fall back.
"""

from __future__ import annotations

import asyncio
import os
from types import ModuleType
from typing import Any

from cogleague.core.errors import ConfigError
from cogleague.seats.factory import ModelOptions
from cogleague.seats.llm.providers import (
    API_KEY_ENV,
    CHAT_PATHS,
    LOCAL_SERVER_KEY,
    PROVIDERS,
    raw_response_type,
    speaks_of_model,
)

CHECK_TIMEOUT_S = 10.0
"""How long the check waits for the endpoint to answer at all."""
DEFAULT_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


class ProviderUnavailable(ConfigError):
    """The provider cannot serve a single request; the message names the variable or URL."""

    def __init__(self, message: str) -> None:
        super().__init__("provider", message)


class ProviderUnreachable(ProviderUnavailable):
    """Nothing answered at the endpoint: wrong, or not started yet (a server that outlives it
    may go on; a command that plays now may not)."""


def configured(options: ModelOptions) -> bool:
    """Whether any provider is set up at all (without one, model seats fall back by design)."""
    return options.provider is not None


def check_provider(options: ModelOptions) -> None:
    """Raise `ProviderUnavailable` unless the provider accepts the key (synchronous form)."""
    asyncio.run(acheck_provider(options))


async def acheck_provider(options: ModelOptions) -> None:
    provider = options.provider
    if provider is None:
        return
    if options.recording is not None and options.recording_mode == "replay":
        return  # a pure replay answers from the recording: no key, no network
    if provider not in PROVIDERS:
        raise ConfigError("provider",
                          f"provider must be one of {', '.join(PROVIDERS)} (got {provider!r})")
    env = API_KEY_ENV[provider]
    key = options.api_key or os.environ.get(env) or None
    url = options.base_url or DEFAULT_URLS[provider]
    if key is None:
        if options.base_url is None:
            raise ProviderUnavailable(f"{env} is not set: model seats on {provider} need a key "
                                      f"(or --base-url for a local OpenAI-compatible server)")
        key = LOCAL_SERVER_KEY
    status = await _probe(provider, key, options.base_url)
    if status == "unreachable":
        raise ProviderUnreachable(f"cannot reach the model endpoint {url} (--base-url)")
    if status in ("401", "403"):
        source = "--api-key" if options.api_key else env
        raise ProviderUnavailable(f"{url} refused the key in {source} (HTTP {status})")
    if status == "404" and options.base_url is not None:
        await _check_route(provider, key, options.base_url, options.model or "")


async def _check_route(provider: str, key: str, base_url: str, model: str) -> None:
    """Raise a `ConfigError` on ``base_url`` when the request route is missing under it, or on
    ``model`` when the server answers 404 for the model."""
    where = base_url.rstrip("/") + CHAT_PATHS[provider]
    answer = await _route(provider, key, base_url, model)
    if answer == "model":
        raise ConfigError("model", f"model {model!r} is not served at {base_url}: it answered "
                                   f"404 naming the model at {where} (check --model against "
                                   "the server's models)")
    if answer != "missing":
        return
    said = f"base_url {base_url} is not the API's root: it answered 404 at {where} (no such route)"
    if provider == "anthropic":
        raise ConfigError("base_url", f"{said}; for anthropic it is the host, without /v1 "
                                      f"(requests go to BASE_URL/v1/messages)")
    root = base_url.rstrip("/")
    if not root.endswith("/v1") and await _route(provider, key, root + "/v1", model) != "missing":
        raise ConfigError("base_url", f"{said}, while {root}/v1 answers: write {root}/v1")
    raise ConfigError("base_url", f"{said}; an OpenAI-compatible server's root usually ends "
                                  "in /v1")


async def _route(provider: str, key: str, base_url: str, model: str) -> str:
    """``missing`` (404 not about the model), ``model`` (404 about it) or ``ok`` (anything
    else: the route exists; the body is refused, so no completion is made)."""
    sdk, client, http = _client(provider, key, base_url)
    try:
        await client.post(CHAT_PATHS[provider], cast_to=raw_response_type(http),
                          body={"model": model})
    except sdk.NotFoundError as exc:
        return "model" if speaks_of_model(exc.response.text) else "missing"
    except sdk.APIError:
        return "ok"
    finally:
        await client.close()
    return "ok"


def _client(provider: str, key: str, base_url: str | None) -> tuple[ModuleType, Any, Any]:
    """The SDK, a client of it for the check, and the client's own httpx client."""
    sdk: ModuleType  # either SDK: the calls and errors used here have the same names in both
    if provider == "openai":
        import openai

        sdk = openai
    else:
        import anthropic

        sdk = anthropic
    http = sdk.DefaultAsyncHttpxClient()
    maker = sdk.AsyncOpenAI if provider == "openai" else sdk.AsyncAnthropic
    client = maker(api_key=key, base_url=base_url, max_retries=0, timeout=CHECK_TIMEOUT_S,
                   http_client=http)
    return sdk, client, http


async def _probe(provider: str, key: str, base_url: str | None) -> str:
    """``ok``, ``401``/``403``, ``404`` or ``unreachable``. The probe lists the models: cheap,
    needs the key, and is answered (even with 404, by servers without that route, or under a
    base URL that is not the API's root) by anything alive."""
    sdk, client, _ = _client(provider, key, base_url)
    try:
        await client.models.list()
    except sdk.APIConnectionError:  # includes timeouts
        return "unreachable"
    except (sdk.AuthenticationError, sdk.PermissionDeniedError) as exc:
        return str(exc.status_code)
    except sdk.NotFoundError:
        return "404"
    except sdk.APIStatusError:
        return "ok"  # it answered: alive, and the key was not refused outright
    finally:
        await client.close()
    return "ok"
