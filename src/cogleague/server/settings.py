"""Server settings: one object, built by `cogleague serve` or by tests, read everywhere else.

Every limit the protocol names (frame size, move rate, open tables per account, start timeout,
ping interval) lives here once, so tests can shrink it and operators can tune it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_DB_URL = "sqlite:///cogleague-server.db"

MAX_FRAME_BYTES = 64 * 1024
"""protocol.md §3: a frame over 64 KiB is refused with `too_large`."""

TRANSPORT_MAX_FRAME_BYTES = 4 * 1024 * 1024
"""What uvicorn accepts at all; frames between the two limits get a `too_large` error frame,
frames above it close the socket (1009)."""

PING_INTERVAL_S = 15.0
"""protocol.md §3: the server pings every 15 s."""


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
    """The WebSocket protocol's own pings (below the table protocol's `ping` frames)."""
    ws_ping_timeout_s: float = 20.0
    """A WebSocket whose pong is this late is closed."""
    create_db: bool = False
    """Create the schema in a database that exists but is empty (a zero-byte SQLite file, or
    tables without data); without it such a database is refused at start (`integrity.py`)."""

    season: str | None = None
    """A league file with a ``[season]`` table: the standing season this server runs
    (agents, matchmaker, live ratings; docs/league.md). None: agents only, no matchmaking."""
