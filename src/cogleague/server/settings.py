"""Server settings: one object, built by `cogleague serve` or by tests, read everywhere else.

Every limit the protocol names (frame size, move rate, open tables per account, start timeout,
ping interval) lives here once, so tests can shrink it and operators can tune it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from cogleague.core.config import check_bool, check_choice, check_int
from cogleague.core.errors import ConfigError
from cogleague.core.model_limits import MAX_REPLY_TOKENS, MIN_REPLY_TOKENS, PROVIDERS
from cogleague.core.settlement import BPS

DEFAULT_DB_URL = "sqlite:///cogleague-server.db"

MAX_FRAME_BYTES = 64 * 1024
"""protocol.md §3: a frame over 64 KiB is refused with `too_large`."""

WS_PING_MAX_S = 600.0
"""The top of `ws_ping_interval_s` and `ws_ping_timeout_s`: a silently dead socket is let go
within 20 minutes whatever the configuration (40 s by default)."""
TRANSPORT_MAX_FRAME_BYTES = 4 * 1024 * 1024
"""What uvicorn accepts at all; frames between the two limits get a `too_large` error frame,
frames above it close the socket (1009)."""

PING_INTERVAL_S = 15.0
"""protocol.md §3: the server pings every 15 s."""

OUTBOX_MAX_BYTES = 4 * 1024 * 1024
"""The bytes of frames one socket may have queued and unread (about a hundred Ledger frames)
before it is deemed dead and closed (`play.SocketConn`)."""

RECORDING_MODES = ("record", "replay", "replay_or_live")
SQLITE_SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")


class SettingsClash(ConfigError):
    """Two fields each in range but not together: `field`, refused, and the `others` its range
    depends on, so a caller that knows where each value came from can name it
    (`settings_source.build`)."""

    def __init__(self, field: str, message: str, others: tuple[str, ...]) -> None:
        super().__init__(field, message)
        self.others = others


@dataclass
class Settings:
    """Everything `create_app` needs. Times are seconds, limits are per connection/account."""

    db_url: str = DEFAULT_DB_URL
    operator_key: str | None = None
    open_registration: bool = False
    web_signup: bool = True
    """People may sign themselves up with a password in the browser (server/people.py);
    `cogleague serve --no-web-signup` turns it off (accounts then come from the operator)."""
    start_timeout_s: float = 600.0
    max_start_timeout_s: float = 7 * 24 * 3600.0
    ping_interval_s: float = PING_INTERVAL_S
    max_frame_bytes: int = MAX_FRAME_BYTES
    moves_per_second: float = 50.0
    move_burst: int = 100
    outbox_max_bytes: int = OUTBOX_MAX_BYTES
    """The bytes of frames one socket may have queued and unread before it is closed (1008),
    as it is past 10,000 frames (`play.OUTBOX_LIMIT`): a reader that stopped must not hold
    the process's memory."""
    max_open_tables_per_account: int = 20
    sign_in_failures: int = 5
    sign_in_window_s: float = 900.0
    """A name's browser sign-in refuses (429) after this many failures in this window, until
    the oldest of them is that old (`sign_in_guard.py`)."""
    sign_ins_per_client: int = 100
    """A client address's sign-in tries (`POST /session`, each an scrypt check, successes
    included) within `sign_in_window_s`, at any names; more get 429 until the oldest is that
    old: one address cannot try a password at every name, nor keep the CPU busy."""
    sign_ups_per_client: int = 20
    sign_up_window_s: float = 3600.0
    """A client address's self sign-ups (`POST /people`, each an scrypt hash and an account)
    within this window; more get 429 until the oldest is that old (`sign_in_guard.py`)."""
    key_recheck_s: float = 15.0
    """How often, at most, a process re-reads the keys of its open agent sockets' accounts and
    closes those opened with a key that was replaced: a missed ``keys:`` notice (key_watch.py)
    leaves an old key's socket open this long at most (plus a ping interval); the accounts
    a process caches by key are forgotten as often (lobby.py)."""
    session_sweep_every_s: float = 600.0
    """How often, at most, a sign-in deletes every expired browser session (people.py)."""
    games: list[str] | None = None
    """Serve only these installed games (None: every installed game)."""
    extra_games: dict[str, str] = field(default_factory=dict)
    """Test/extension games: name → import path of a module exposing `GAME: GameDescriptor`."""
    record_league: bool = True
    """Feed finished tables into `cogleague.league.store.record_episode` when it exists."""
    policy_dir: str | None = None
    """The folder of trained policy files (`.npz`, docs/rl.md) the operator hosts: a join of
    kind ``policy`` names a file in it (operator key only); None: no policy seats."""
    model_provider: str | None = None
    model_name: str | None = None
    model_base_url: str | None = None
    model_max_reply_tokens: int | None = None
    """The reply-length cap of every served model seat's requests (None: the seats' default,
    `core/model_limits.DEFAULT_REPLY_TOKENS`)."""
    model_recording: str | None = None
    """A directory to record every model seat's calls to (or replay them from), one file per
    table (`seats/llm/recording.py`); None: neither."""
    model_recording_mode: str = "record"
    """``record`` | ``replay`` | ``replay_or_live`` for `model_recording`."""
    tune_gc: bool = True
    """Raise the garbage collector's young-generation threshold once started (`app.tune_gc`);
    it is process-wide, so an embedding application may turn it off."""
    sqlite_synchronous: str = "NORMAL"
    """WAL + NORMAL survives a killed process (the WAL is in the OS); FULL also survives power
    loss at the cost of an fsync per commit."""
    node_url: str | None = None
    """Where other processes send this process's seats (``http://host:port`` as they can
    reach it); `cogleague serve` sets it from --host/--port or --node-url."""
    lease_ttl_s: float = 5.0
    """A running table's lease lapses this long after its owner's last renewal; another
    process then takes the table over (leases.py)."""
    lease_renew_s: float = 1.0
    """How often a process renews its leases and looks for lapsed ones."""
    max_connections: int = 4096
    """Connections this process serves at once (HTTP and WebSocket); more get a 503 and a
    close (`serving.py`)."""
    max_connections_per_client: int = 256
    """Connections one client address may hold at once; more get a 503 and a close."""
    header_timeout_s: float = 10.0
    """A connection must send a complete request head this long after it opened or after its
    last response, else it is closed."""
    body_timeout_s: float = 30.0
    """A request body must arrive within this many seconds, else 408 (`limits.py`)."""
    max_body_bytes: int = 1024 * 1024
    """A request body may be at most this long, chunked or not, else 413 (`limits.py`)."""
    ws_ping_interval_s: float = 20.0
    """The WebSocket protocol's own pings (below the table protocol's `ping` frames): how a
    peer that died silently (half-open TCP, a frozen program) is found. At most
    `WS_PING_MAX_S`."""
    ws_ping_timeout_s: float = 20.0
    """A WebSocket whose pong is this late is closed, and its app side let go (an agent goes
    offline): within ``ws_ping_interval_s + ws_ping_timeout_s`` of the peer's last pong. At
    most `WS_PING_MAX_S`."""
    create_db: bool = False
    """Create the schema in a database that exists but is empty (a zero-byte SQLite file, or
    tables without data); without it such a database is refused at start (`integrity.py`)."""

    rake_bps: int | None = None
    """The house's rake on paid tables, in basis points of the pot (0..10000; a game refuses
    more than its own maximum, the dilemma's 2000): every paid table a player makes takes it,
    and a player's table that asks for another is refused (`TableService._house_rake`); the
    operator's own tables may set theirs. None: each game's default (the dilemma's 500)."""

    season: str | None = None
    """A league file with a ``[season]`` table: the standing season this server runs
    (agents, matchmaker, live ratings; docs/league.md). None: agents only, no matchmaking."""

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Refuse a bad value at once, naming the field and its range (`ConfigError`): an
        operator's typo must fail at start-up, not as a busy loop or a lease that never
        holds. Called when Settings are made and again by `create_app` (a test or an
        embedding application may have assigned a field since)."""
        for name in POSITIVE_NUMBERS:
            _positive_number(name, getattr(self, name))
        for name in POSITIVE_COUNTS:
            _positive_count(name, getattr(self, name))
        for name in FLAGS:
            check_bool(name, getattr(self, name))
        if not isinstance(self.session_sweep_every_s, int | float) or isinstance(
                self.session_sweep_every_s, bool) or not math.isfinite(
                self.session_sweep_every_s) or self.session_sweep_every_s < 0:
            raise ConfigError("session_sweep_every_s", "session_sweep_every_s must be a "
                              f"number of 0 or more (got {self.session_sweep_every_s!r})")
        if self.lease_ttl_s <= self.lease_renew_s:
            raise SettingsClash("lease_ttl_s", "lease_ttl_s must be a number above lease_renew_s "
                                f"({self.lease_renew_s:g}) (got {self.lease_ttl_s!r})",
                                ("lease_renew_s",))
        if self.max_start_timeout_s < self.start_timeout_s:
            raise SettingsClash("max_start_timeout_s", "max_start_timeout_s must be a number of "
                                f"start_timeout_s ({self.start_timeout_s:g}) or more "
                                f"(got {self.max_start_timeout_s!r})", ("start_timeout_s",))
        for name in ("ws_ping_interval_s", "ws_ping_timeout_s"):
            if getattr(self, name) > WS_PING_MAX_S:
                raise ConfigError(name, f"{name} must be a number above 0 and at most "
                                        f"{WS_PING_MAX_S:g} (got {getattr(self, name)!r})")
        if self.max_frame_bytes > TRANSPORT_MAX_FRAME_BYTES:
            raise ConfigError("max_frame_bytes", "max_frame_bytes must be an integer in "
                              f"1..{TRANSPORT_MAX_FRAME_BYTES} (got {self.max_frame_bytes!r})")
        if self.max_connections_per_client > self.max_connections:
            raise SettingsClash("max_connections_per_client", "max_connections_per_client "
                                "must be an integer in 1..max_connections "
                                f"({self.max_connections}) "
                                f"(got {self.max_connections_per_client!r})",
                                ("max_connections",))
        check_choice("sqlite_synchronous", self.sqlite_synchronous, SQLITE_SYNCHRONOUS)
        check_choice("model_recording_mode", self.model_recording_mode, RECORDING_MODES)
        if self.model_provider is not None:
            check_choice("model_provider", self.model_provider, PROVIDERS)
        if self.model_max_reply_tokens is not None:
            check_int("model_max_reply_tokens", self.model_max_reply_tokens, MIN_REPLY_TOKENS,
                      MAX_REPLY_TOKENS)
        if self.rake_bps is not None:
            check_int("rake_bps", self.rake_bps, 0, BPS)
        _db_url(self.db_url)
        if self.node_url is not None:
            _node_url(self.node_url)


POSITIVE_NUMBERS = ("start_timeout_s", "max_start_timeout_s", "ping_interval_s",
                    "moves_per_second", "sign_in_window_s", "sign_up_window_s", "key_recheck_s",
                    "lease_ttl_s", "lease_renew_s", "header_timeout_s", "body_timeout_s",
                    "ws_ping_interval_s", "ws_ping_timeout_s")
"""Seconds and rates: above 0 (a zero interval is a busy loop, a zero timeout refuses all)."""
POSITIVE_COUNTS = ("max_frame_bytes", "move_burst", "outbox_max_bytes",
                   "max_open_tables_per_account", "sign_in_failures", "sign_ins_per_client",
                   "sign_ups_per_client", "max_connections", "max_connections_per_client",
                   "max_body_bytes")
FLAGS = ("open_registration", "web_signup", "record_league", "tune_gc", "create_db")


def _positive_number(name: str, value: Any) -> float:
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not math.isfinite(value) or value <= 0):
        raise ConfigError(name, f"{name} must be a number above 0 (got {value!r})")
    return float(value)


def _positive_count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(name, f"{name} must be an integer of 1 or more (got {value!r})")
    return value


DB_URL_FORMS = "sqlite:///FILE or postgresql://USER@HOST/DATABASE"


def _db_url(url: Any) -> None:
    """An SQLite or PostgreSQL URL (a bare file path is the likeliest mistake: SQLAlchemy's
    own answer to it, "Could not parse SQLAlchemy URL", does not say what to write)."""
    from sqlalchemy.engine import make_url  # SQLAlchemy is the store's: loaded anyway
    from sqlalchemy.exc import ArgumentError

    try:
        driver = make_url(url).drivername if isinstance(url, str) and url else ""
    except (ArgumentError, ValueError):
        driver = ""
    if driver.split("+")[0] not in ("sqlite", "postgresql", "postgres"):
        raise ConfigError("db_url", f"db_url must be {DB_URL_FORMS} (got {url!r})")
    from cogleague.server.sqlite_lock import sqlite_file

    if driver.startswith("sqlite") and sqlite_file(url) is None:  # each connection its own
        raise ConfigError("db_url", "db_url must name an SQLite file (sqlite:///FILE): an "
                          "in-memory database is not shared by the server's connections and "
                          f"keeps nothing (got {url!r})")


def _node_url(url: Any) -> None:
    """``http://host:port`` with a port in 1..65535: other processes send seats there."""
    try:
        parts = urlsplit(url) if isinstance(url, str) else None
        port = parts.port if parts is not None else None
        fine = (parts is not None and parts.scheme in ("http", "https")
                and bool(parts.hostname) and (port is None or 1 <= port <= 65535))
    except ValueError:  # urlsplit's answer to a port out of range or not a number
        fine = False
    if not fine:
        raise ConfigError("node_url", "node_url must be http://HOST:PORT with a port in "
                          f"1..65535 (got {url!r})")
