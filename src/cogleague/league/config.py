"""The league definition: a TOML file read with `tomllib`, validated into `LeagueConfig`.

Every mistake is a `ConfigError` whose message starts with the field's path (``games[1].seats
must be an integer in 2..8 (got 9)``); unknown keys are errors, never ignored. The shape is
documented, with comments, in `example.toml` (``cogleague league init`` writes it).
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogleague.core.config import check_bool, check_choice, check_int, check_str, reject_unknown
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError
from cogleague.core.options import validate_options
from cogleague.core.rng import SEED_MAX
from cogleague.league import heldout, store
from cogleague.league.episodes import EpisodeSpec, SeatRef, derive_seed
from cogleague.league.games import resolve_game
from cogleague.league.house import parse_copies
from cogleague.league.policies import Policy, add_python_path, import_bot
from cogleague.league.season import SeasonSettings, parse_season
from cogleague.league.seating import balanced

EPISODES_MAX = 1_000_000
SCHEMES = ("balanced",)
TOP_KEYS = ("league", "seating", "policies", "games", "profiles", "season")
LEAGUE_KEYS = ("name", "seed", "episodes", "store", "python_path", "record", "replay",
               "replay_or_live", "prices")
SEATING_KEYS = ("scheme", "duplicates")
GAME_KEYS = ("name", "module", "variants", "episodes", "seats", "policies", "overrides",
             "evaluation_episodes")
PROFILE_KEYS = ("episodes", "seed")
PROFILE_EPISODES_MAX = 1000


@dataclass(frozen=True)
class GameEntry:
    """One ``[[games]]`` table: which game, which variants, how many episodes of each."""

    name: str
    variants: tuple[str | None, ...]
    episodes: int
    seats: Mapping[str | None, int]  # per variant
    policies: tuple[str, ...]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    module: str | None = None  # a game outside the registry (plugins, tests)
    evaluation_episodes: int = 0  # with held-out policies: episodes against the held-out pool


@dataclass(frozen=True)
class ProfileSettings:
    """``[profiles]``: behaviour profiles of every policy in the report (docs/profiles.md)."""

    episodes: int = 10
    seed: int = 0


@dataclass(frozen=True)
class LeagueConfig:
    name: str
    seed: int
    store_url: str
    python_path: tuple[str, ...]
    duplicates: bool
    policies: tuple[Policy, ...]
    games: tuple[GameEntry, ...]
    path: Path | None = None
    recording: str | None = None  # [league] record / replay: a directory of model calls
    recording_mode: str = "record"
    prices: str | None = None  # [league] prices: a price table file (seats/llm/pricing.py)
    profiles: ProfileSettings | None = None
    season: SeasonSettings | None = None
    """``[season]``: the standing season the table server runs from this file (season.py)."""

    @property
    def policy(self) -> dict[str, Policy]:
        return {p.name: p for p in self.policies}

    @property
    def held_out(self) -> list[str]:
        return [p.name for p in self.policies if p.held_out]

    def model_options_for(self, policy: Policy) -> dict[str, Any] | None:
        """The policy's `ModelOptions` fields, with the league's recording (None: no model)."""
        options = policy.model_options()
        if options is None or self.recording is None:
            return options
        return {**options, "recording": self.recording, "recording_mode": self.recording_mode}

    def schedule(self) -> list[EpisodeSpec]:
        """Every episode of the league, in a fixed order (game, variant, block, rotation)."""
        specs: list[EpisodeSpec] = []
        by_name = self.policy
        for entry in self.games:
            held = [p for p in entry.policies if by_name[p].held_out]
            public = [p for p in entry.policies if not by_name[p].held_out]
            for variant in entry.variants:
                seatings = balanced(public, entry.seats[variant], entry.episodes,
                                    duplicates=self.duplicates)
                blocks = [(s.block, s.lineup, "league") for s in seatings]
                if held:
                    blocks += [(b, lineup, heldout.SOURCE) for b, lineup in
                               heldout.evaluation_lineups(
                                   public, held, entry.seats[variant],
                                   entry.evaluation_episodes, self.duplicates, entry.name)]
                # one SeatRef per policy and one seed per block, shared by every episode
                refs = {p: SeatRef(p, by_name[p].seat_ref(entry.name),
                                   self.model_options_for(by_name[p])) for p in entry.policies}
                seeds: dict[int, int] = {}
                seats: dict[tuple[str, ...], tuple[SeatRef, ...]] = {}  # a few line-ups recur
                like = EpisodeSpec(
                    league=self.name, game=entry.name, variant=variant, seed=0, seats=(),
                    overrides=entry.overrides, python_path=self.python_path,
                    game_module=entry.module).like  # what the variant's episodes share
                for block, lineup, source in blocks:
                    seed = seeds.get(block)
                    if seed is None:
                        seed = seeds[block] = derive_seed(self.seed, entry.name, variant, block)
                    refs_of = seats.get(lineup)
                    if refs_of is None:
                        refs_of = seats[lineup] = tuple(refs[p] for p in lineup)
                    specs.append(like(seed, refs_of, len(specs), source))
        return specs


def load(path: str | Path, *, store_url: str | None = None) -> LeagueConfig:
    """Read and validate a league file. `store_url` overrides the file's ``league.store``."""
    p = Path(path)
    try:
        doc = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError("file", f"league file {p} does not exist") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError("file", f"league file {p} is not UTF-8 text ({exc.reason} at byte "
                                  f"{exc.start})") from exc
    except OSError as exc:  # a directory, no permission
        raise ConfigError("file", f"league file {p} cannot be read "
                                  f"({exc.strerror or exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("file", f"league file {p} is not valid TOML ({exc})") from exc
    return parse(doc, base_dir=p.resolve().parent, path=p, store_url=store_url)


def _table(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = doc.get(key, {})
    if not isinstance(value, Mapping):
        raise ConfigError(key, f"{key} must be a table ([{key}])")
    return value


def _array(doc: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = doc.get(key)
    if not isinstance(value, list) or not value:
        raise ConfigError(key, f"{key} must be a non-empty array of tables ([[{key}]])")
    return value


def parse(doc: Mapping[str, Any], *, base_dir: Path, path: Path | None = None,
          store_url: str | None = None) -> LeagueConfig:
    reject_unknown("league file", doc, TOP_KEYS)
    league = _table(doc, "league")
    reject_unknown("[league]", league, LEAGUE_KEYS)
    name = check_str("league.name", league.get("name"), 128, 1)
    seed = check_int("league.seed", league.get("seed", 0), 0, SEED_MAX)
    default_episodes = check_int("league.episodes", league.get("episodes", 100), 1, EPISODES_MAX)
    python_path = league.get("python_path", [])
    if not isinstance(python_path, list) or not all(isinstance(x, str) for x in python_path):
        raise ConfigError("league.python_path", "league.python_path must be a list of directories")
    python_path = tuple(str((base_dir / x).resolve()) for x in python_path)
    url = (_given_url(store_url) if store_url is not None
           else _store_url(league.get("store"), base_dir, path, name))

    seating = _table(doc, "seating")
    reject_unknown("[seating]", seating, SEATING_KEYS)
    check_choice("seating.scheme", seating.get("scheme", "balanced"), SCHEMES)
    duplicates = check_bool("seating.duplicates", seating.get("duplicates", True))

    policies: list[Policy] = []
    where: list[str] = []  # each policy's table in the file (a baseline's copies share one)
    copy: list[int] = []  # 1 for the policy a table names, 2, 3 … for a baseline's copies
    for i, d in enumerate(_array(doc, "policies")):
        made = parse_copies(d, f"policies[{i}]", base_dir)
        policies += made
        where += [f"policies[{i}]"] * len(made)
        copy += range(1, len(made) + 1)
    seen: dict[str, int] = {}
    for i, p in enumerate(policies):
        if p.name in seen:
            named = f"{where[i]}.copies" if copy[i] > 1 else f"{where[i]}.name"
            raise ConfigError(named, f"{named}: the policy name {p.name!r} is used twice "
                              f"({where[seen[p.name]]} and {where[i]}; a baseline's copies are "
                              "named NAME, NAME-2, NAME-3 …); policy names must be unique")
        seen[p.name] = i
        if p.kind == "bot":
            cls = import_bot(p.bot or "", python_path, where=f"{where[i]}.bot", name=p.name)
            policies[i] = _bot_games(p, cls, where[i])
    add_python_path(python_path)
    games = [_parse_game(g, f"games[{i}]", policies, default_episodes, duplicates, seed)
             for i, g in enumerate(_array(doc, "games"))]
    names = list(dict.fromkeys(g.name for g in games))
    for i, p in enumerate(policies):
        # a misspelt game would silently keep the policy from the game it was meant for
        for game in p.games or ():
            if game not in names:
                raise ConfigError(f"{where[i]}.games", f"{where[i]}.games names {game!r}, "
                                  f"which is not a game of the league (its games: "
                                  f"{', '.join(names)})")
    for i, p in enumerate(policies):
        if not any(p.name in g.policies for g in games):
            raise ConfigError(where[i], f"{where[i]} ({p.name}) plays none of the "
                              f"league's games (for a baseline: is {p.ref!r} a baseline of "
                              "one of them?)")
    seen_variants: dict[tuple[str, str | None], int] = {}
    for i, g in enumerate(games):
        for v in g.variants:
            first = seen_variants.setdefault((g.name, v), i)
            if first != i or g.variants.count(v) > 1:
                raise ConfigError(f"games[{i}].variants", f"games[{i}].variants lists "
                                  f"{g.name} {v or 'default'} again (games[{first}] has it): "
                                  "each game and variant once")
    recording, mode = _recording(league, base_dir)
    prices = None
    if "prices" in league:
        from cogleague.seats.llm.pricing import load_prices

        prices = str((base_dir / check_str("league.prices", league["prices"], 4096, 1)
                      ).resolve())
        try:
            load_prices(prices)
        except ConfigError as exc:
            raise ConfigError("league.prices", f"league.prices: {exc}") from exc
    return LeagueConfig(name=name, seed=seed, store_url=url, python_path=python_path,
                        duplicates=duplicates, policies=tuple(policies), games=tuple(games),
                        path=path, recording=recording, recording_mode=mode, prices=prices,
                        profiles=_profiles(doc, games),
                        season=parse_season(doc["season"]) if "season" in doc else None)


def _recording(league: Mapping[str, Any], base_dir: Path) -> tuple[str | None, str]:
    """``record = DIR`` or ``replay = DIR`` (+ ``replay_or_live``), relative to the file."""
    if "record" in league and "replay" in league:
        raise ConfigError("league.replay", "league.record and league.replay exclude each other "
                                           "(replay_or_live = true records what is missing)")
    live = check_bool("league.replay_or_live", league.get("replay_or_live", False))
    if live and "replay" not in league:
        raise ConfigError("league.replay_or_live", "league.replay_or_live needs league.replay")
    for key, mode in (("record", "record"), ("replay", "replay_or_live" if live else "replay")):
        if key in league:
            path = check_str(f"league.{key}", league[key], 4096, 1)
            return str((base_dir / path).resolve()), mode
    return None, "record"


def _profiles(doc: Mapping[str, Any], games: Sequence[GameEntry]) -> ProfileSettings | None:
    """``[profiles]``; its seed checked against every profiled game's range here, since the
    battery of E episodes plays seeds seed … seed + E − 1 and `league report` runs it only
    after the league has been played."""
    if "profiles" not in doc:
        return None
    table = _table(doc, "profiles")
    reject_unknown("[profiles]", table, PROFILE_KEYS)
    episodes = check_int("profiles.episodes", table.get("episodes", 10), 1,
                         PROFILE_EPISODES_MAX)
    seed = check_int("profiles.seed", table.get("seed", 0), 0, SEED_MAX)
    for entry in games:
        desc = resolve_game(entry.name, entry.module)
        top = desc.seed_max - (episodes - 1)
        if "probes" in desc.extras and seed > top:
            raise ConfigError("profiles.seed", f"profiles.seed must be an integer in 0..{top} "
                                               f"(got {seed}): {desc.name}'s battery of "
                                               f"{episodes} episodes plays seeds seed … "
                                               f"seed + {episodes - 1}, and {desc.name} plays "
                                               f"0..{desc.seed_max}")
    return ProfileSettings(episodes=episodes, seed=seed)


def _given_url(value: Any) -> str:
    """A store URL given over the file's (``--store``, ``store=``): a database URL, or a
    `ConfigError` naming `store` (an empty one is no reason to use the file's)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    ok = isinstance(value, str) and bool(value)
    if ok:
        try:
            make_url(value)
        except ArgumentError:
            ok = False
    if not ok:
        raise ConfigError("store", f"store must be a SQLAlchemy URL such as sqlite:///league.db "
                                   f"(got {value!r})")
    return str(value)


def _store_url(value: Any, base_dir: Path, path: Path | None, name: str) -> str:
    if value is None:
        stem = path.stem if path is not None else name
        return store.sqlite_url(base_dir / f"{stem}.db")
    text = check_str("league.store", value, 4096, 1)
    return text if "://" in text else store.sqlite_url(base_dir / text)


def _parse_game(doc: Mapping[str, Any], where: str, policies: Sequence[Policy],
                default_episodes: int, duplicates: bool, seed: int) -> GameEntry:
    if not isinstance(doc, Mapping):
        raise ConfigError(where, f"{where} must be a table")
    reject_unknown(where, doc, GAME_KEYS)
    module = doc.get("module")
    if module is not None:
        module = check_str(f"{where}.module", module, 256, 1)
    given = check_str(f"{where}.name", doc.get("name"), 64, 1)
    try:
        info = resolve_game(given, module)
    except ConfigError as exc:
        raise ConfigError(f"{where}.name", f"{where}: {exc}") from exc
    if module is not None and info.name != given:  # a module's game: by its own name only
        raise ConfigError(f"{where}.name", f"{where}.name is {given!r} but module {module}'s "
                                           f"game is {info.name!r}")
    name = info.name
    variants_raw = doc.get("variants", [None])
    if not isinstance(variants_raw, list) or not variants_raw:
        raise ConfigError(f"{where}.variants", f"{where}.variants must be a non-empty list")
    variants = tuple(None if v is None else check_choice(f"{where}.variants", v, info.variants)
                     for v in variants_raw)
    episodes = check_int(f"{where}.episodes", doc.get("episodes", default_episodes), 1,
                         EPISODES_MAX)
    overrides = doc.get("overrides", {})
    if not isinstance(overrides, Mapping):
        raise ConfigError(f"{where}.overrides", f"{where}.overrides must be a table")
    try:  # before the seat count, which a game may read from its options
        validate_options(info.options, overrides, section=f"{info.name} config")
    except ConfigError as exc:  # its message starts with the option's name
        raise ConfigError(f"{where}.overrides.{exc.field}", f"{where}.overrides.{exc}") from exc
    lo, hi = info.seat_range
    seats = {v: (check_int(f"{where}.seats", doc["seats"], lo, hi) if "seats" in doc
                 else info.seats_of(v, overrides)) for v in variants}
    if "seats" in doc:
        _check_seat_count_once(where, info, overrides, seats)
    seats_from = f"{where}.seats" if "seats" in doc else next(
        (f"{where}.overrides.{k}" for k in _seat_count_keys(info, variants[0], overrides)),
        f"{name}'s default")

    book = {p.name: p for p in policies}
    if "policies" in doc:
        names = doc["policies"]
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise ConfigError(f"{where}.policies", f"{where}.policies must be a non-empty list "
                                                   "of policy names")
        for n in names:
            if n not in book:
                raise ConfigError(f"{where}.policies", f"{where}.policies names {n!r}, which is "
                                  f"not a policy (known: {', '.join(book)})")
            if not book[n].plays(name, info.baselines):
                raise ConfigError(f"{where}.policies", f"{where}.policies: {n!r} cannot play "
                                  f"{name} (its baselines: {', '.join(info.baselines)})")
        chosen = tuple(dict.fromkeys(names))
    else:
        chosen = tuple(p.name for p in policies if p.plays(name, info.baselines))
        if not chosen:
            raise ConfigError(f"{where}.policies", f"{where}: no policy can play {name} (its "
                              f"baselines: {', '.join(info.baselines)})")
    for v in variants:
        if len(chosen) < seats[v] and not duplicates:
            raise ConfigError("seating.duplicates", f"seating.duplicates is false but {where} "
                              f"has {len(chosen)} policies for {seats[v]} seats")
        _check_buildable(where, info, v, overrides, derive_seed(seed, name, v, 0),
                         [book[n] for n in chosen], seats[v], seats_from)
    evaluation = check_int(f"{where}.evaluation_episodes",
                           doc.get("evaluation_episodes", episodes), 0, EPISODES_MAX)
    held = [n for n in chosen if book[n].held_out]
    if "evaluation_episodes" in doc and evaluation and not held:  # else silently not played
        raise ConfigError(f"{where}.evaluation_episodes",
                          f"{where}.evaluation_episodes: episodes against the held-out pool, "
                          f"but no policy of {name} is held out (mark one held_out = true, or "
                          "leave evaluation_episodes out)")
    if held:  # the schedule's own checks, now: an evaluation needs a subject and opponents
        public = [n for n in chosen if not book[n].held_out]
        for v in variants:
            heldout.evaluation_lineups(public, held, seats[v], 0, duplicates, where)
    return GameEntry(name=name, variants=variants, episodes=episodes, seats=seats,
                     policies=chosen, overrides=dict(overrides), module=module,
                     evaluation_episodes=evaluation)


def _bot_games(policy: Policy, cls: type, where: str) -> Policy:
    """A bot class that declares its game (`Bot.game`) plays only that game, as a policy file
    plays the game its header names: at another game's table its seat refuses the table, so
    every such episode would fail and be played again by every run. Listed in `games` for
    another game: a `ConfigError`."""
    written_for = getattr(cls, "game", None)
    if not isinstance(written_for, str):
        return policy
    if policy.games is None:
        return dataclasses.replace(policy, games=(written_for,))
    other = [g for g in policy.games if g != written_for]
    if other:
        raise ConfigError(f"{where}.games", f"{where}.games lists {other[0]!r}, but bot "
                          f"{policy.bot} was written for {written_for} (its class's game); "
                          f"list {written_for!r} only")
    return policy


def _seat_count_keys(info: GameDescriptor, variant: str | None,
                     overrides: Mapping[str, Any]) -> list[str]:
    """The given overrides that set a table's seat count: those whose value moves the game's
    `seats_of` (probed at both ends of its seat range, so a game need not declare them)."""
    lo, hi = info.seat_range
    keys = []
    for key in overrides:
        try:
            if info.seats_of(variant, {key: lo}) != info.seats_of(variant, {key: hi}):
                keys.append(key)
        except Exception:  # a game's `seats_for` that cannot read this probe: not a count
            continue
    return keys


def _check_seat_count_once(where: str, info: GameDescriptor, overrides: Mapping[str, Any],
                           seats: Mapping[str | None, int]) -> None:
    """A seat count given both as ``seats`` and as a game option must agree; otherwise the
    game's own complaint (about its line-up) would hide which two fields clash."""
    lo, hi = info.seat_range
    for v, n in seats.items():
        for key in _seat_count_keys(info, v, overrides):
            if overrides[key] != n:
                raise ConfigError(f"{where}.seats",
                                  f"{where}.seats is {n} but {where}.overrides.{key} is "
                                  f"{overrides[key]!r}: name the seat count once, either "
                                  f"{where}.seats ({lo}..{hi}) or {where}.overrides.{key}")


def _check_buildable(where: str, info: GameDescriptor, variant: str | None,
                     overrides: Mapping[str, Any], seed: int, policies: Sequence[Policy],
                     seats: int, seats_from: str) -> None:
    """Build one table of this game and variant now, so a bad override or baseline is a config
    error before the run instead of a thousand failed episodes. A game's complaint about an
    option given in ``overrides`` names that path, and the seat count it was checked
    against (most such complaints are per-seat lists of the wrong length)."""
    from cogleague.seats.factory import make_seat

    names = [policies[i % len(policies)].seat_ref(info.name) for i in range(seats)]
    try:
        game = info.make(variant, overrides, seed, names, None)
        for p in policies:
            if p.kind in ("baseline", "policy"):
                make_seat(game, 0, p.seat_ref(info.name))
    except ConfigError as exc:
        if exc.field in overrides:
            path = f"{where}.overrides.{exc.field}"
            raise ConfigError(path, f"{path}: {exc}; a table has {seats} seats here "
                                    f"({seats_from})") from exc
        raise ConfigError(f"{where}.{exc.field}", f"{where}: {exc}") from exc
