"""The league report: PNG plots and one self-contained HTML page beside them.

Per game and variant: the score distribution of every policy (box and points, best mean on
top), the mean with its 95% bootstrap interval, and the game's per-round curve (cooperation,
payoff or resource) averaged per policy or over episodes. Across games: Bradley–Terry strengths
and OpenSkill ratings with their intervals. The page shows the same standings document as
`cogleague league standings` and the Observatory.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

from cogleague.league import gamestats
from cogleague.league.episodes import EpisodeRecord
from cogleague.league.rankings.ranks import LEVEL_NOTE
from cogleague.league.summary import fallback_line, two

HORIZONTAL: dict[str, Any] = (
    {"orientation": "horizontal"}
    if tuple(int(x) for x in matplotlib.__version__.split(".")[:2]) >= (3, 10)
    else {"vert": False})  # `vert` is deprecated from matplotlib 3.10 on
DPI = 110
ROW_INCHES = 0.42
SEPARATED = "#1f77b4"
LEVEL = "#9a9a9a"


def _slug(*parts: str | None) -> str:
    return re.sub(r"[^a-z0-9]+", "-", "-".join(p or "default" for p in parts).lower()).strip("-")


def _height(rows: int) -> float:
    return max(2.4, 1.2 + ROW_INCHES * rows)


def _save(fig: Any, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path.name


def _policy_scores(episodes: Sequence[EpisodeRecord]) -> dict[str, list[float]]:
    """Per policy, its score in each episode (the mean of its seats when duplicated)."""
    out: dict[str, list[float]] = defaultdict(list)
    for ep in episodes:
        seats: dict[str, list[float]] = defaultdict(list)
        for p, s in zip(ep.policies, ep.scores, strict=True):
            seats[p].append(s)
        for p, values in seats.items():
            out[p].append(sum(values) / len(values))
    return out


def plot_scores(table: dict[str, Any], episodes: Sequence[EpisodeRecord], path: Path) -> str:
    rows = table["rows"][::-1]  # best at the top
    data = _policy_scores(episodes)
    fig, ax = plt.subplots(figsize=(7.5, _height(len(rows))))
    values = [data[r["policy"]] for r in rows]
    ax.boxplot(values, **HORIZONTAL, widths=0.55, showfliers=False,
               medianprops={"color": "#333333"}, boxprops={"color": "#777777"},
               whiskerprops={"color": "#777777"}, capprops={"color": "#777777"})
    jitter = np.random.default_rng(0)
    for i, v in enumerate(values, start=1):
        ax.scatter(v, i + jitter.uniform(-0.18, 0.18, len(v)), s=9, alpha=0.35,
                   color=SEPARATED, linewidths=0)
        ax.scatter([np.mean(v)], [i], marker="D", s=30, color="#d62728", zorder=3,
                   label="mean" if i == 1 else None)
    ax.set_yticks(range(1, len(rows) + 1), [r["policy"] for r in rows])
    ax.set_xlabel("episode score")
    ax.set_title(f"{table['game']} · {table['variant'] or 'default'}: score per episode "
                 f"({table['episodes']} episodes)", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    return _save(fig, path)


def plot_intervals(rows: Sequence[dict[str, Any]], key: str, xlabel: str, title: str,
                   path: Path) -> str:
    """A forest plot: estimate and interval per policy, rank label beside; grey when level."""
    ordered = list(rows)[::-1]
    fig, ax = plt.subplots(figsize=(7.5, _height(len(ordered))))
    for i, r in enumerate(ordered):
        color = SEPARATED if r["separated"] else LEVEL
        if r["low"] is not None:
            ax.plot([r["low"], r["high"]], [i, i], color=color, linewidth=2.5,
                    solid_capstyle="butt")
        ax.plot([r[key]], [i], "o", color=color, markersize=6)
    ax.set_yticks(range(len(ordered)),
                  [f"{r['policy']}   ({r['rank_label']})" for r in ordered])
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.margins(y=0.12)
    return _save(fig, path)


def _seat_curves(episodes: Sequence[EpisodeRecord]) -> dict[str, list[float]]:
    """Per policy, its mean per-round value over all its seats and episodes."""
    sums: dict[str, list[float]] = defaultdict(list)
    counts: dict[str, list[int]] = defaultdict(list)
    for ep in episodes:
        for policy, curve in zip(ep.policies, (ep.series or {}).get("seats", []), strict=False):
            s, c = sums[policy], counts[policy]
            for r, value in enumerate(curve):
                if value is None:
                    continue
                while len(s) <= r:
                    s.append(0.0)
                    c.append(0)
                s[r] += value
                c[r] += 1
    return {p: [s / c if c else float("nan") for s, c in zip(sums[p], counts[p], strict=True)]
            for p in sums}


def plot_series(table: dict[str, Any], episodes: Sequence[EpisodeRecord],
                path: Path) -> str | None:
    with_series = [ep for ep in episodes if ep.series]
    if not with_series:
        return None
    label = with_series[0].series.get("label", "value") if with_series[0].series else "value"
    fig, ax = plt.subplots(figsize=(8.5, 3.6))
    if "seats" in (with_series[0].series or {}):
        curves = _seat_curves(with_series)
        for row in table["rows"]:
            curve = curves.get(row["policy"])
            if curve:
                ax.plot(range(1, len(curve) + 1), curve, marker=".", label=row["policy"])
        ax.legend(fontsize=7, frameon=False, loc="center left", bbox_to_anchor=(1.01, 0.5))
        title = f"{label} by round, mean per policy"
    else:
        groups = [ep.series["group"] for ep in with_series if ep.series]
        length = max(len(g) for g in groups)
        grid = np.full((len(groups), length), np.nan)
        for i, g in enumerate(groups):
            grid[i, :len(g)] = g
        rounds = np.arange(1, length + 1)
        ax.fill_between(rounds, np.nanpercentile(grid, 10, axis=0),
                        np.nanpercentile(grid, 90, axis=0), alpha=0.25, color=SEPARATED,
                        label="10th–90th percentile")
        ax.plot(rounds, np.nanmedian(grid, axis=0), color=SEPARATED, label="median")
        ax.legend(fontsize=8, frameon=False)
        title = f"{label} after each round, over {len(groups)} episodes"
    ax.set_xlabel("round")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(label)
    ax.set_title(f"{table['game']} · {table['variant'] or 'default'}: {title}", fontsize=10)
    ax.grid(alpha=0.3)
    return _save(fig, path)


# -- HTML --------------------------------------------------------------------------------------
CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1000px;color:#222;
 padding:0 1rem}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2.2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6rem 0}td,th{padding:.25rem .6rem;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}tr:nth-child(even){background:#fafafa}
.level{color:#888}.plots img{max-width:100%;margin:.4rem 0;border:1px solid #eee}
.fail{color:#a00}code{font-size:12px}
"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def _fmt(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:.0%}" if percent else two(value)


def _ci(row: dict[str, Any], key: str) -> str:
    if row["low"] is None:
        return f"{two(row[key])} <span class=level>(no interval)</span>"
    return (f"{two(row[key])} <span class=level>[{two(row['low'])}, {two(row['high'])}]"
            "</span>")


def _rank(row: dict[str, Any]) -> str:
    cls = "" if row["separated"] else " class=level"
    return f"<td class=l><span{cls}>{_e(row['rank_label'])}</span></td>"


def _game_html(table: dict[str, Any], images: list[str]) -> str:
    head = "".join(f"<th>{_e(c['label'])}</th>" for c in table["columns"])
    body = []
    for r in table["rows"]:
        extras = "".join(f"<td>{_fmt(r['extras'].get(c['key']), c['format'] == 'percent')}</td>"
                         for c in table["columns"])
        body.append(f"<tr>{_rank(r)}<td class=l>{_e(r['policy'])}</td>"
                    f"<td class=l>{_e(r['author'])}</td><td>{r['games']}</td>"
                    f"<td>{_ci(r, 'mean')}</td>{extras}</tr>")
    imgs = "".join(f'<img src="{_e(i)}" alt="{_e(i)}">' for i in images)
    return (f"<h2>{_e(table['game'])} · {_e(table['variant'] or 'default')}</h2>"
            f"<p>{_e(table['statistic'])} over {table['episodes']} episodes, with a 95% "
            f"bootstrap interval (episodes resampled).</p>"
            f"<table><tr><th class=l>rank</th><th class=l>policy</th><th class=l>author</th>"
            f"<th>games</th><th>mean [95% CI]</th>{head}</tr>{''.join(body)}</table>"
            f"{_level_note(table['rows'])}{_fallback_note(table)}<div class=plots>{imgs}</div>")


def _fallback_note(table: dict[str, Any]) -> str:
    line = fallback_line(table)
    return "" if line is None else f"<p class=fail>{_e(line)}</p>"


def _level_note(rows: list[dict[str, Any]]) -> str:
    if not any(r["rank_label"].startswith("level") for r in rows):
        return ""
    return f"<p class=note>{_e(LEVEL_NOTE)}</p>"


def _overall_html(overall: dict[str, Any], images: list[str]) -> str:
    bt = overall["bradley_terry"]
    bt_rows = "".join(f"<tr>{_rank(r)}<td class=l>{_e(r['policy'])}</td>"
                      f"<td>{_ci(r, 'strength')}</td></tr>" for r in bt["rows"])
    os_rows = "".join(f"<tr>{_rank(r)}<td class=l>{_e(r['policy'])}</td><td>{r['mu']:.2f}</td>"
                      f"<td>{r['sigma']:.2f}</td><td>{r['ordinal']:.2f}</td></tr>"
                      for r in overall["openskill"]["rows"])
    imgs = "".join(f'<img src="{_e(i)}" alt="{_e(i)}">' for i in images)
    return (f"<h2>All games</h2><p>Bradley–Terry on {bt['matches']} within-episode pairwise "
            f"outcomes from {bt['episodes']} episodes (log-strength, 0 = league average; 95% "
            f"bootstrap interval over episodes).</p><table><tr><th class=l>rank</th>"
            f"<th class=l>policy</th><th>strength [95% CI]</th></tr>{bt_rows}</table>"
            f"{_level_note(bt['rows'])}"
            f"<p>OpenSkill (Plackett–Luce): mu ± 1.96 sigma; ordinal = mu − 3 sigma.</p>"
            f"<table><tr><th class=l>rank</th><th class=l>policy</th><th>mu</th><th>sigma</th>"
            f"<th>ordinal</th></tr>{os_rows}</table><div class=plots>{imgs}</div>")


def _first_line(text: str | None) -> str:
    return text.splitlines()[0] if text else ""


def _failures_html(failures: Sequence[dict[str, Any]]) -> str:
    if not failures:
        return ""
    items = "".join(f"<li><code>{_e(f['id'])}</code> [{_e(f['status'])}] "
                    f"{_e(f['game'])}/{_e(f['variant'] or 'default')} "
                    f"seed {f['seed']}: {_e(_first_line(f['error']))}</li>"
                    for f in failures[:50])
    more = f"<li>… and {len(failures) - 50} more</li>" if len(failures) > 50 else ""
    return (f"<h2 class=fail>{len(failures)} episodes failed or hit platform faults</h2><p>"
            "Stored and excluded from every ranking; <code>cogleague league run</code> plays "
            "the failed ones again, <code>cogleague league run --retry-infra</code> the "
            "infra_error ones.</p>"
            f"<ul>{items}{more}</ul>")


def write_report(doc: dict[str, Any], episodes: Sequence[EpisodeRecord], out: str | Path,
                 *, title: str = "League report",
                 profiles: Sequence[dict[str, Any]] = ()) -> Path:
    """Write the plots and ``index.html`` into `out`; returns the page's path. `profiles`
    (`league/profiles.py`) add a table and a plot per game, also written as ``profiles.md``."""
    from cogleague.league import report_extras

    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    by_table: dict[tuple[str, str | None], list[EpisodeRecord]] = defaultdict(list)
    for ep in episodes:
        if ep.source != "evaluation":  # held-out evaluations have their own section
            # grouped as the standings group them: unnamed, the game's default variant
            by_table[(ep.game, gamestats.played_variant(ep.game, ep.variant))].append(ep)
    sections = []
    for table in doc["tables"]:
        eps = by_table[(table["game"], table["variant"])]
        slug = _slug(table["game"], table["variant"])
        images = [plot_intervals(table["rows"], "mean", "mean episode score (95% CI)",
                                 f"{table['game']} · {table['variant'] or 'default'}: mean "
                                 "score and rank (grey: level, intervals overlap)",
                                 out_dir / f"ranks-{slug}.png"),
                  plot_scores(table, eps, out_dir / f"scores-{slug}.png")]
        series = plot_series(table, eps, out_dir / f"rounds-{slug}.png")
        if series:
            images.append(series)
        sections.append(_game_html(table, images) + report_extras.held_out_html(table))
    overall = doc["overall"]
    overall_images = []
    if overall["bradley_terry"]["rows"]:
        overall_images.append(plot_intervals(
            overall["bradley_terry"]["rows"], "strength", "log-strength (0 = league average)",
            "All games: Bradley–Terry strength with 95% bootstrap interval",
            out_dir / "overall-bradley-terry.png"))
    if overall["openskill"]["rows"]:
        overall_images.append(plot_intervals(
            overall["openskill"]["rows"], "mu", "mu ± 1.96 sigma",
            "All games: OpenSkill (Plackett–Luce) rating", out_dir / "overall-openskill.png"))
    counts = doc["episodes"]
    page = (f"<!doctype html><html lang=en><meta charset=utf-8><title>{_e(title)}</title>"
            f"<style>{CSS}</style><h1>{_e(title)}</h1><p>{counts['ok']} finished episodes, "
            f"{counts['failed']} failed, {counts.get('infra_error', 0)} infra_error. "
            "A rank is shown only where the intervals separate a "
            f"policy from every other; otherwise it reads <em>level</em> with the ranks its "
            f"interval allows. Ties share a rank.</p>"
            f"{_overall_html(overall, overall_images) if doc['tables'] else ''}"
            f"{''.join(sections)}"
            f"{report_extras.profiles_html(profiles, out_dir)}"
            f"{report_extras.costs_html(doc)}{_failures_html(doc['failures'])}</html>")
    path = out_dir / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
