"""The bounds of an agent's settings, in a module of its own: the server checks them
(`agents.py`, `agent_api.py`) and the command line words its options with them without
loading the server."""

MAX_CAP = 64
"""The most tables one agent plays at once."""
MAX_DESCRIPTION = 2000
"""The longest description an agent's page shows, in characters."""
