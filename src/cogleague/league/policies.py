"""League policies: a scripted baseline, a model prompt, or an SDK `Bot` class.

Each policy has a name (what the standings rank), an author label and a kind:

- ``baseline``: a game's built-in scripted policy, by name — one name for every game that has
  it, or a table ``{game = name}`` (e.g. ``{dilemma = "tit-for-tat", commons = "steward"}``);
- ``model``: a prompt file played by a language model (`model` names it; `provider`,
  `base_url` and `max_reply_tokens` as for ``cogleague play``); the seat string is
  ``llm:PROMPT``;
- ``bot``: ``MODULE:CLASS``, a `cogleague.client.Bot` subclass run in-process (the same class
  can play remotely through the server);
- ``policy``: a trained policy file (`cogleague.seats.policy`); the seat string is
  ``policy:PATH`` and the policy plays only the game its file was trained for.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogleague.core.config import check_bool, check_choice, check_int, check_str, reject_unknown
from cogleague.core.errors import ConfigError
from cogleague.core.model_limits import MAX_REPLY_TOKENS, MIN_REPLY_TOKENS, PROVIDERS
from cogleague.seats.botref import is_bot_ref, load_bot_class

KINDS = ("baseline", "model", "bot", "policy")
BOOK_KINDS = {"policy": "policy_file"}
"""A kind's name in the store's policy book where it differs: a season's hosted policy (kind
``policy``, recorded by the server) and an offline league's policy file are labelled apart."""
NAME_MAX = 64
NAME_FORBIDDEN = "#,"
"""``#`` marks duplicates (``tft#2``) and ``,`` separates line-ups on the command line."""

POLICY_KEYS = ("name", "author", "baseline", "prompt", "model", "provider", "base_url",
               "max_reply_tokens", "bot", "policy", "games", "held_out")


@dataclass(frozen=True)
class Policy:
    name: str
    author: str
    kind: str
    baseline: Mapping[str, str] | str | None = None
    prompt: str | None = None
    model: str | None = None
    provider: str | None = None
    base_url: str | None = None
    max_reply_tokens: int | None = None
    bot: str | None = None
    file: str | None = None
    games: tuple[str, ...] | None = None
    held_out: bool = False  # seated only in evaluation episodes, named only after the season
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ref(self) -> str:
        """A one-line description for tables: the baseline, prompt path or bot class."""
        if self.kind == "baseline":
            if isinstance(self.baseline, str):
                return self.baseline
            return ", ".join(f"{g}={b}" for g, b in sorted((self.baseline or {}).items()))
        if self.kind == "policy":
            return self.file or ""
        return (self.prompt or "") if self.kind == "model" else self.bot or ""

    def seat_ref(self, game: str) -> str:
        """The seat string for `seats.factory.make_seat` in `game`."""
        if self.kind == "model":
            return f"llm:{self.prompt}"
        if self.kind == "bot":
            return self.bot or ""
        if self.kind == "policy":
            return f"policy:{self.file}"
        if isinstance(self.baseline, str):
            return self.baseline
        return (self.baseline or {})[game]

    def model_options(self) -> dict[str, Any] | None:
        if self.kind != "model":
            return None
        options: dict[str, Any] = {"provider": self.provider or "openai",
                                   "model": self.model, "base_url": self.base_url}
        if self.max_reply_tokens is not None:  # unset: the options as before it was settable
            options["max_reply_tokens"] = self.max_reply_tokens
        return options

    def plays(self, game: str, baselines: Sequence[str]) -> bool:
        """Whether this policy can sit at `game` (whose built-in baselines are `baselines`)."""
        if self.games is not None and game not in self.games:
            return False
        if self.kind != "baseline":
            return True
        if isinstance(self.baseline, str):
            return self.baseline in baselines
        return game in (self.baseline or {})

    def book_entry(self) -> dict[str, Any]:
        """The store's policy book entry: kind and a reference without local paths (files by
        their names), since the book is shown wherever the store is read."""
        if self.kind == "bot":
            ref = bot_name(self.bot or "")
        else:
            ref = Path(self.ref).name if self.kind in ("model", "policy") else self.ref
        return {"name": self.name, "author": self.author,
                "kind": BOOK_KINDS.get(self.kind, self.kind), "ref": ref, "model": self.model}


def read_book_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A stored book entry as `Policy.book_entry` writes it now. A store last run before
    policy files had their own kind keeps kind ``policy`` and full local paths until its next
    `league run` rewrites the book; its readers (standings, report, the Observatory) show it
    as that run would, and nothing is written on read (a store may be read-only). Local paths
    are what tell an old offline policy file from a season's hosted policy, whose reference
    is its version's name."""
    kind, ref = entry["kind"], entry["ref"] or ""
    local = "/" in ref or "\\" in ref
    if kind == "bot":
        ref = bot_name(ref)
    elif kind in ("model", "policy", "policy_file") and local:
        kind, ref = BOOK_KINDS.get(kind, kind), Path(ref).name
    return {**entry, "kind": kind, "ref": ref}


def bot_name(bot: str) -> str:
    """A bot reference as the league names it wherever it lives: a ``.py`` file by its file
    name (``mine.py:Mine``), a module as it is."""
    target, _, cls = bot.rpartition(":")
    return f"{Path(target).name}:{cls}" if target.endswith(".py") else bot


def _check_name(field_name: str, value: Any) -> str:
    name = check_str(field_name, value, NAME_MAX, 1)
    if any(c in name for c in NAME_FORBIDDEN) or name != name.strip():
        raise ConfigError(field_name, f"{field_name} must not contain '#' or ',' or surrounding "
                                      f"spaces (got {value!r})")
    return name


def parse_policy(doc: Mapping[str, Any], where: str, base_dir: Path) -> Policy:
    """One ``[[policies]]`` table → a `Policy`; `where` prefixes every error (``policies[2]``)."""
    if not isinstance(doc, Mapping):
        raise ConfigError(where, f"{where} must be a table")
    reject_unknown(where, doc, POLICY_KEYS)
    name = _check_name(f"{where}.name", doc.get("name"))
    author = check_str(f"{where}.author", doc.get("author", ""), 128)
    given = [k for k in ("baseline", "prompt", "bot", "policy") if k in doc]
    if len(given) != 1:
        raise ConfigError(where, f"{where} ({name}) must set exactly one of baseline, prompt, "
                                 f"bot, policy (got {', '.join(given) or 'none'})")
    games = doc.get("games")
    if games is not None and (not isinstance(games, list)
                              or not all(isinstance(g, str) for g in games)):
        raise ConfigError(f"{where}.games", f"{where}.games must be a list of game names")
    common: dict[str, Any] = {"name": name, "author": author,
                              "games": None if games is None else tuple(games),
                              "held_out": check_bool(f"{where}.held_out",
                                                     doc.get("held_out", False))}
    for key in ("model", "provider", "base_url", "max_reply_tokens"):
        if key in doc and "prompt" not in doc:
            raise ConfigError(f"{where}.{key}", f"{where}.{key} applies to prompt policies only")
    kind = given[0]
    if kind == "baseline":
        return Policy(kind="baseline", baseline=_parse_baseline(where, doc["baseline"]), **common)
    if kind == "prompt":
        prompt = check_str(f"{where}.prompt", doc["prompt"], 4096, 1)
        path = (base_dir / prompt).resolve()
        if not path.is_file():
            raise ConfigError(f"{where}.prompt", f"{where}.prompt must name a readable prompt "
                                                 f"file (no file at {path})")
        model = check_str(f"{where}.model", doc.get("model"), 128, 1) if "model" in doc else None
        if model is None:
            raise ConfigError(f"{where}.model", f"{where}.model is required for a prompt policy "
                                                "(the model name the seat plays with)")
        provider = (check_choice(f"{where}.provider", doc["provider"], PROVIDERS)
                    if "provider" in doc else None)
        base_url = (check_str(f"{where}.base_url", doc["base_url"], 2048, 1)
                    if "base_url" in doc else None)
        cap = (check_int(f"{where}.max_reply_tokens", doc["max_reply_tokens"],
                         MIN_REPLY_TOKENS, MAX_REPLY_TOKENS)
               if "max_reply_tokens" in doc else None)
        return Policy(kind="model", prompt=str(path), model=model, provider=provider,
                      base_url=base_url, max_reply_tokens=cap, **common)
    if kind == "policy":
        return _parse_policy_file(where, doc["policy"], base_dir, common)
    bot = check_str(f"{where}.bot", doc["bot"], 1024, 3)
    if not is_bot_ref(bot):
        raise ConfigError(f"{where}.bot", f"{where}.bot must be FILE.py:CLASS or MODULE:CLASS "
                                          f"(got {bot!r})")
    target, _, cls = bot.rpartition(":")
    if target.endswith(".py"):  # read beside the league file, wherever the worker runs
        bot = f"{(base_dir / target).resolve()}:{cls}"
    return Policy(kind="bot", bot=bot, **common)


def _parse_policy_file(where: str, value: Any, base_dir: Path,
                       common: dict[str, Any]) -> Policy:
    """A policy file, checked now; it plays the game its header names (and only that one)."""
    from cogleague.seats.policy import load_policy

    path = (base_dir / check_str(f"{where}.policy", value, 4096, 1)).resolve()
    if not path.is_file():
        raise ConfigError(f"{where}.policy", f"{where}.policy must name a policy file (no file "
                                             f"at {path})")
    try:
        trained_for = str(load_policy(path).header.get("game"))
    except ConfigError as exc:
        raise ConfigError(f"{where}.policy", f"{where}.policy: {exc}") from exc
    games = common["games"]
    common = {**common, "games": (trained_for,) if games is None
              else tuple(g for g in games if g == trained_for)}
    return Policy(kind="policy", file=str(path), **common)


def _parse_baseline(where: str, value: Any) -> Mapping[str, str] | str:
    if isinstance(value, str):
        return check_str(f"{where}.baseline", value, 64, 1)
    if isinstance(value, Mapping) and value and all(
            isinstance(k, str) and isinstance(v, str) and v for k, v in value.items()):
        return dict(value)
    raise ConfigError(f"{where}.baseline", f"{where}.baseline must be a baseline name or a table "
                                           f"of game = baseline name (got {value!r})")


def import_bot(ref: str, python_path: Sequence[str] = (), where: str = "bot",
               name: str | None = None) -> type:
    """Load a bot reference (after putting `python_path` first on ``sys.path``); the one
    loader of `seats/botref.py`, its errors naming `where` (and the policy's `name`) whatever
    field the loader itself put first (its file loader names its default one)."""
    add_python_path(python_path)
    try:
        return load_bot_class(ref, field=where)
    except ConfigError as exc:
        label = where if name is None else f"{where} ({name})"
        error = exc.renamed(label)
        raise ConfigError(where, str(error)) from exc


def add_python_path(paths: Sequence[str]) -> None:
    for p in reversed(list(paths)):
        if p not in sys.path:
            sys.path.insert(0, p)
