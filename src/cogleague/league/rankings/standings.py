"""Build the standings document from stored episodes — the one shape every view renders.

`standings_json(db_url, game=None, league=None)` is what the Observatory page calls; the CLI
table and the HTML report render the same document. Shape (all numbers are plain floats;
``null`` where no honest value exists, e.g. an interval from a single episode)::

    {
      "leagues": ["demo"] | null,          # null: every league and server table in the store
      "game": "<game>" | null,
      "episodes": {"ok": 480, "failed": 2,   # failed and infra_error are apart (no episode
                   "infra_error": 0,         # counts in both)
                   "no_players": 3},         # nobody connected in time: counted, never ranked
      "failures": [{"id", "league", "game", "variant", "seed", "lineup", "attempts",
                    "status", "error"}],     # failed or infra_error: never ranked; variant
                                             # as the tables name it (the played default)
      "tables": [{                 # one per game and variant (unnamed: the game's default)
        "game": "<game>", "variant": "standard" | null, "episodes": 240,  # null: not known
        "statistic": "mean episode score",
        "columns": [{"key": "cooperation_rate", "label": "cooperation",
                     "format": "percent" | "number"}],
        "rows": [{"policy", "author", "kind", "model", "games",
                  "mean", "low", "high",         # bootstrap 95% interval over episodes
                  "rank", "rank_best", "rank_worst", "separated", "rank_label",
                  "extras": {"cooperation_rate": 0.81, ...},
                  "fallbacks": {"error": 24},   # decisions that fell back, by cause ({}:
                                                # none), and the first line of the first
                  "fallback_error": "ValueError: boom" | null}]  # error; best mean first
      }],
      "overall": {
        "bradley_terry": {"episodes", "matches", "rows": [{"policy", "strength", "low",
                          "high", "rank", "rank_best", "rank_worst", "separated",
                          "rank_label"}]},
        "openskill": {"model": "PlackettLuce", "rows": [{"policy", "mu", "sigma",
                      "ordinal", "low", "high", "rank", ...}]}
      }
    }

Each table also carries ``held_out`` (null, or ``{"episodes", "rows": [{"policy",
"vs_public", "public_games", "vs_held_out", "held_out_games", "difference", "low", "high",
"shows_gap"}]}``, `heldout.py`); the document carries ``held_out`` (``{"revealed",
"policies"}`` or null) and ``costs`` (`costs.py`, null without model seats).

`rank_label` is the rank when the row's interval separates it from every other row, else
``level best–worst`` (see `ranks.py`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Engine

from cogleague.league import gamestats, heldout, store
from cogleague.league.costs import cost_section
from cogleague.league.episodes import EpisodeRecord
from cogleague.league.rankings import bradley_terry, openskill_rating
from cogleague.league.rankings.bootstrap import mean_interval
from cogleague.league.rankings.ranks import RankInfo, rank_rows
from cogleague.seats.faults import seat_fallbacks

STATISTIC = "mean episode score"


def _rank_fields(info: RankInfo) -> dict[str, Any]:
    return {"rank": info.rank, "rank_best": info.best, "rank_worst": info.worst,
            "separated": info.separated, "rank_label": info.label}


def _policy_fields(name: str, book: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    entry = book.get(name, {})
    return {"policy": name, "author": entry.get("author", ""),
            "kind": entry.get("kind", "server"), "model": entry.get("model")}


def _game_table(game: str, variant: str | None, episodes: Sequence[EpisodeRecord],
                book: Mapping[str, Mapping[str, Any]], resamples: int,
                seed: int) -> dict[str, Any]:
    """Per policy: its score in each episode (the mean of its seats when duplicated), the mean
    over its episodes with a bootstrap interval, and the game's extra columns."""
    per_episode: dict[str, list[float]] = defaultdict(list)
    extras: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    fallbacks: dict[str, dict[str, int]] = defaultdict(dict)
    first_error: dict[str, str] = {}
    for ep in episodes:
        seats: dict[str, list[float]] = defaultdict(list)
        # a policy that never played a decision of its own must not rank silently
        faults = seat_fallbacks(ep.results or {})
        for seat, (policy, score) in enumerate(zip(ep.policies, ep.scores, strict=True)):
            seats[policy].append(score)
            causes, error = faults[seat] if seat < len(faults) else ({}, None)
            for cause, count in causes.items():
                fallbacks[policy][cause] = fallbacks[policy].get(cause, 0) + count
            if error is not None:
                first_error.setdefault(policy, error)
            for key, value in gamestats.seat_extras(game, ep.results or {}, seat).items():
                if value is not None:
                    extras[policy][key].append(value)
        for policy, values in seats.items():
            per_episode[policy].append(sum(values) / len(values))
    columns = gamestats.columns(game)
    rows = []
    for policy in sorted(per_episode):
        interval = mean_interval(per_episode[policy], resamples=resamples, seed=seed)
        row = {**_policy_fields(policy, book), "games": interval.n, "mean": interval.estimate,
               "low": interval.low, "high": interval.high,
               "extras": {c.key: (sum(extras[policy][c.key]) / len(extras[policy][c.key])
                                  if extras[policy][c.key] else None) for c in columns},
               "fallbacks": dict(sorted(fallbacks[policy].items())),
               "fallback_error": first_error.get(policy)}
        rows.append(row)
    infos = rank_rows([r["mean"] for r in rows], [r["low"] for r in rows],
                      [r["high"] for r in rows])
    for row, info in zip(rows, infos, strict=True):
        row.update(_rank_fields(info))
    rows.sort(key=lambda r: (-r["mean"], r["policy"]))
    return {"game": game, "variant": variant, "episodes": len(episodes), "statistic": STATISTIC,
            "columns": [c.to_json() for c in columns],
            "rows": rows}


def _overall(episodes: Sequence[EpisodeRecord], book: Mapping[str, Mapping[str, Any]],
             resamples: int, seed: int) -> dict[str, Any]:
    pairs = [(ep.policies, ep.scores) for ep in episodes]
    bt = bradley_terry.rate(pairs, resamples=max(1, resamples // 5), seed=seed)
    bt_rows = [{**_policy_fields(p, book), "strength": s, "low": lo, "high": hi}
               for p, s, lo, hi in zip(bt.policies, bt.strength, bt.low, bt.high, strict=True)]
    for row, info in zip(bt_rows, rank_rows([r["strength"] for r in bt_rows],
                                            [r["low"] for r in bt_rows],
                                            [r["high"] for r in bt_rows]), strict=True):
        row.update(_rank_fields(info))
    bt_rows.sort(key=lambda r: (-r["strength"], r["policy"]))

    skill = openskill_rating.rate(pairs)
    os_rows = [{**_policy_fields(r.policy, book), "mu": r.mu, "sigma": r.sigma,
                "ordinal": r.ordinal, "low": r.low, "high": r.high} for r in skill]
    for row, info in zip(os_rows, rank_rows([r["mu"] for r in os_rows],
                                            [r["low"] for r in os_rows],
                                            [r["high"] for r in os_rows]), strict=True):
        row.update(_rank_fields(info))
    os_rows.sort(key=lambda r: (-r["mu"], r["policy"]))
    return {"bradley_terry": {"episodes": bt.episodes, "matches": bt.matches, "rows": bt_rows},
            "openskill": {"model": "PlackettLuce", "rows": os_rows}}


def standings(episodes: Sequence[EpisodeRecord], book: Mapping[str, Mapping[str, Any]]
              | None = None, *, leagues: Sequence[str] | None = None, game: str | None = None,
              resamples: int = 2000, seed: int = 0, reveal_held_out: bool = False,
              prices: Any = None, held_out: Sequence[str] = ()) -> dict[str, Any]:
    """The standings document (see the module docstring) for already loaded episodes.

    Evaluation episodes (against a held-out pool, `league/heldout.py`) never enter the
    rankings; they give each table's ``held_out`` comparison. Held-out names read
    ``held-out #k`` unless `reveal_held_out`, numbered among `held_out` (the league's whole
    pool, when known) and those the episodes show, so one policy has one mask in every view.
    `prices` (a `PriceTable`) prices ``costs``."""
    book = book or {}
    everything = [ep for ep in episodes if ep.status == store.STATUS_OK]
    held = heldout.held_out_names(episodes)  # failed ones too: their line-ups are shown
    names = heldout.masks(sorted({*held, *held_out}), reveal_held_out)
    ok = [ep for ep in everything if ep.source != heldout.SOURCE]
    unplayed = [ep for ep in ok if gamestats.nobody_came(ep.game, ep.results)]
    ok = [ep for ep in ok if not gamestats.nobody_came(ep.game, ep.results)]
    evaluation = [ep for ep in everything if ep.source == heldout.SOURCE]
    failed = [ep for ep in episodes if ep.status != store.STATUS_OK]
    # one table per variant played: an episode recorded without one played the default
    groups: dict[tuple[str, str], list[EpisodeRecord]] = defaultdict(list)
    for ep in ok:
        groups[(ep.game, gamestats.played_variant(ep.game, ep.variant) or "")].append(ep)
    eval_groups: dict[tuple[str, str], list[EpisodeRecord]] = defaultdict(list)
    for ep in evaluation:
        eval_groups[(ep.game, gamestats.played_variant(ep.game, ep.variant) or "")].append(ep)
    tables = []
    for (g, v), eps in sorted(groups.items()):
        table = _game_table(g, v or None, eps, book, resamples, seed)
        table["held_out"] = heldout.section(eps, eval_groups.get((g, v), []), held,
                                            resamples=resamples, seed=seed)
        tables.append(table)
    failures = [{"id": ep.id, "league": ep.league, "game": ep.game,
                 "variant": gamestats.played_variant(ep.game, ep.variant),  # as tables name it
                 "seed": ep.seed, "lineup": ep.lineup, "attempts": ep.attempts,
                 "status": ep.status, "error": ep.error} for ep in failed]
    heldout.mask_failures(failures, names)
    return {
        "leagues": None if leagues is None else list(leagues),
        "game": game,
        "episodes": {"ok": len(ok),  # failed and infra_error apart, as `league run` counts
                     "failed": sum(ep.status == store.STATUS_FAILED for ep in failed),
                     "infra_error": sum(ep.status == store.STATUS_INFRA for ep in failed),
                     "no_players": len(unplayed)},
        "failures": failures,
        "tables": tables,
        "overall": _overall(ok, book, resamples, seed),
        "held_out": {"revealed": reveal_held_out,
                     "policies": [names[n] for n in sorted(held)]} if held else None,
        "costs": cost_section(everything, prices, names),
    }


def standings_json(db_url: str | Engine, game: str | None = None, league: str | None = None,
                   *, leagues: Sequence[str] | None = None, resamples: int = 2000,
                   reveal_held_out: bool = False, prices: Any = None,
                   held_out: Sequence[str] = (),
                   keep: Callable[[EpisodeRecord], bool] | None = None) -> dict[str, Any]:
    """Standings straight from the store (the Observatory's entry point).

    `league` / `leagues` limit to those leagues (server tables are league ``"server"``);
    None takes everything in the store. `game` limits to one game; `keep`, when given, to the
    episodes it keeps."""
    chosen = list(leagues) if leagues is not None else ([league] if league else None)
    episodes = store.load_episodes(db_url, leagues=chosen, game=game)
    if keep is not None:
        episodes = [ep for ep in episodes if keep(ep)]
    book: dict[str, dict[str, Any]] = {}
    every: list[str | None] = [None]  # no league named: the store's whole policy book
    for name in chosen or every:
        book.update(store.load_policies(db_url, name))
    return standings(episodes, book, leagues=chosen, game=game, resamples=resamples,
                     reveal_held_out=reveal_held_out, prices=prices, held_out=held_out)
