"""Season tests run real server processes (tests/server/support.py) on SQLite files."""

from server.conftest import make_server  # noqa: F401  (the fixture)
