"""Model-seat fixtures: the provider test server (`helpers/provider_fixtures.py`)."""

from helpers.provider_fixtures import provider_server, server, shape

__all__ = ["provider_server", "server", "shape"]
