"""The game descriptor: everything a host may know about a game, declared once by the game.

The server, the league, the CLI, the web shell, the replay tools and the RL environments see a
game only through its `GameDescriptor` and the `Game` protocol (`core/game.py`); none of them
names a game. A game package exposes one descriptor and registers it under the Python
entry-point group ``cogleague.games`` (`games/registry.py` loads them); the three built-in
games register exactly like a third-party package.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogleague.core.seat import SEAT_KINDS as _SEAT_KINDS

if TYPE_CHECKING:  # pydantic only names the options' type: the registry loads without it
    from pydantic import BaseModel

    from cogleague.core.episode import EpisodeOutcome
    from cogleague.core.game import Action, Event, Game, Turn
    from cogleague.core.replay import EpisodeLog

# What a seat is, as a game's `make` hears it (a game may seat model or remote seats
# differently, e.g. Ledger records each seat's driver in its config).
SEAT_KINDS = _SEAT_KINDS

MakeGame = Callable[[str | None, Mapping[str, Any], int | None, Sequence[str],
                     Sequence[str] | None], "Game"]
"""``make(variant, overrides, seed, policy_names, seat_kinds)`` → a ready game; raises
`ConfigError` naming the field. `seat_kinds` (per seat ``scripted:<baseline>`` or one of
`SEAT_KINDS` but ``scripted``; None when every seat is named by a line-up string, and the
names then say how each decides) lets a game record how each seat decides while its policy
names are free text (a server's account names)."""

SeatExtras = Callable[[Mapping[str, Any], int], dict[str, float | None]]
Series = Callable[["Game", "EpisodeOutcome", int], dict[str, Any] | None]


@dataclass(frozen=True)
class Column:
    """One extra column in CLI results tables or league standings.

    `key` names the per-seat value: ``results[key][seat]`` or ``results["seats"][seat][key]``
    (see `per_seat`) for CLI tables; a key of `seat_extras`' dict for standings."""

    key: str
    label: str
    fmt: str = "{:.2f}"

    def to_json(self) -> dict[str, str]:
        """For the web pages: its key, its label, and whether its values are percentages."""
        return {"key": self.key, "label": self.label,
                "format": "percent" if "%" in self.fmt else "number"}

    def render(self, value: Any) -> str:
        if value is None:
            return "—"
        if isinstance(value, bool) or not isinstance(value, int | float):
            return str(value)
        return self.fmt.format(value)


@dataclass(frozen=True)
class PaidTables:
    """The capability to play for credits: every seat stakes, the pot (after the rake) is split
    in proportion to the seats' integer scores when the game ends with a `settled_reasons`
    reason; any other end refunds every stake."""

    stake_field: str = "stake"
    rake_field: str = "rake_bps"
    settled_reasons: tuple[str, ...] = ("complete", "deadline")


DEFAULT_CONNECT_TIMEOUT_S = 180.0
"""How long a host waits for a game's first seat to connect when the game declares the
ending but no option holding the seconds (Commons Family's own default)."""


@dataclass(frozen=True)
class ConnectTimeout:
    """The capability to end an episode nobody came to play (`core/connect.py`): when, after
    the start, no seat that must connect has connected within `seconds`, the host ends the
    episode before its first round with ``game.stop(reason)``.

    `option` names the option holding the seconds (read from ``game.public_config()``), so a
    table's config sets it; None, or the option unset: `default_s`."""

    option: str | None = None
    default_s: float = DEFAULT_CONNECT_TIMEOUT_S
    reason: str = "no_players"

    def seconds(self, game: Game) -> float:
        value = game.public_config().get(self.option) if self.option is not None else None
        if value is None:
            return self.default_s
        return float(value)


RandomReply = Callable[["Turn", random.Random], Any]
SealedVariants = Callable[["Turn", "Action", random.Random], Sequence[tuple[Any, str]]]
StepPayoffs = Callable[["Event"], Mapping[int, float] | None]
ScoreOf = Callable[[Sequence[float]], float]


@dataclass(frozen=True)
class Conformance:
    """What a game declares so `cogleague.testing.check_game` can play it adversarially.

    `random_reply(turn, rng)`: a raw reply (what a remote seat would send) drawn from `rng`,
    legal for `turn` — uniform over the legal actions where that is cheap; the suite plays
    such seats through the runner (so `parse` sees every reply) over many seeds.

    `sealed_variants(turn, action, rng)`: replies that differ from the logged `action` only in
    what the rules keep from every other seat, each with how long: ``"round"`` (hidden until
    the round that holds the turn closes, e.g. a simultaneous move or the dilemma's choice) or
    ``"never"`` (hidden from every other seat for the rest of the episode, e.g. a private
    memo). The non-interference check plays both and requires every other seat's views and
    event frames to stay byte-identical for that long. None: the check is skipped.

    `step_payoffs(event)`: the payoffs `event` reports, ``{seat: payoff}``, or None when it
    reports none (e.g. the dilemma's ``choices_revealed``: both seats' points). `score_of`
    turns one seat's reported payoffs, in order, into its score (None: their sum; Ledger would
    give the median). The scores check requires every seat's result score to equal it, so a
    score that ignores a rule the events show fails. None: the check is skipped."""

    random_reply: RandomReply | None = None
    sealed_variants: SealedVariants | None = None
    step_payoffs: StepPayoffs | None = None
    score_of: ScoreOf | None = None


@dataclass(frozen=True)
class GameDescriptor:
    """What hosts need to know about one game. See the module docstring."""

    name: str
    version: str
    """The rules version (``dilemma-0.1``), published in `GET /games` and every replay."""
    title: str
    options: type[BaseModel]
    """The user-settable config (a `core.options.GameOptions` model): CLI options, the
    server's JSON Schema and validation all come from it."""
    make: MakeGame
    variants: Sequence[str]
    default_variant: str | None
    seat_range: tuple[int, int]
    baselines: Sequence[str]
    fallback_baseline: str
    default_lineup: Callable[[str | None], list[str]]
    replay_format: str
    replay_document: Callable[[Game, EpisodeLog], dict[str, Any]]
    """The replay document of a finished game, as every host writes it."""
    game_from_replay: Callable[[Mapping[str, Any]], Game] | None = None
    """A fresh game built from a replay document's config, seed and seats (raises
    `ReplayError` when they do not build one): the one verifier re-applies the document's log
    to it and compares the result byte for byte (`core/verify.py`)."""
    rules_file: Path | None = None
    viewer: Path | None = None
    """The Theater's ES module for this game (served at ``/static/js/games/<name>.js``); None:
    the generic renderer (timeline, scores, per-seat feed)."""
    tagline: str = ""
    """One plain sentence on what the game is (`cogleague games`, fits one 80-column line
    beside the name); empty: the title alone."""
    example_bot: str | None = None
    """The ``FILE.py:Class`` the Lobby's copyable `cogleague bot run` command seats, also shown
    to a signed-in person beside their API key (a path in the repository's checkout); None:
    the command shows ``MODULE:CLASS``."""
    starter: Path | None = None
    """A commented starter bot (`cogleague bot new`): Python source with ``{cls}``, ``{name}``,
    ``{path}`` and ``{test}`` placeholders (`str.format`; literal braces doubled)."""
    seats_for: Callable[[str | None, Mapping[str, Any]], int] | None = None
    """How many seats a table of this variant has before its line-up is known (default:
    the minimum of `seat_range`)."""
    replay_sort_keys: bool = False
    """Write the replay with sorted keys (a format's own canonical form)."""
    replay_bytes: Callable[[Game, EpisodeLog], bytes] | None = None
    """The replay document's canonical bytes (``jsonio.dumpb(replay_document(…),
    sort_keys=replay_sort_keys)``, the same bytes) written without building the document,
    where the game can; None: the document is built and encoded (`replay_json`)."""
    replay_optional_keys: tuple[str, ...] = ()
    """Top-level replay keys a document may omit (rebuildable views such as Ledger's
    ``frames``); when present they must re-derive like the rest."""
    paid_tables: PaidTables | None = None
    spectator_secrets: frozenset[str] = frozenset()
    """Keys live spectators never see while a table plays, at any depth of the spectator
    state and of public events (Ledger's memos: their author's alone until the replay). The
    server's one spectator filter (`server/audience.py`) reads it."""
    connect_timeout: ConnectTimeout | None = None
    """The ``no_players`` ending (`ConnectTimeout`); None: the game has no such ending and
    its tables play whoever connects, or nobody."""
    model_prompts: bool = False
    """The game renders a prompt for language-model seats (`Turn.prompt_text`)."""
    grade: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    """A grader of replay documents (`cogleague grade`), if the game has one."""
    result_columns: tuple[Column, ...] = ()
    """Per-seat columns of the CLI's results table, after rank, alias, policy and score."""
    summary: Callable[[Game, Mapping[str, Any]], list[str]] | None = None
    """Lines printed under the CLI's results table (rings flagged, the resource's course…)."""
    headline: Callable[[Game], list[str]] | None = None
    """The CLI's lines before play (variant, seed, rounds, aliases…)."""
    score_label: str = "score"
    score_fmt: str = "{:g}"
    standings_columns: tuple[Column, ...] = ()
    seat_extras: SeatExtras | None = None
    """Per-seat values for `standings_columns`, from one episode's results."""
    series: Series | None = None
    """One small per-round curve per episode for league reports, ``series(game, outcome,
    seats)`` after the episode: read from what the game keeps as it plays (its per-round
    records), not from the log's events, which a headless episode never renders."""
    league_example: Mapping[str, Any] = field(default_factory=dict)
    """How the game appears in the example league `cogleague league init` writes:
    ``{"archetypes": {archetype: baseline}, "table": {variants, seats, episodes…}}`` — the
    archetypes (``reciprocator``, ``defector``…) are the cross-game policies the example
    ranks. Empty: the game is left out of the example."""
    fixed_by_variant: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Values a variant's rules fix (Ledger's certification: seed 7, 6 rounds): ``{variant:
    {"seed": 7, option: value}}``. A table of that variant takes them or nothing."""
    rule_numbers: Mapping[str, Any] = field(default_factory=dict)
    """Rule constants the web pages show (limits, maxima), served instead of restated."""
    human_config: Mapping[str, Any] = field(default_factory=dict)
    """Options a table made for people takes unless its creator sets them (the server's
    ``people`` tables): deadlines a person can meet where the defaults are sized for bots."""
    human_deadline_s: float | None = None
    """The seconds a person has for one turn at such a table, told before joining (the rules'
    own deadline where they give one, else the game's human deadline)."""
    conformance: Conformance | None = None
    """How the conformance suite (`cogleague.testing`) may play the game beyond its
    baselines: random legal replies and sealed variations. None: baselines only."""
    extras: Mapping[str, Any] = field(default_factory=dict)
    """Further capabilities other parts declare (e.g. ``rl`` for the RL environments)."""
    origin: str = ""
    """Where the loader found it (``entry point ledger = cogleague.games.ledger:GAME (cogleague
    0.1.0)``); set by the registry."""

    @property
    def seed_max(self) -> int:
        """The largest seed the game plays: `SEED_MAX` unless its rules narrow it
        (``rule_numbers["seed_max"]``, Ledger's 2^31 - 1)."""
        from cogleague.core.rng import SEED_MAX

        return int(self.rule_numbers.get("seed_max", SEED_MAX))

    @property
    def capabilities(self) -> list[str]:
        caps = []
        if self.paid_tables is not None:
            caps.append("paid_tables")
        if self.model_prompts:
            caps.append("model_prompts")
        if self.grade is not None:
            caps.append("grader")
        caps.extend(sorted(self.extras))
        return caps

    def replay_json(self, game: Game, log: EpisodeLog) -> bytes:
        """The replay's canonical bytes, as every host writes them (`replay_bytes` where the
        game has it, else the document encoded)."""
        if self.replay_bytes is not None:
            return self.replay_bytes(game, log)
        from cogleague.core import jsonio

        return jsonio.dumpb(self.replay_document(game, log), sort_keys=self.replay_sort_keys)

    def seats_of(self, variant: str | None, overrides: Mapping[str, Any]) -> int:
        """How many seats a table of this variant has (used before the line-up is known)."""
        if self.seats_for is not None:
            return int(self.seats_for(variant, overrides))
        return self.seat_range[0]

    def new_game(self, variant: str | None = None, overrides: Mapping[str, Any] | None = None,
                 seed: int | None = None, policy_names: Sequence[str] | None = None,
                 seat_kinds: Sequence[str] | None = None) -> Game:
        """A ready game; `policy_names` default to the variant's default line-up."""
        names = list(policy_names) if policy_names else self.default_lineup(variant)
        return self.make(variant, dict(overrides or {}), seed, names, seat_kinds)

    def describe(self) -> dict[str, Any]:
        """The public description (`GET /games`, `cogleague games --json`)."""
        return {"name": self.name, "title": self.title, "rules_version": self.version,
                "variants": list(self.variants), "default_variant": self.default_variant,
                "baselines": list(self.baselines), "seat_range": list(self.seat_range),
                "fallback_baseline": self.fallback_baseline, "tagline": self.tagline,
                "example_bot": self.example_bot, "paid_tables": self.paid_tables is not None,
                "capabilities": self.capabilities, "replay_format": self.replay_format,
                "viewer": f"/static/js/games/{self.name}.js" if self.viewer else None,
                "rules": f"/rules/{self.name}", "rule_numbers": dict(self.rule_numbers),
                "human": {"config": dict(self.human_config),
                          "deadline_s": self.human_deadline_s},
                "connect_timeout": None if self.connect_timeout is None else {
                    "reason": self.connect_timeout.reason,
                    "option": self.connect_timeout.option,
                    "default_s": self.connect_timeout.default_s},
                "options": self.options.model_json_schema(), "origin": self.origin}


def per_seat(results: Mapping[str, Any], key: str, seat: int) -> Any:
    """`results[key][seat]`, or `results["seats"][seat][key]` for games that nest per seat."""
    value = results.get(key)
    if isinstance(value, list) and seat < len(value):
        return value[seat]
    seats = results.get("seats")
    if isinstance(seats, list) and seat < len(seats) and isinstance(seats[seat], Mapping):
        return seats[seat].get(key)
    return None
