"""Check a model provider before an episode is played: a missing key, a refused key or an
unreachable endpoint must stop the command with one line, not turn into a plausible results
table played entirely by the fallback baseline.

Faults during play keep the rules' fallback (retry once, then the game's baseline with the
cause recorded); this only catches what would make *every* turn fall back.
"""

from __future__ import annotations

import asyncio
import os
from types import ModuleType

from cogleague.core.errors import ConfigError
from cogleague.seats.factory import ModelOptions
from cogleague.seats.llm.providers import API_KEY_ENV, LOCAL_SERVER_KEY, PROVIDERS

CHECK_TIMEOUT_S = 10.0
"""How long the check waits for the endpoint to answer at all."""
DEFAULT_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


class ProviderUnavailable(ConfigError):
    """The provider cannot serve a single request; the message names the variable or URL."""

    def __init__(self, message: str) -> None:
        super().__init__("provider", message)


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
        raise ProviderUnavailable(f"cannot reach the model endpoint {url} (--base-url)")
    if status in ("401", "403"):
        source = "--api-key" if options.api_key else env
        raise ProviderUnavailable(f"{url} refused the key in {source} (HTTP {status})")


async def _probe(provider: str, key: str, base_url: str | None) -> str:
    """``ok``, ``401``/``403`` or ``unreachable``. The probe lists the models: cheap, needs the
    key, and is answered (even with 404, by servers without that route) by anything alive."""
    sdk: ModuleType  # either SDK: the calls and errors below have the same names in both
    if provider == "openai":
        import openai

        sdk = openai
        client: object = sdk.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0,
                                         timeout=CHECK_TIMEOUT_S)
    else:
        import anthropic

        sdk = anthropic
        client = sdk.AsyncAnthropic(api_key=key, base_url=base_url, max_retries=0,
                                    timeout=CHECK_TIMEOUT_S)
    try:
        await client.models.list()  # type: ignore[attr-defined]
    except sdk.APIConnectionError:  # includes timeouts
        return "unreachable"
    except (sdk.AuthenticationError, sdk.PermissionDeniedError) as exc:
        return str(exc.status_code)
    except sdk.APIStatusError:
        return "ok"  # it answered: alive, and the key was not refused outright
    finally:
        await client.close()  # type: ignore[attr-defined]
    return "ok"
