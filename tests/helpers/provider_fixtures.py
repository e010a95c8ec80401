"""The provider test server as pytest fixtures, shared by the model-seat and profile tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers.provider_server import ProviderServer, Reply


@pytest.fixture(scope="session")
def provider_server() -> Iterator[ProviderServer]:
    with ProviderServer() as server:
        yield server


@pytest.fixture
def server(provider_server: ProviderServer) -> ProviderServer:
    """The session's provider test server, its record and script reset for this test."""
    provider_server.reset(lambda _req: Reply())
    return provider_server


@pytest.fixture(params=["openai", "anthropic"])
def shape(request: pytest.FixtureRequest) -> str:
    """Both wire shapes, through their official SDKs."""
    return str(request.param)
