"""What a league's stored episodes were played with, kept in the store and checked before a run.

Episode ids hash the league's name, game, variant, block seed and the policies' *names* — not
a policy's definition — and the standings rank every stored episode of the league. So a league
file edited between runs would silently mix results in one store: another `league.seed` or
other `seats` schedule new episodes beside the old ones, and a policy redefined under the same
name (another model, prompt, or a model's `provider`, `base_url` or `max_reply_tokens`:
another model behind the same name, or the same one allowed other replies) would take the
stored episodes for its own. The store keeps these facts as first run (`store.save_facts`),
and `check` refuses a file that contradicts them, naming the field, what is stored and what
the file says. What only extends the league — more episodes, policies,
games or variants — adds facts and is never refused; so does a fact a store made before it was
recorded lacks (a model's endpoint or reply cap): checked from the next run that records it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cogleague.core.errors import ConfigError
from cogleague.core.model_limits import DEFAULT_REPLY_TOKENS
from cogleague.league import store
from cogleague.league.config import LeagueConfig
from cogleague.league.policies import Policy, bot_name


@dataclass(frozen=True)
class Fact:
    key: str  # the store's key: one per league seed, game and variant's seats, policy and game
    field: str  # the file's field a refusal names
    value: str
    scope: str = ""  # which game (and variant) it is about, for the message


def _digest(path: str | None) -> str:
    """A file's content, briefly: the same prompt or policy file wherever the league lives."""
    try:
        return "sha256 " + hashlib.sha256(Path(path or "").read_bytes()).hexdigest()[:16]
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"


def definition(policy: Policy, game: str) -> str:
    """What plays a policy's seats at `game`, without the paths a moved league would change:
    a baseline's name, a bot's reference (a file by its name), a model's name and its prompt's
    text, a policy file's content."""
    if policy.kind == "baseline":
        text = f"baseline {policy.seat_ref(game)}"
    elif policy.kind == "bot":
        text = f"bot {bot_name(policy.bot or '')}"
    elif policy.kind == "policy":
        text = f"policy file {Path(policy.file or '').name} ({_digest(policy.file)})"
    else:
        text = (f"model {policy.model}, prompt {Path(policy.prompt or '').name} "
                f"({_digest(policy.prompt)})")
    return text + (", held out" if policy.held_out else "")


DEFAULT_ENDPOINT = "the provider's default"


def endpoint(policy: Policy) -> list[tuple[str, str]]:
    """A model policy's provider, base URL (a trailing ``/`` is the same endpoint) and reply
    cap (unset is the default's), each a fact of its own: a store whose definitions were
    recorded without them still matches. A reasoning model given another cap answers
    otherwise (its hidden reasoning counts against it)."""
    if policy.kind != "model":
        return []
    url = (policy.base_url or "").rstrip("/")
    cap = policy.max_reply_tokens if policy.max_reply_tokens is not None else DEFAULT_REPLY_TOKENS
    return [("provider", policy.provider or "openai"), ("base_url", url or DEFAULT_ENDPOINT),
            ("max_reply_tokens", str(cap))]


def facts(config: LeagueConfig) -> list[Fact]:
    """The league's facts as its file now says them."""
    out = [Fact("league.seed", "league.seed", str(config.seed))]
    index = {p.name: i for i, p in enumerate(config.policies)}
    for i, entry in enumerate(config.games):
        for variant in entry.variants:
            out.append(Fact(f"seats {entry.name} {variant or ''}", f"games[{i}].seats",
                            str(entry.seats[variant]), f" for {entry.name} {variant or 'default'}"))
        for name in entry.policies:
            policy = config.policy[name]
            out.append(Fact(f"policy {name} {entry.name}", f"policies[{index[name]}] ({name})",
                            definition(policy, entry.name), f" at {entry.name}"))
            out += [Fact(f"policy {name} {key}", f"policies[{index[name]}].{key}", value,
                         f" for {name}") for key, value in endpoint(policy)]
    return list({f.key: f for f in out}.values())  # a policy in two entries of one game: once


def check(config: LeagueConfig) -> None:
    """A `ConfigError` naming the first fact of the file that contradicts the store."""
    stored = store.stored_facts(config.store_url, config.name)
    for fact in facts(config):
        refuse(config.name, fact, stored)


def refuse(league: str, fact: Fact, stored: Mapping[str, str]) -> None:
    before = stored.get(fact.key)
    if before is None or before == fact.value:
        return
    raise ConfigError(
        fact.field,
        f"{fact.field} must stay {before}{fact.scope} (got {fact.value}): league {league!r} "
        "was played with that in this store, and its stored episodes would be mixed with "
        "these in the standings; restore it, or give the league a new league.name or "
        "league.store to start afresh")
