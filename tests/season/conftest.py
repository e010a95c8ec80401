"""Season tests run real server processes (tests/server/support.py) on SQLite files or a
throwaway PostgreSQL, and Chromium for the League pages (tests/web/conftest.py)."""

from server.conftest import make_server  # noqa: F401  (fixtures)
from web.conftest import browser, open_page  # noqa: F401
